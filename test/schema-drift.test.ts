import { readFile } from "node:fs/promises";
import { PGlite } from "@electric-sql/pglite";
import { printSchema } from "graphql";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { describe, expect, it } from "vitest";
import { pendingMigrationSql } from "../src/db/schema-engine.js";
import { schema } from "../src/graphql/schema.js";

describe("drift", () => {
  it("schema.graphql is the printed schema (run `npm run schema:print`)", async () => {
    expect(await readFile(new URL("../schema.graphql", import.meta.url), "utf8")).toBe(printSchema(schema) + "\n");
  });

  it("prisma/migrations produce exactly schema.prisma (run `npm run db:migrate:create -- --name X`)", async () => {
    const pglite = new PGlite();
    try {
      const { sql } = await pendingMigrationSql(new PrismaPGlite(pglite));
      expect(sql).toBeNull();
    } finally {
      await pglite.close();
    }
  }, 120_000); // a fresh PGlite plus the WASM schema engine over every migration: ~30 s on a busy 2-core machine
});

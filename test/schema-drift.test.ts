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
  }, 120_000); // the schema engine replays every migration on a scratch database: ~10 s of CPU, far more on a loaded machine
});

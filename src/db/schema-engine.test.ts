import { randomBytes } from "node:crypto";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { migrateInChild } from "./migrations.js";

/** Prisma's migration lock: one advisory lock per database, whatever the schema (its engine's own key) */
const PRISMA_MIGRATION_LOCK = 72707369;

describe.runIf(!!process.env.DATABASE_URL)("migrations on PostgreSQL (postgres)", () => {
  it("wait out another holder of Prisma's migration lock for longer than the engine's own 10 s (P1002)", async () => {
    const databaseUrl = process.env.DATABASE_URL!;
    const schema = `lock_${randomBytes(4).toString("hex")}`;
    const holder = new pg.Client({ connectionString: databaseUrl });
    await holder.connect();
    let release: NodeJS.Timeout | undefined;
    try {
      await holder.query("select pg_advisory_lock($1)", [PRISMA_MIGRATION_LOCK]); // as another instance migrating
      const released = new Promise((resolve) => {
        release = setTimeout(() => resolve(holder.query("select pg_advisory_unlock($1)", [PRISMA_MIGRATION_LOCK])), 11_000);
      });
      const applied = await migrateInChild({ databaseUrl, databaseSchema: schema, dataDir: "" });
      await released;
      expect(applied.length).toBeGreaterThan(0);
    } finally {
      clearTimeout(release); // a failed migration must not leave the unlock to run on an ended client
      await holder.query(`drop schema if exists "${schema}" cascade`);
      await holder.end();
    }
  }, 90_000);
});

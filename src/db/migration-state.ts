/** Whether a database holds every migration of prisma/migrations: a check that loads no schema engine. */
import { readdir } from "node:fs/promises";
import path from "node:path";
import { PRISMA_DIR } from "./schema-engine.js";

type Row = Record<string, unknown>;
type Query = (sql: string) => Promise<Row[]>;

/**
 * True when every folder under prisma/migrations is recorded as applied and none failed, i.e. when
 * the engine's `applyMigrations` would do nothing (a failed one is left to the engine to report).
 */
export async function migrationsUpToDate(query: Query): Promise<boolean> {
  const [table] = await query(`select to_regclass('_prisma_migrations') is not null as "exists"`);
  if (!table?.exists) return false;
  const rows = await query(`select migration_name, finished_at is not null as finished, rolled_back_at is not null as rolled_back from _prisma_migrations`);
  if (rows.some((r) => !r.finished && !r.rolled_back)) return false;
  const applied = new Set(rows.filter((r) => r.finished && !r.rolled_back).map((r) => r.migration_name));
  const folders = await readdir(path.join(PRISMA_DIR, "migrations"), { withFileTypes: true });
  return folders.filter((d) => d.isDirectory()).every((d) => applied.has(d.name));
}

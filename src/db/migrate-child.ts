/**
 * The child process of migrateInChild (migrations.ts): opens the database the options name,
 * applies pending migrations with the schema engine, answers `{applied}` or `{error}` and exits,
 * taking the engine's WebAssembly with it.
 */
import { openMigrationTarget, type DbOptions } from "./client.js";
import { applyMigrations } from "./schema-engine.js";

async function migrate(options: DbOptions): Promise<{ applied: string[] } | { error: string }> {
  try {
    const target = await openMigrationTarget(options);
    try {
      return { applied: await applyMigrations(target.factory) };
    } finally {
      await target.close();
    }
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

process.once("message", async (options: DbOptions) => {
  const answer = await migrate(options);
  // exit rather than wait: the engine leaves a 10 s timer behind
  process.send!(answer, () => process.exit("error" in answer ? 1 : 0));
});

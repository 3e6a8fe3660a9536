/** Read config, migrate, build the app, listen; SIGTERM/SIGINT → graceful stop. Nothing else. */
import { buildApp } from "./app.js";
import { ConfigError, loadConfig } from "./config.js";
import { isMemoryDir } from "./db/client.js";
import { migrateBeforeStart } from "./db/migrations.js";
import { DataDirInUse } from "./db/data-dir.js";

// every file this process makes (PGlite's tables and WAL, keys, documents) is its account's alone
process.umask(0o077);

/** resident set size in MiB, logged at each step of the start: what the process holds and since when */
const rssMiB = () => Math.round(process.memoryUsage.rss() / 2 ** 20);
const memory: Record<string, number> = { imported: rssMiB() };

let config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(`config: ${error.message}`);
    process.exit(1);
  }
  throw error;
}
const started = performance.now();
// the schema engine runs in a child process, so its WebAssembly never stays in this one; an
// in-memory database lives only here, and is migrated by buildApp (the engine then stays: tests, demos)
const { migrated, app } = await (async () => {
  try {
    const migrated = await migrateBeforeStart(config);
    memory.migrated = rssMiB();
    return { migrated, app: await buildApp(config) };
  } catch (error) {
    // another process serves this DATA_DIR: one line, as for a bad setting
    if (error instanceof DataDirInUse) {
      console.error(`data: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
})();
memory.built = rssMiB();
const port = await app.start();
const log = app.services.logger;
if (migrated.length) log.info({ applied: migrated }, "migrations applied");
// DATA_DIR=memory:// writes no file: the key is in this log and nowhere else
const written = isMemoryDir(config.dataDir) ? {} : { file: `${config.dataDir}/bootstrap.json` };
if (app.demo) log.info({ demo_client: app.demo, ...written }, "created the sandbox demo client; its API key is shown only now");
log.info({ port, database: app.database.kind, ms: Math.round(performance.now() - started), rss_mib: memory }, `listening on http://localhost:${port}/graphql`);
if (app.demo)
  console.log(`\nDemo sandbox API key: ${app.demo.api_key}\n  curl -H "Authorization: Bearer ${app.demo.api_key}" http://localhost:${port}/v2/users\n`);

let stopping = false;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, async () => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "stopping: finishing in-flight requests");
    const force = setTimeout(() => process.exit(1), 15_000).unref();
    await app.stop();
    clearTimeout(force);
    process.exit(0);
  });
}

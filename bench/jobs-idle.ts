/**
 * What an idle service costs with the job engine running: SQL statements pg-boss issues on its own
 * connection (polling, monitor, maintenance, cron), statements through the app's Prisma client
 * (must be 0: nothing timer-driven goes there), and CPU. `npx tsx bench/jobs-idle.ts` (PGlite in
 * memory; with DATABASE_URL also PostgreSQL). BENCH_SECONDS (default 60) of idle after a warm-up.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { buildApp } from "../src/app.js";
import { loadConfig } from "../src/config.js";

const seconds = Number(process.env.BENCH_SECONDS ?? 60);

async function measure(backend: "pglite" | "postgres") {
  const schema = `bench_${randomBytes(4).toString("hex")}`;
  const env =
    backend === "postgres"
      ? { DATABASE_URL: process.env.DATABASE_URL, DATABASE_SCHEMA: schema, ENCRYPTION_KEY: randomBytes(32).toString("hex") }
      : { DATA_DIR: "memory://" };
  const app = await buildApp(loadConfig({ NODE_ENV: "test", ...env }));
  const db = app.services.jobs.boss.getDb() as { executeSql: (...a: unknown[]) => Promise<unknown> };
  let bossCalls = 0;
  const execute = db.executeSql.bind(db);
  db.executeSql = (...a) => {
    bossCalls++;
    return execute(...a);
  };
  await new Promise((r) => setTimeout(r, 3_000)); // start-up work settles
  bossCalls = 0;
  const cpu = process.cpuUsage();
  const { queries } = await app.database.countQueries(() => new Promise((r) => setTimeout(r, seconds * 1000)));
  const used = process.cpuUsage(cpu);
  const row = {
    backend,
    seconds,
    boss_sql_per_s: +(bossCalls / seconds).toFixed(2),
    prisma_queries: queries.length,
    cpu_percent_of_core: +(((used.user + used.system) / 1e6 / seconds) * 100).toFixed(2),
  };
  console.log(JSON.stringify(row));
  await app.stop();
  if (backend === "postgres") {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    await client.query(`drop schema if exists "${schema}" cascade; drop schema if exists "${schema}_boss" cascade`);
    await client.end();
  }
}

await measure("pglite");
if (process.env.DATABASE_URL) await measure("postgres");
process.exit(0);

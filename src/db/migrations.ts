/**
 * Migrations without Prisma's schema engine in the serving process: its WebAssembly (tens of MB) is
 * never given back once loaded, so `npm start` applies pending migrations in a
 * short-lived child process (migrate-child.ts) before it opens the database, and the server itself
 * only checks that every migration is recorded, which loads nothing. An in-memory PGlite, which no
 * other process can reach, is still migrated in the process that holds it (tests, demos).
 */
import { fork } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { claimDataDir, handOver, isMemoryDir, openEmbedded, pgConfigOf, type DbOptions } from "./client.js";
import { migrationsUpToDate } from "./migration-state.js";

type Row = Record<string, unknown>;

/**
 * What a long-lived process (main.ts, `cli worker`) calls before building the app: applies pending
 * migrations in a child process, after a check that loads no engine (a restart finds none pending).
 * An on-disk PGlite opened for the check is handed to the app's createDb, not opened twice.
 * An in-memory PGlite is left to buildApp: only its own process can reach it.
 */
export async function migrateBeforeStart(options: DbOptions): Promise<string[]> {
  if (options.databaseUrl) {
    // the app's client class: a database that stops answering fails the check instead of hanging start-up
    const { Client = pg.Client, ...config } = pgConfigOf(options.databaseUrl, options.databaseSchema);
    const client = new Client(config);
    await client.connect();
    try {
      if (await migrationsUpToDate(async (sql) => (await client.query(sql)).rows)) return [];
    } finally {
      await client.end();
    }
    return migrateInChild(options);
  }
  if (isMemoryDir(options.dataDir)) return [];
  // DATA_DIR is this process's from here until it stops: the check, the child's migration and the app run under one lock
  const release = await claimDataDir(options.dataDir);
  try {
    if (existsSync(path.join(options.dataDir, "pglite"))) {
      const pglite = await openEmbedded(options.dataDir);
      if (await migrationsUpToDate(async (sql) => (await pglite.query<Row>(sql)).rows)) {
        handOver(options.dataDir, { pglite, release });
        return [];
      }
      await pglite.close(); // PGlite is one process: the child opens it next
    }
    const applied = await migrateInChild({ ...options, parentHoldsDataDir: true });
    handOver(options.dataDir, { pglite: null, release });
    return applied;
  } catch (error) {
    await release();
    throw error;
  }
}

/** Runs migrate-child.ts with `options` (sent over IPC: a URL with a password stays out of `ps`); resolves to the applied names. */
export function migrateInChild(options: DbOptions): Promise<string[]> {
  const here = fileURLToPath(import.meta.url);
  const ext = path.extname(here); // .ts under tsx and vitest, .js once compiled to dist/
  const child = fork(path.join(path.dirname(here), `migrate-child${ext}`), {
    execArgv: ext === ".ts" ? ["--import", "tsx"] : [],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  child.send({
    databaseUrl: options.databaseUrl,
    databaseSchema: options.databaseSchema,
    dataDir: options.dataDir,
    parentHoldsDataDir: options.parentHoldsDataDir,
  });
  return new Promise((resolve, reject) => {
    let answer: { applied?: string[]; error?: string } | undefined;
    child.on("message", (message) => {
      answer = message as typeof answer;
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      if (answer?.applied && code === 0) resolve(answer.applied);
      else reject(new Error(`migrations failed${answer?.error ? `: ${answer.error}` : ` (child exited ${code})`}`));
    });
  });
}

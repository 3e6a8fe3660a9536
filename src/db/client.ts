/**
 * The database: embedded PGlite under DATA_DIR by default, a PostgreSQL server through
 * @prisma/adapter-pg when DATABASE_URL is set. Same schema, same migrations, chosen once at start.
 */
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPg } from "@prisma/adapter-pg";
import type { SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { PrismaClient } from "../../generated/prisma/client.js";
import { applyMigrations } from "./schema-engine.js";

export type Db = PrismaClient;

export type Database = {
  prisma: Db;
  kind: "pglite" | "postgres";
  /** true when the data lives only in memory (tests) */
  ephemeral: boolean;
  migrate(): Promise<string[]>;
  ping(): Promise<void>;
  close(): Promise<void>;
  /** every SQL statement issued while `fn` runs (tests assert N+1 freedom with it) */
  countQueries<T>(fn: () => Promise<T>): Promise<{ result: T; queries: string[] }>;
};

export type DbOptions = { databaseUrl?: string; databaseSchema?: string; dataDir: string };

/** `DATA_DIR=memory://` keeps the embedded database in memory: nothing is written to disk. */
export const isMemoryDir = (dataDir: string) => dataDir.endsWith("memory:") || dataDir.includes("memory://");

export async function createDb(options: DbOptions): Promise<Database> {
  const { factory, kind, ephemeral, closeDriver } = await openDriver(options);
  const prisma = new PrismaClient({ adapter: factory, log: [{ emit: "event", level: "query" }] });
  let recorder: string[] | null = null;
  prisma.$on("query", (e) => recorder?.push(e.query));
  return {
    prisma, kind, ephemeral,
    migrate: () => applyMigrations(factory),
    ping: async () => { await prisma.$queryRawUnsafe("select 1"); },
    close: async () => { await prisma.$disconnect(); await closeDriver(); },
    async countQueries(fn) {
      recorder = [];
      try { const result = await fn(); return { result, queries: recorder }; } finally { recorder = null; }
    },
  };
}

async function openDriver(options: DbOptions): Promise<{
  factory: SqlMigrationAwareDriverAdapterFactory; kind: Database["kind"]; ephemeral: boolean; closeDriver: () => Promise<void>;
}> {
  if (options.databaseUrl) {
    const schema = options.databaseSchema;
    const pgConfig = { connectionString: options.databaseUrl, max: 10, ...(schema ? { options: `-c search_path="${schema}"` } : {}) };
    if (schema) await ensureSchema(options.databaseUrl, schema);
    return { factory: new PrismaPg(pgConfig, schema ? { schema } : undefined), kind: "postgres", ephemeral: false, closeDriver: async () => {} };
  }
  const memory = isMemoryDir(options.dataDir);
  if (!memory) await mkdir(options.dataDir, { recursive: true });
  const pglite = new PGlite(memory ? undefined : path.join(options.dataDir, "pglite"));
  await pglite.waitReady;
  return { factory: new PrismaPGlite(pglite), kind: "pglite", ephemeral: memory, closeDriver: () => pglite.close() };
}

async function ensureSchema(url: string, schema: string) {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try { await client.query(`create schema if not exists "${schema.replaceAll('"', '""')}"`); } finally { await client.end(); }
}

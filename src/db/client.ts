/**
 * The database: embedded PGlite under DATA_DIR by default, a PostgreSQL server through
 * @prisma/adapter-pg when DATABASE_URL is set. Same schema, same migrations, chosen once at start.
 */
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import type { SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { PrismaClient } from "../../generated/prisma/client.js";
import { migrationsUpToDate } from "./migrations.js";
import { applyMigrations } from "./schema-engine.js";
import { batchReadsOf, type RawRows } from "./batched-reads.js";

export type Db = PrismaClient;

export type Database = {
  prisma: Db;
  kind: "pglite" | "postgres";
  /** true when the data lives only in memory (tests) */
  ephemeral: boolean;
  /** the embedded database itself (the job engine reaches it through pg-boss's `db` option); null on PostgreSQL */
  pglite: PGlite | null;
  /** PostgreSQL connection string and schema, for engines that open their own pool (pg-boss) */
  server: { url: string; schema?: string } | null;
  /** applies pending migrations here (the schema engine stays loaded: see migrations.ts); [] when none */
  migrate(): Promise<string[]>;
  ping(): Promise<void>;
  close(): Promise<void>;
  /** every SQL statement issued while `fn` runs (tests assert N+1 freedom with it) */
  countQueries<T>(fn: () => Promise<T>): Promise<{ result: T; queries: string[] }>;
};

/**
 * A database that stops answering must not hold requests: a connection attempt gives up after 5 s
 * and a query after 6 s, so a request fails (503, src/db/outage.ts) before a caller's 10 s timeout;
 * keep-alive notices a peer that vanished without closing the socket.
 */
const POOL_TIMEOUTS = { connectionTimeoutMillis: 5_000, query_timeout: 6_000, keepAlive: true, Client: closeOnTimeout() };

/**
 * node-postgres answers a timed-out query at once but keeps its connection waiting for the server,
 * so what is queued behind it (Prisma's ROLLBACK after the failed statement) waits out a second
 * timeout, and the pool hands the stuck connection to the next request. A client that closes its
 * connection on a timeout fails all of that at once ("Connection terminated"), and the pool drops it.
 */
function closeOnTimeout(): typeof pg.Client {
  return class extends pg.Client {
    constructor(config?: string | pg.ClientConfig) {
      super(config);
      const onError = (error: unknown) => {
        if ((error as Error | null)?.message !== "Query read timeout") return;
        this.end().catch(() => {});
        (this as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
      };
      const query = this.query.bind(this) as (...a: unknown[]) => unknown;
      // one wrapper for query's many overloads: only the error path is observed
      this.query = ((...args: unknown[]) => {
        const last = args.length - 1;
        const callback = args[last];
        if (typeof callback === "function") args[last] = (error: unknown, result: unknown) => { if (error) onError(error); callback(error, result); };
        const result = query(...args);
        if (result instanceof Promise) result.catch(onError);
        return result;
      }) as typeof this.query;
    }
  };
}

export type DbOptions = { databaseUrl?: string; databaseSchema?: string; dataDir: string };

/** `DATA_DIR=memory://` keeps the embedded database in memory: nothing is written to disk. */
export const isMemoryDir = (dataDir: string) => dataDir.endsWith("memory:") || dataDir.includes("memory://");

export async function createDb(options: DbOptions): Promise<Database> {
  const { factory, migrations = factory, kind, ephemeral, closeDriver, pglite = null, pool = null } = await openDriver(options);
  const prisma = new PrismaClient({ adapter: factory, log: [{ emit: "event", level: "query" }] });
  let recorder: string[] | null = null;
  prisma.$on("query", (e) => recorder?.push(e.query));
  // batched hot reads run plain statements on Prisma's own pool (or PGlite), recorded as Prisma's are
  const rows: RawRows = async (sql, params) => {
    recorder?.push(sql);
    return (pool ? await pool.query<unknown[]>({ text: sql, values: params, rowMode: "array" }) : await pglite!.query<unknown[]>(sql, params, { rowMode: "array" })).rows;
  };
  batchReadsOf(prisma, rows);
  return {
    prisma, kind, ephemeral, pglite,
    server: options.databaseUrl ? { url: options.databaseUrl, schema: options.databaseSchema } : null,
    migrate: async () => await migrationsUpToDate((sql) => prisma.$queryRawUnsafe(sql)) ? [] : applyMigrations(migrations),
    ping: async () => { await prisma.$queryRawUnsafe("select 1"); },
    close: async () => { await prisma.$disconnect(); await closeDriver(); },
    async countQueries(fn) {
      recorder = [];
      try { const result = await fn(); return { result, queries: recorder }; } finally { recorder = null; }
    },
  };
}

async function openDriver(options: DbOptions): Promise<{
  factory: SqlMigrationAwareDriverAdapterFactory; migrations?: SqlMigrationAwareDriverAdapterFactory; kind: Database["kind"]; ephemeral: boolean; closeDriver: () => Promise<void>; pglite?: PGlite; pool?: pg.Pool;
}> {
  if (options.databaseUrl) {
    const schema = options.databaseSchema;
    const pgConfig = pgConfigOf(options.databaseUrl, schema);
    if (schema) await ensureSchema(options.databaseUrl, schema);
    const pool = guardedPool(pgConfig);
    return { factory: new PrismaPg(pool, { ...(schema ? { schema } : {}), disposeExternalPool: true }), pool, migrations: migrationAdapter(options), kind: "postgres", ephemeral: false, closeDriver: async () => {} };
  }
  const pglite = await openPGlite(options.dataDir);
  return { factory: new PrismaPGlite(pglite), pglite, kind: "pglite", ephemeral: isMemoryDir(options.dataDir), closeDriver: () => pglite.close() };
}

export function pgConfigOf(url: string, schema?: string) {
  return { connectionString: url, max: 10, ...POOL_TIMEOUTS, ...(schema ? { options: `-c search_path="${schema}"` } : {}) };
}

/**
 * A pool whose every client always has an 'error' listener. When PostgreSQL ends its sessions (a
 * restart: 57P01) the error can reach a client that is checked out but between statements, where
 * pg-pool listens to nothing, and an 'error' event nobody hears ends the process (seen in the
 * restart fault test). The pool still drops the broken client: its next statement fails and it is
 * released with that error.
 */
export function guardedPool(config: pg.PoolConfig) {
  const pool = new pg.Pool(config);
  pool.on("connect", (client) => client.on("error", () => {}));
  pool.on("error", () => {}); // an idle client's: pg-pool has already removed it
  return pool;
}

/** migrations may rightly run longer than any request: their own pool has no query timeout */
const migrationAdapter = ({ databaseUrl, databaseSchema: schema }: DbOptions) =>
  new PrismaPg(guardedPool({ ...pgConfigOf(databaseUrl!, schema), query_timeout: undefined }), { ...(schema ? { schema } : {}), disposeExternalPool: true });

/** an embedded database opened to check its migrations (migrations.ts), taken by the next createDb on that DATA_DIR rather than opened twice */
const handedOver = new Map<string, PGlite>();
export const handOver = (dataDir: string, pglite: PGlite) => handedOver.set(dataDir, pglite);

export async function openPGlite(dataDir: string) {
  const open = handedOver.get(dataDir);
  handedOver.delete(dataDir);
  if (open) return open;
  const memory = isMemoryDir(dataDir);
  if (!memory) await mkdir(dataDir, { recursive: true });
  const pglite = new PGlite(memory ? undefined : path.join(dataDir, "pglite"));
  await pglite.waitReady;
  return pglite;
}

/** The database as migrate-child.ts opens it: only its migration adapter, closed before the server opens it. */
export async function openMigrationTarget(options: DbOptions): Promise<{ factory: SqlMigrationAwareDriverAdapterFactory; close(): Promise<void> }> {
  if (options.databaseUrl) {
    if (options.databaseSchema) await ensureSchema(options.databaseUrl, options.databaseSchema);
    return { factory: migrationAdapter(options), close: async () => {} };
  }
  const pglite = await openPGlite(options.dataDir);
  return { factory: new PrismaPGlite(pglite), close: () => pglite.close() };
}

async function ensureSchema(url: string, schema: string) {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try { await client.query(`create schema if not exists "${schema.replaceAll('"', '""')}"`); } finally { await client.end(); }
}

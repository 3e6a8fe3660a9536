/**
 * The database: embedded PGlite under DATA_DIR by default, a PostgreSQL server through
 * @prisma/adapter-pg when DATABASE_URL is set. Same schema, same migrations, chosen once at start.
 */
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import type { SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { PrismaClient } from "../../generated/prisma/client.js";
import { keepMigratedImage, memoryStart } from "./memory-image.js";
import { migrationsUpToDate } from "./migration-state.js";
import { applyMigrations } from "./schema-engine.js";
import { batchReadsOf, type RawRows } from "./batched-reads.js";
import { hotStatementNames, type StatementNamer } from "./prepared-statements.js";
import { lockDataDir, ownerOnly, secureDataDir } from "./data-dir.js";

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
 * and a connection whose queries get no answer for 6 s is closed (`watchedClient`), so a request
 * fails (503, src/db/outage.ts) before a caller's 10 s timeout; keep-alive notices a peer that
 * vanished without closing the socket.
 */
const QUERY_TIMEOUT_MS = 6_000;
const POOL_TIMEOUTS = { connectionTimeoutMillis: 5_000, keepAlive: true, Client: watchedClient() };

/**
 * A client that closes its connection when its queries have had no answer for QUERY_TIMEOUT_MS.
 *
 * Not node-postgres's `query_timeout`, and no closure around each query's callback, for two
 * reasons:
 * - A closure wrapped around each query's callback (what `query_timeout` does, and what this
 *   client's error observer did) made every query's result outlive minor GCs, for reasons inside
 *   V8 not pinned down here, so every result was promoted to old space and brought the next
 *   mark-compact nearer (bench/db-promotion.ts measures it; docs/performance.md has the figures).
 * - On a timeout `query_timeout` answered the query at once but kept the connection waiting for the
 *   server, so what was queued behind it (Prisma's ROLLBACK) waited out a second timeout.
 * One timer per connection, refreshed rather than created per query, watches for progress instead.
 * A stall closes the connection: every query on it fails at once ("Connection terminated", an
 * outage) and the pool drops it.
 */
export function watchedClient(): typeof pg.Client {
  return class extends pg.Client {
    /** when the connection last made progress: a query was sent to an idle one, or one finished */
    #progress = 0;
    #watchdog: NodeJS.Timeout | null = null;
    constructor(config?: string | pg.ClientConfig) {
      super(config);
      const internals = this as unknown as Internals;
      internals.connection.on("readyForQuery", () => {
        this.#progress = performance.now();
      });
      const query = this.query.bind(this) as (...a: unknown[]) => unknown;
      // nothing per query but the stamp: a wrapped callback kept each result alive past minor GCs
      this.query = ((...args: unknown[]) => {
        if (!busy(internals)) this.#progress = performance.now();
        if (this.#watchdog) this.#watchdog.refresh();
        else this.#watchdog = setTimeout(() => this.#check(), 1_000).unref();
        // a promise asked for (adapter-pg, inside transactions): pg would make the Query, then set its
        // callback, and that kept every result past minor GCs (bench/db-promotion.ts);
        // a callback handed to the Query as it is made keeps nothing
        if (args.length === 1 && typeof (args[0] as { submit?: unknown }).submit !== "function") {
          return new Promise((resolve, reject) => {
            query(args[0], undefined, (error: Error | null, result: unknown) => (error ? reject(error) : resolve(result)));
          });
        }
        return query(...args);
      }) as typeof this.query;
    }
    /** every second while queries are pending: a connection silent for QUERY_TIMEOUT_MS is closed */
    #check() {
      const internals = this as unknown as Internals;
      if (!busy(internals)) return;
      if (performance.now() - this.#progress < QUERY_TIMEOUT_MS) {
        this.#watchdog!.refresh();
        return;
      }
      this.end().catch(() => {});
      internals.connection.stream?.destroy();
    }
  };
}
/** what of node-postgres's Client the watchdog reads (pg 8: the query in flight and those queued or sent) */
type Internals = {
  connection: { on(event: string, fn: () => void): void; stream?: { destroy(): void } };
  _activeQuery: unknown;
  _queryQueue: unknown[];
  _sentQueryQueue?: unknown[];
};
const busy = (c: Internals) => Boolean(c._activeQuery) || c._queryQueue.length > 0 || (c._sentQueryQueue?.length ?? 0) > 0;

export type DbOptions = {
  databaseUrl?: string;
  databaseSchema?: string;
  dataDir: string;
  /** the embedded database's lock is held by the process that forked this one to migrate for it (migrations.ts) */
  parentHoldsDataDir?: boolean;
};

/** `DATA_DIR=memory://` keeps the embedded database in memory: nothing is written to disk. */
export const isMemoryDir = (dataDir: string) => dataDir.endsWith("memory:") || dataDir.includes("memory://");

export async function createDb(options: DbOptions): Promise<Database> {
  const { factory, migrationTarget, kind, ephemeral, closeDriver, pglite = null, pool = null, named } = await openDriver(options);
  const prisma = new PrismaClient({ adapter: factory, log: [{ emit: "event", level: "query" }] });
  let recorder: string[] | null = null;
  prisma.$on("query", (e) => recorder?.push(e.query));
  // batched hot reads run plain statements on Prisma's own pool (or PGlite), recorded as Prisma's are
  const rows: RawRows = async (sql, params) => {
    recorder?.push(sql);
    return (
      pool
        ? await pool.query<unknown[]>({ name: named?.(sql), text: sql, values: params, rowMode: "array" })
        : await pglite!.query<unknown[]>(sql, params, { rowMode: "array" })
    ).rows;
  };
  batchReadsOf(prisma, rows);
  return {
    prisma,
    kind,
    ephemeral,
    pglite,
    server: options.databaseUrl ? { url: options.databaseUrl, schema: options.databaseSchema } : null,
    migrate: async () => {
      let applied: string[] = [];
      if (!(await migrationsUpToDate((sql) => prisma.$queryRawUnsafe(sql)))) {
        const target = migrationTarget?.() ?? { factory, close: async () => {} };
        try {
          applied = await applyMigrations(target.factory);
        } finally {
          await target.close();
        }
      }
      if (ephemeral && pglite) await keepMigratedImage(pglite);
      return applied;
    },
    ping: async () => {
      await prisma.$queryRawUnsafe("select 1");
    },
    close: async () => {
      await prisma.$disconnect();
      await closeDriver();
    },
    async countQueries(fn) {
      recorder = [];
      try {
        const result = await fn();
        return { result, queries: recorder };
      } finally {
        recorder = null;
      }
    },
  };
}

async function openDriver(options: DbOptions): Promise<{
  factory: SqlMigrationAwareDriverAdapterFactory;
  /** a server's migrations run on connections of their own, closed once they are done (see migrationAdapter) */
  migrationTarget?: () => MigrationTarget;
  kind: Database["kind"];
  ephemeral: boolean;
  closeDriver: () => Promise<void>;
  pglite?: PGlite;
  pool?: pg.Pool;
  named?: StatementNamer;
}> {
  if (options.databaseUrl) {
    const schema = options.databaseSchema;
    const pgConfig = pgConfigOf(options.databaseUrl, schema);
    if (schema) await ensureSchema(options.databaseUrl, schema);
    const pool = guardedPool(pgConfig);
    const named = hotStatementNames();
    // a statement named (prepared once per connection) only once it proved hot: db/prepared-statements.ts
    const statementNameGenerator = (query: { sql: string; args: unknown[] }) => (query.args.length ? named(query.sql) : undefined) as string;
    return {
      factory: new PrismaPg(pool, { ...(schema ? { schema } : {}), disposeExternalPool: true, statementNameGenerator }),
      pool,
      named,
      migrationTarget: () => migrationAdapter(options),
      kind: "postgres",
      ephemeral: false,
      closeDriver: async () => {},
    };
  }
  const { pglite, release } = await openPGlite(options.dataDir);
  return {
    factory: new PrismaPGlite(pglite),
    pglite,
    kind: "pglite",
    ephemeral: isMemoryDir(options.dataDir),
    closeDriver: async () => {
      await pglite.close();
      await release();
    },
  };
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

type MigrationTarget = { factory: SqlMigrationAwareDriverAdapterFactory; close(): Promise<void> };

/**
 * Migrations may rightly run longer than any request (the migration lock's wait): their own pool's
 * clients are not watched. Prisma's engine takes the migration lock (a session advisory lock) and
 * never releases it: it goes when its connection does, so the pool is ended once the migrations are
 * done, or every later migration of that database, in this process or another, waits for it.
 */
const migrationAdapter = ({ databaseUrl, databaseSchema: schema }: DbOptions): MigrationTarget => {
  const pool = guardedPool({ ...pgConfigOf(databaseUrl!, schema), Client: pg.Client });
  return { factory: new PrismaPg(pool, { ...(schema ? { schema } : {}), disposeExternalPool: true }), close: () => pool.end() };
};

/**
 * DATA_DIR's lock, and the embedded database if it was opened to check its migrations
 * (migrations.ts), taken before the app: the next createDb on that DATA_DIR takes them over rather
 * than locking and opening twice.
 */
type Held = { pglite: PGlite | null; release: () => Promise<void> };
const handedOver = new Map<string, Held>();
export const handOver = (dataDir: string, held: Held) => handedOver.set(dataDir, held);

/** DATA_DIR made the service account's alone and locked for this process (data-dir.ts); resolves to the lock's release. */
export async function claimDataDir(dataDir: string) {
  await secureDataDir(dataDir);
  return lockDataDir(dataDir);
}

/** The embedded database under its DATA_DIR's lock (taken here unless handed over), and the lock's release. */
async function openPGlite(dataDir: string): Promise<{ pglite: PGlite; release: () => Promise<void> }> {
  const given = handedOver.get(dataDir);
  handedOver.delete(dataDir);
  const release = given?.release ?? (isMemoryDir(dataDir) ? async () => {} : await claimDataDir(dataDir));
  try {
    return { pglite: given?.pglite ?? (await openEmbedded(dataDir)), release };
  } catch (error) {
    await release();
    throw error;
  }
}

/** PGlite in memory or under DATA_DIR, its lock already taken. */
export async function openEmbedded(dataDir: string) {
  const memory = isMemoryDir(dataDir);
  const pglite = memory ? new PGlite(memoryStart()) : new PGlite(path.join(dataDir, "pglite"));
  await pglite.waitReady;
  if (!memory) await ownerOnly(path.join(dataDir, "pglite"));
  return pglite;
}

/** The database as migrate-child.ts opens it: only its migration adapter, closed before the server opens it. */
export async function openMigrationTarget(options: DbOptions): Promise<{ factory: SqlMigrationAwareDriverAdapterFactory; close(): Promise<void> }> {
  if (options.databaseUrl) {
    if (options.databaseSchema) await ensureSchema(options.databaseUrl, options.databaseSchema);
    return migrationAdapter(options);
  }
  if (!options.parentHoldsDataDir) {
    const { pglite, release } = await openPGlite(options.dataDir);
    return {
      factory: new PrismaPGlite(pglite),
      close: async () => {
        await pglite.close();
        await release();
      },
    };
  }
  await lockDataDir(options.dataDir, { parentHolds: true });
  const pglite = await openEmbedded(options.dataDir);
  return { factory: new PrismaPGlite(pglite), close: () => pglite.close() };
}

async function ensureSchema(url: string, schema: string) {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`create schema if not exists "${schema.replaceAll('"', '""')}"`);
  } finally {
    await client.end();
  }
}

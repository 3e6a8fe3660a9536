/**
 * Background jobs on pg-boss 10 (the last line for Node 20; ../shared/NOTES.md "Jobs"). On the
 * embedded database pg-boss reaches PGlite through its `db` option; on PostgreSQL it opens its own
 * small pool and keeps its tables in the schema `<DATABASE_SCHEMA>_boss` (`pgboss` without one), so
 * every test schema has its own queues. A job caused by a change is enqueued in the change's own
 * transaction (`send(..., { tx })`, or `enqueue` inside withTransaction): both commit or neither.
 *
 * Queues are declared with `define` (before or after `start`); a process that works (the service
 * by default, `cli worker`) polls each worked queue every `pollingIntervalSeconds` (2 s) on pg-boss's
 * own connection, never through the app's Prisma client.
 */
import PgBoss from "pg-boss";
import type { Database } from "../db/client.js";
import type { Tx } from "../db/transaction.js";
import type { Logger } from "../lib/logger.js";

export type JobHandler<T> = (jobs: PgBoss.Job<T>[]) => Promise<unknown>;

export type JobSpec<T = unknown> = {
  name: string;
  /** queue options (policy, retries, expiry); an existing queue is updated to them at start */
  queue?: Omit<PgBoss.Queue, "name">;
  /** the worker: called with a batch of jobs; a throw fails (and retries) the batch */
  work?: JobHandler<T>;
  workOptions?: PgBoss.WorkOptions;
};

export type SendOptions = PgBoss.SendOptions & { tx?: Tx };

export type Jobs = ReturnType<typeof createJobs>;

/** pg-boss's schema for an app schema: beside it, never inside it (Prisma owns that one). */
export const bossSchemaFor = (schema?: string) => (schema ? `${schema}_boss` : "pgboss");

/** Idle polling of one worked queue; pg-boss's minimum is 0.5 s. */
export const POLLING_INTERVAL_SECONDS = 2;

export function createJobs(database: Pick<Database, "pglite" | "server">, logger: Logger) {
  const boss = new PgBoss({
    ...(database.pglite
      ? { db: pgliteDb(database.pglite) }
      : { connectionString: database.server!.url, schema: bossSchemaFor(database.server!.schema), max: 4, application_name: "onboarding-gateway jobs" }),
    // a job left active by a dead process is retried after its expiry (15 min by default, per queue)
    monitorStateIntervalSeconds: 60,
  });
  boss.on("error", (err: Error) => logger.error({ err: err.message }, "job engine error"));
  const specs = new Map<string, JobSpec<never>>();
  let state: "new" | "started" | "stopped" = "new";
  let working = false;

  async function declare(spec: JobSpec<never>) {
    await retryOnDeadlock(async () => {
      if (await boss.getQueue(spec.name)) await boss.updateQueue(spec.name, { name: spec.name, ...spec.queue });
      else await boss.createQueue(spec.name, { name: spec.name, ...spec.queue });
    });
    if (working && spec.work) {
      const work = spec.work;
      await boss.work<never>(spec.name, { pollingIntervalSeconds: POLLING_INTERVAL_SECONDS, ...spec.workOptions }, (jobs) => work(jobs));
    }
  }

  return {
    boss,
    /** Declares a queue and its worker; declared after start, it is created at once. */
    async define<T>(spec: JobSpec<T>) {
      if (specs.has(spec.name)) throw new Error(`job queue ${spec.name} defined twice`);
      specs.set(spec.name, spec as JobSpec<never>);
      if (state === "started") await declare(spec as JobSpec<never>);
    },
    /** `work: false` (a web-only process): queues exist and sends work, nothing is worked here. */
    async start({ work = true }: { work?: boolean } = {}) {
      if (state !== "new") throw new Error("the job engine starts once");
      working = work;
      await retryOnDeadlock(() => boss.start());
      state = "started";
      for (const spec of specs.values()) await declare(spec);
    },
    async stop() {
      if (state !== "started") { state = "stopped"; return; }
      state = "stopped";
      // a job in hand gets 10 s to finish; what is still active after that is retried elsewhere
      await boss.stop({ graceful: true, wait: true, timeout: 10_000 });
    },
    /** Enqueues a job; with `tx` inside that Prisma transaction (it commits or rolls back with it). */
    async send<T extends object>(name: string, data: T, options: SendOptions = {}): Promise<string | null> {
      const { tx, ...rest } = options;
      return boss.send(name, data, tx ? { ...rest, db: transactionDb(tx) } : rest);
    },
    transactionDb,
    /** Drops a queued job whose work was done another way; on failure the job simply runs. */
    async discard(name: string, id: string) {
      await boss.deleteJob(name, id).catch((err: Error) => logger.warn({ err: err.message, job: name }, "job left to run"));
    },
  };
}

/**
 * pg-boss's statements through an open Prisma interactive transaction. Objects (job data) go as
 * JSON text, undefined as null, as node-postgres would send them.
 */
export function transactionDb(tx: Tx): PgBoss.Db {
  return {
    executeSql: async (text, values = []) => {
      const params = values.map((v: unknown) => (v === undefined ? null : v !== null && typeof v === "object" && !(v instanceof Date) ? JSON.stringify(v) : v));
      return { rows: await tx.$queryRawUnsafe<unknown[]>(text, ...params) };
    },
  };
}

/** PGlite behind pg-boss: its parameterless scripts hold several statements (exec), the rest is one (query). */
function pgliteDb(pglite: NonNullable<Database["pglite"]>): PgBoss.Db {
  return {
    executeSql: async (text, values) => {
      if (!values?.length) {
        const results = await pglite.exec(text);
        return { rows: results.at(-1)?.rows ?? [] };
      }
      return { rows: (await pglite.query(text, values)).rows };
    },
  };
}

/** Two instances starting at once on a new schema can deadlock in pg-boss's DDL (40P01): try again. */
async function retryOnDeadlock<T>(fn: () => Promise<T>, attempts = 5): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (error) {
      if ((error as { code?: string }).code !== "40P01" || i >= attempts) throw error;
      await new Promise((r) => setTimeout(r, 50 * i + Math.random() * 100));
    }
  }
}

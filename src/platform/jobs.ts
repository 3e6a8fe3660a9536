/**
 * Background jobs on pg-boss 12. On the embedded database pg-boss reaches PGlite through its own
 * adapter (`fromPglite`); on PostgreSQL it runs its statements on a small pool of the engine's own
 * and keeps its tables in the schema `<DATABASE_SCHEMA>_boss` (`pgboss` without one), so every test
 * schema has its own queues. A job caused by a change is enqueued in the change's own transaction
 * (`send(..., { tx })`, or a write's `enqueue`: platform/write.ts): both commit or neither. A database
 * whose job tables pg-boss 10 made is upgraded at start (platform/jobs.upgrade.ts).
 *
 * Queues are declared with `define` (before or after `start`); a process that works (the service
 * by default, `cli worker`) polls each worked queue every `pollingIntervalSeconds` (2 s) on pg-boss's
 * own connection, never through the app's Prisma client.
 */
import { fromPglite, PgBoss, type Db, type Job, type Queue, type SendOptions as BossSendOptions, type WorkOptions } from "pg-boss";
import { guardedPool, type Database } from "../db/client.js";
import { hotStatementNames } from "../db/prepared-statements.js";
import type { Statement } from "../db/statement.js";
import type { Tx } from "../db/transaction.js";
import type { Logger } from "../lib/logger.js";
import { upgradeFromPgBoss10, upgradeOnPglite, upgradeOnPool } from "./jobs.upgrade.js";

type JobHandler<T> = (jobs: Job<T>[]) => Promise<unknown>;

export type JobSpec<T = unknown> = {
  name: string;
  /** queue options (policy, retries, expiry); an existing queue is updated to them at start, all but its policy (fixed once made) */
  queue?: Omit<Queue, "name" | "partition">;
  /** the worker: called with a batch of jobs; a throw fails (and retries) the batch */
  work?: JobHandler<T>;
  workOptions?: WorkOptions;
  /** a cron expression (UTC): pg-boss sends one job per tick across every instance; null removes it */
  schedule?: string | null;
  /** wake this process's worker as soon as a job is committed, not at its next poll (latency matters) */
  eager?: boolean;
  /**
   * Instead of `work`: one job at a time, up to `concurrency` of them in flight in this process, each
   * completed (or, when it throws, failed and retried) on its own. A slow job holds one slot, not a
   * whole batch, so it does not hold back the jobs behind it.
   */
  each?: {
    concurrency: number;
    run: (job: Job<T>) => Promise<unknown>;
    /**
     * Jobs waiting together (up to `size`) are first worked as one unit in one slot, with a fixed
     * cost per unit (a burst's check runs settled in one transaction); when that throws, each job
     * of the unit runs alone, so a failing job retries by itself.
     */
    together?: { size: number; run: (jobs: Job<T>[]) => Promise<unknown> };
  };
};

/** What a queue holds now: jobs due and waiting, jobs scheduled for later, how long the oldest due job has waited. */
export type QueueStats = { queue: string; due: number; scheduled: number; oldestDueSeconds: number };

export type EngineOptions = {
  /** how often expired jobs (a dead worker's) are failed into a retry, and the queues' counts refreshed @default 120 */
  maintenanceIntervalSeconds?: number;
  /** how often pg-boss looks for due schedules (1 to 45) @default 30 */
  cronCheckSeconds?: number;
};

export type SendOptions = Omit<BossSendOptions, "db"> & { tx?: Tx };

export type Jobs = ReturnType<typeof createJobs>;

/** A job to queue: `id` names it (a second job of that id is not queued), `startAfter` delays it. */
export type JobItem = { id?: string; data: object; startAfter?: Date; singletonKey?: string };

// pg-boss refuses a batch that names one id twice rather than queue it once
function onceEach(items: JobItem[]) {
  const ids = new Set<string>();
  return items.filter((item) => !item.id || (!ids.has(item.id) && !!ids.add(item.id)));
}

/** pg-boss's schema for an app schema: beside it, never inside it (Prisma owns that one). */
export const bossSchemaFor = (schema?: string) => (schema ? `${schema}_boss` : "pgboss");

/** Idle polling of one worked queue; pg-boss's minimum is 0.5 s. */
const POLLING_INTERVAL_SECONDS = 2;

export function createJobs(database: Pick<Database, "pglite" | "server">, logger: Logger, options: EngineOptions = {}) {
  const schema = database.pglite ? bossSchemaFor() : bossSchemaFor(database.server!.schema);
  // on PostgreSQL its own small pool, guarded as the app's is (db/client.ts guardedPool)
  const pool = database.pglite ? null : guardedPool({ connectionString: database.server!.url, max: 4, application_name: "onboarding-gateway jobs" });
  // its fetch and complete prepared once per connection (db/prepared-statements.ts); a text without
  // parameters goes as a simple query, where pg-boss may send several statements at once
  const named = hotStatementNames();
  // expired jobs (a dead process's) are failed into a retry by the supervisor's monitor pass
  const superviseSeconds = options.maintenanceIntervalSeconds ?? 120;
  const cronSeconds = options.cronCheckSeconds ?? 30;
  const boss = new PgBoss({
    ...(pool
      ? { db: { executeSql: (text: string, values?: unknown[]) => pool.query({ name: values?.length ? named(text) : undefined, text, values }) } }
      : { db: fromPglite(database.pglite!), backend: "pglite" as const }),
    schema,
    superviseIntervalSeconds: superviseSeconds,
    monitorIntervalSeconds: superviseSeconds,
    cronMonitorIntervalSeconds: cronSeconds,
    cronWorkerIntervalSeconds: Math.min(5, cronSeconds),
    // the flow resolver (job dependencies, which this service does not use) would poll every 5 s
    flowIntervalSeconds: 3600,
    // no row per process in pg-boss's instance table, refreshed every 30 s with the process's vitals
    // (an event-loop sampler included): the service's own metrics and logs say that
    registerInstance: false,
  });
  boss.on("error", (err: Error) => logger.error({ err: err.message }, "job engine error"));
  boss.on("warning", (warning: { message: string; data?: unknown }) => logger.warn({ data: warning.data }, `job engine: ${warning.message}`));
  const specs = new Map<string, JobSpec<never>>();
  let state: "new" | "started" | "stopped" = "new";
  let working = false;
  /** per worked queue: make this process fetch now */
  const wakers = new Map<string, () => void>();
  const pumps: ReturnType<typeof pumpQueue>[] = [];

  async function declare(spec: JobSpec<never>) {
    const { policy = "standard", ...changeable } = spec.queue ?? {};
    await retryOnDeadlock(async () => {
      await boss.createQueue(spec.name, spec.queue ?? {}); // made once; a queue that exists is left as it is
      if (Object.keys(changeable).length) await boss.updateQueue(spec.name, changeable);
    });
    const made = await boss.getQueue(spec.name);
    if (made && made.policy !== policy) logger.warn({ job: spec.name, policy: made.policy, wanted: policy }, "job queue keeps the policy it was made with");
    if (spec.schedule) await boss.schedule(spec.name, spec.schedule, {}, { tz: "UTC" });
    else if (spec.schedule === null) await boss.unschedule(spec.name);
    if (working && spec.work) {
      const work = spec.work;
      const id = await boss.work<never>(spec.name, { pollingIntervalSeconds: POLLING_INTERVAL_SECONDS, ...spec.workOptions }, (jobs) => work(jobs));
      wakers.set(spec.name, () => boss.notifyWorker(id));
    }
    if (working && spec.each) {
      const pump = pumpQueue(boss, spec.name, spec.each, spec.workOptions?.pollingIntervalSeconds ?? POLLING_INTERVAL_SECONDS, logger);
      pumps.push(pump);
      wakers.set(spec.name, pump.wake);
    }
  }

  /** pg-boss 10's tables, if this database still has them, brought to 12's (platform/jobs.upgrade.ts) */
  async function upgrade() {
    const carried = await upgradeFromPgBoss10(pool ? upgradeOnPool(pool) : upgradeOnPglite(database.pglite!), schema);
    if (carried) logger.info({ ...carried, schema }, "job tables upgraded from pg-boss 10: every job not yet finished carried over");
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
      await upgrade();
      await retryOnDeadlock(() => boss.start());
      state = "started";
      for (const spec of specs.values()) await declare(spec);
    },
    async stop() {
      if (state !== "started") {
        state = "stopped";
        await pool?.end();
        return;
      }
      state = "stopped";
      // a job in hand gets 10 s to finish; one still in hand after that runs again: a pump's after
      // its expiry, a pg-boss worker's after its retry delay (pg-boss fails it as it stops)
      await Promise.all(pumps.map((pump) => pump.stop(10_000)));
      await boss.stop({ graceful: true, timeout: 10_000 });
      await pool?.end();
    },
    /** Enqueues a job; with `tx` inside that Prisma transaction (it commits or rolls back with it). */
    async send<T extends object>(name: string, data: T, options: SendOptions = {}): Promise<string | null> {
      const { tx, ...rest } = options;
      return boss.send(name, data, tx ? { ...rest, db: transactionDb(tx) } : rest);
    },
    /** Enqueues many jobs in one statement (ids dedup: a job whose id exists, or came earlier in `items`, is not queued again). */
    async sendMany(name: string, items: JobItem[], options: { tx?: Tx } = {}) {
      if (!items.length) return;
      await boss.insert(name, onceEach(items), options.tx ? { db: transactionDb(options.tx) } : {});
    },
    /**
     * The statement `sendMany` would run, to be sent as part of a write's one statement
     * (db/statement.ts): pg-boss's own insert, its text and parameters taken as pg-boss hands them to
     * its database, so the queue's defaults and pg-boss's columns stay pg-boss's.
     */
    async insertStatement(name: string, items: JobItem[]): Promise<Statement | null> {
      if (!items.length) return null;
      let statement: Statement | null = null;
      const capture: Db = {
        executeSql: async (sql, params = []) => {
          statement = { sql, params };
          return { rows: [] };
        },
      };
      await boss.insert(name, onceEach(items), { db: capture });
      if (!statement) throw new Error(`pg-boss queued ${name} without a statement`);
      return statement;
    },
    /**
     * Per queue: jobs due, scheduled for later, and how long the oldest due job has waited. Only queued
     * rows are read (the condition is that of pg-boss's partial fetch index); completed jobs stay out of it.
     */
    async stats(): Promise<QueueStats[]> {
      if (state !== "started") return [];
      const { rows } = await boss.getDb().executeSql(
        `select name, count(*) filter (where start_after <= now()) as due, count(*) filter (where start_after > now()) as scheduled,
           coalesce(extract(epoch from now() - min(start_after) filter (where start_after <= now())), 0) as oldest
         from ${schema}.job where state < 'active' and not blocked group by name`,
        [],
      );
      return (rows as { name: string; due: string; scheduled: string; oldest: string }[]).map((r) => ({
        queue: r.name,
        due: Number(r.due),
        scheduled: Number(r.scheduled),
        oldestDueSeconds: Number(r.oldest),
      }));
    },
    /** The queues this process declared (their gauges read 0 when empty). */
    queues: () => [...specs.keys()],
    transactionDb,
    /** Wakes this process's worker of an eager queue now (a job was just committed), instead of at its next poll. */
    notify(name: string) {
      if (state === "started" && specs.get(name)?.eager) wakers.get(name)?.();
    },
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
function transactionDb(tx: Tx): Db {
  return {
    executeSql: async (text, values = []) => {
      const params = values.map((v: unknown) => (v === undefined ? null : v !== null && typeof v === "object" && !(v instanceof Date) ? JSON.stringify(v) : v));
      return { rows: await tx.$queryRawUnsafe<unknown[]>(text, ...params) };
    },
  };
}

/**
 * The `each` worker: fetches as many jobs as it has free slots (pg-boss's fetch: one worker per job
 * across instances), runs each on its own and completes or fails it; polls when idle, fetches again
 * as soon as a slot frees up or `wake` is called.
 */
function pumpQueue<T>(boss: PgBoss, name: string, each: NonNullable<JobSpec<T>["each"]>, pollSeconds: number, logger: Logger) {
  let inFlight = 0;
  let stopping = false;
  let fetching = false;
  let again = false;
  let timer: NodeJS.Timeout | null = null;
  const running = new Set<Promise<void>>();

  async function run(job: Job<T>) {
    try {
      await each.run(job);
      await boss.complete(name, job.id);
    } catch (error) {
      logger.warn({ err: (error as Error).message, job: name }, "job failed: it runs again after its retry delay");
      await boss.fail(name, job.id, { message: (error as Error).message }).catch(() => {});
    }
  }

  async function runUnit(jobs: Job<T>[]) {
    if (jobs.length > 1 && each.together) {
      try {
        await each.together.run(jobs);
        await boss.complete(
          name,
          jobs.map((job) => job.id),
        );
        return;
      } catch (error) {
        logger.warn({ err: (error as Error).message, job: name, jobs: jobs.length }, "jobs worked together failed: each runs alone");
      }
    }
    await Promise.all(jobs.map(run));
  }

  async function fetchMore() {
    if (stopping) return;
    if (fetching) {
      again = true;
      return;
    }
    fetching = true;
    if (timer) clearTimeout(timer);
    try {
      do {
        again = false;
        const room = each.concurrency - inFlight;
        if (room <= 0) break;
        const batchSize = each.together ? each.together.size : room;
        const jobs = await boss.fetch<T>(name, { batchSize }).catch((err: Error) => {
          logger.warn({ err: err.message, job: name }, "job fetch failed: tried again at the next poll");
          return [] as Job<T>[];
        });
        for (const unit of each.together ? (jobs.length ? [jobs] : []) : jobs.map((job) => [job])) {
          inFlight++;
          // the refill waits for the event loop's next turn: on PGlite a whole run resolves in
          // microtasks, and runs refilling each other at once starved every socket for seconds
          // (the restarted server of the SIGKILL fault test, working its check backlog)
          const done: Promise<void> = runUnit(unit).finally(() => {
            inFlight--;
            running.delete(done);
            if (inFlight === each.concurrency - 1) setImmediate(() => void fetchMore());
          });
          running.add(done);
        }
        if (jobs.length === batchSize) again = true; // there may be more waiting
      } while (again && !stopping);
    } finally {
      fetching = false;
      if (!stopping) timer = setTimeout(() => void fetchMore(), pollSeconds * 1000);
    }
  }

  void fetchMore();
  return {
    wake: () => void fetchMore(),
    async stop(graceMs: number) {
      stopping = true;
      if (timer) clearTimeout(timer);
      await Promise.race([Promise.all(running), new Promise((r) => setTimeout(r, graceMs).unref())]);
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

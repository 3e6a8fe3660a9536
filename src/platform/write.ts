/**
 * One write = the change and everything it causes, committed together. A service's write collects
 * what it causes as plain data (audit entries, events, jobs, rows nobody reads back such as queued
 * check runs); this module turns them into one statement of that same write (db/statement.ts): the
 * audit rows, the events as outbox rows (table `events`), each queue's jobs and a relay job as the
 * safety net. Nobody hears of a change that rolled back, and no committed event is lost. After
 * commit the outbox relay (platform/outbox.ts) hands the events to their consumers (subscriptions,
 * webhook deliveries) and the queues that got jobs are woken.
 *
 * Two shapes: `transact(actor, fn)`, a transaction in which the service reads and writes what it
 * needs, its effects one more statement before COMMIT; and `transact.oneStatement(actor, change)`,
 * for a change that is itself one statement (a sign-up): change and effects go as a single
 * statement, one round trip, atomic without BEGIN and COMMIT.
 *
 * Services receive a `Transact` (the request context's `transact`, a job's deps); they never build one.
 *
 * A request sent with an Idempotency-Key carries a write record (db/write-record.ts): each write
 * records its value in its own transaction, and a retry that runs the request again after a crash
 * is handed the values of the writes that had committed instead of making them twice.
 */
import { randomUUID } from "node:crypto";
import type { Db } from "../db/client.js";
import { freshRow, rowInserter } from "../db/insert-rows.js";
import { oneStatement, type Statement } from "../db/statement.js";
import { inTransaction, type Tx } from "../db/transaction.js";
import { writeRecordOf } from "../db/write-record.js";
import type { JobItem, Jobs } from "./jobs.js";
import type { Actor } from "../principal.js";
import { auditStatement, type AuditInput } from "./audit.js";
import type { Topics } from "./bus.js";
import { EVENT_RELAY_JOB, RELAY_DELAY_SECONDS, type Outbox } from "./outbox.js";

/** What a write causes, collected as it goes and written with it. */
export type Effects = {
  /** an audit entry of this write (field names only, never values) */
  audit(entry: AuditInput): void;
  auditMany(entries: AuditInput[]): void;
  /** an event, written with the change and relayed after commit */
  emit<K extends keyof Topics>(topic: K, ...args: Topics[K]): void;
  /** a job, queued with the change (it runs only if the change commits) */
  enqueue<T extends object>(name: string, data: T, options?: Omit<JobItem, "data">): void;
  /** several jobs of one queue */
  enqueueMany(name: string, items: JobItem[]): void;
  /** rows of this write that nobody reads back in it (an insert, e.g. queued check runs) */
  insert(statement: Statement | null): void;
  /**
   * the time what the write creates is stamped with: a sandbox client's clock may run ahead. A client's
   * own write follows its clock; a write for several clients names the client (`actor.clocks`).
   */
  now(clientId?: string | null): Date;
};

export type Write = Effects & { tx: Tx };

/** A change that is one statement with a RETURNING clause, and the answer made of the rows it returns. */
export type OneStatementChange<T> = { statement: Statement; answer(rows: Record<string, unknown>[]): T };

export type Transact = {
  <T>(actor: Actor, fn: (write: Write) => Promise<T>, options?: { timeout?: number }): Promise<T>;
  /** The change and its effects as one statement (no transaction is opened; nothing can be read in between). */
  oneStatement<T>(actor: Actor, change: (effects: Effects) => OneStatementChange<T>): Promise<T>;
};

/** What a service that reads before it writes is given: the database and the way to write. */
export type WriteDeps = { db: Db; transact: Transact };

// seq and tx_id are the database's own (their order is what catch-up pages by)
type EventRow = { id: string; createdAt: Date; type: string; clientId: string | null; data: object };
const insertEvents = rowInserter<EventRow>("events", {
  id: "id uuid",
  createdAt: "created_at timestamp(3)",
  clientId: "client_id uuid",
  type: "type text",
  data: "data jsonb",
});

/** A topic's arguments are `[event]` or `[clientId, event]` (platform/bus.ts Topics): the client id goes to its column. */
const eventRow = ([type, ...args]: unknown[], now: (clientId: string | null) => Date): EventRow => {
  const clientId = args.length === 2 ? (args[0] as string) : null;
  return { ...freshRow(now(clientId)), type: type as string, clientId, data: args.at(-1) as object };
};

/**
 * Writes for one process. `jobs`: where jobs are queued (a process without an engine may not enqueue;
 * its events wait for the relay job of a later write or the service's relay at start). `outbox`: the
 * relay run right after commit (a process without one leaves its events to the relay job).
 */
export function createTransact(db: Db, { jobs, outbox }: { jobs?: Jobs; outbox?: Outbox } = {}): Transact {
  const transact = async <T>(actor: Actor, fn: (write: Write) => Promise<T>, options?: { timeout?: number }) => {
    const record = writeRecordOf(actor);
    const replayed = record?.replay();
    if (replayed) return replayed.value as T;
    return inTransaction(
      db,
      async (tx, afterCommit) => {
        const effects = collectEffects(jobs, outbox, actor);
        const value = await fn({ tx, ...effects.collect });
        const parts = await effects.statements(actor);
        if (parts.length) {
          const { sql, params } = oneStatement(parts);
          await tx.$queryRawUnsafe(sql, ...params);
        }
        await record?.record(tx, value);
        afterCommit(effects.committed);
        return value;
      },
      options,
    );
  };
  return Object.assign(transact, {
    async oneStatement<T>(actor: Actor, change: (effects: Effects) => OneStatementChange<T>) {
      const record = writeRecordOf(actor);
      const replayed = record?.replay();
      if (replayed) return replayed.value as T;
      const effects = collectEffects(jobs, outbox, actor);
      const { statement, answer } = change(effects.collect);
      const whole = oneStatement(await effects.statements(actor), statement);
      // a recorded write needs a transaction: its value is known only once the statement answered
      const value = record
        ? await inTransaction(db, async (tx) => {
            const recorded = answer(await tx.$queryRawUnsafe<Record<string, unknown>[]>(whole.sql, ...whole.params));
            await record.record(tx, recorded);
            return recorded;
          })
        : answer(await db.$queryRawUnsafe<Record<string, unknown>[]>(whole.sql, ...whole.params));
      await effects.committed();
      return value;
    },
  });
}

/** One write's collector: its effects, as statements at the end, and what runs once they committed. */
function collectEffects(jobs: Jobs | undefined, outbox: Outbox | undefined, actor: Actor) {
  const own = actor.principal.kind === "client" ? (actor.principal.clockAheadMs ?? 0) : 0;
  const now = (clientId?: string | null) => new Date(Date.now() + (own || (clientId && actor.clocks?.get(clientId)) || 0));
  const audits: AuditInput[] = [];
  const events: EventRow[] = [];
  const inserts: Statement[] = [];
  const queued = new Map<string, JobItem[]>();
  const queue = (name: string, items: JobItem[]) => {
    if (!jobs) throw new Error(`job ${name} enqueued where no job engine runs`);
    const list = queued.get(name);
    if (list) list.push(...items);
    else queued.set(name, [...items]);
  };
  let relayJobId: string | null = null;
  const collect: Effects = {
    audit: (entry) => {
      audits.push(entry);
    },
    auditMany: (entries) => {
      audits.push(...entries);
    },
    emit: (topic, ...args) => {
      events.push(eventRow([topic, ...args], now));
    },
    enqueue: (name, data, options) => queue(name, [{ data, ...options }]),
    enqueueMany: queue,
    insert: (statement) => {
      if (statement) inserts.push(statement);
    },
    now,
  };
  return {
    collect,
    async statements(actor: Actor): Promise<Statement[]> {
      if (events.length && jobs) {
        relayJobId = randomUUID();
        queue(EVENT_RELAY_JOB, [{ id: relayJobId, data: {}, startAfter: new Date(Date.now() + RELAY_DELAY_SECONDS * 1000) }]);
      }
      const jobStatements = await Promise.all([...queued].map(([name, items]) => jobs!.insertStatement(name, items)));
      return [...inserts, auditStatement(actor, audits), insertEvents(events), ...jobStatements].filter((s): s is Statement => s !== null);
    },
    async committed() {
      // committed jobs start now where this process works them, not at the next poll
      for (const name of queued.keys()) jobs!.notify(name);
      // relayed here: the safety-net job has nothing left to do and goes
      if (events.length && outbox && (await outbox.relay(events)) && relayJobId) void jobs!.discard(EVENT_RELAY_JOB, relayJobId);
    },
  };
}

/**
 * One write = one transaction holding the change and everything it causes. A service's write
 * collects what it causes as plain data (audit entries, events, jobs); at the end of the transaction
 * this module turns them into rows of that same transaction: the audit entries in one statement, the
 * events as outbox rows (table `events`) in one, each queue's jobs in one, and a relay job as the
 * safety net. Nobody hears of a change that rolled back, and no committed event is lost. After
 * commit the outbox relay (events.relay.ts) hands the events to their consumers (subscriptions,
 * webhook deliveries) and the queues that got jobs are woken.
 *
 * Services receive a `Transact` (the request context's `transact`, a job's deps); they never build one.
 */
import type { Db } from "../../db/client.js";
import { inTransaction, type Tx } from "../../db/transaction.js";
import { freshRow, rowInserter } from "../../db/insert-rows.js";
import type { Jobs } from "../../jobs/jobs.engine.js";
import type { Actor } from "../../principal.js";
import { recordAudits, type AuditInput } from "../audit/audit.service.js";
import type { Topics } from "./events.pubsub.js";
import { EVENT_RELAY_JOB, RELAY_DELAY_SECONDS, type Outbox } from "./events.relay.js";

type JobItem = { data: object; singletonKey?: string; startAfter?: Date; id?: string };

export type Write = {
  tx: Tx;
  /** an audit entry of this write (written with it, values never, field names only) */
  audit(entry: AuditInput): void;
  auditMany(entries: AuditInput[]): void;
  /** an event, written with the change and relayed after commit */
  emit<K extends keyof Topics>(topic: K, ...args: Topics[K]): void;
  /** a job, queued with the change (it runs only if the change commits) */
  enqueue<T extends object>(name: string, data: T, options?: Omit<JobItem, "data">): void;
  /** several jobs of one queue */
  enqueueMany(name: string, items: JobItem[]): void;
};

export type Transact = <T>(actor: Actor, fn: (write: Write) => Promise<T>, options?: { timeout?: number }) => Promise<T>;

/** What a service that reads before it writes is given: the database and the way to write. */
export type WriteDeps = { db: Db; transact: Transact };

// seq and tx_id are the database's own (their order is what catch-up pages by)
type EventRow = { id: string; createdAt: Date; type: string; clientId: string | null; data: object };
const insertEvents = rowInserter<EventRow>("events", {
  id: "id uuid", createdAt: "created_at timestamp(3)", clientId: "client_id uuid", type: "type text", data: "data jsonb",
});

/** A topic's arguments are `[event]` or `[clientId, event]` (events.pubsub.ts Topics): the client id goes to its column. */
const eventRow = ([type, ...args]: unknown[]): EventRow => ({
  ...freshRow(), type: type as string, clientId: args.length === 2 ? (args[0] as string) : null, data: args.at(-1) as object,
});

/**
 * Writes for one process. `jobs`: where jobs are queued (a process without an engine may not enqueue;
 * its events wait for the relay job of a later write or the service's relay at start). `outbox`: the
 * relay run right after commit (a process without one leaves its events to the relay job).
 */
export function createTransact(db: Db, { jobs, outbox }: { jobs?: Jobs; outbox?: Outbox } = {}): Transact {
  return (actor, fn, options) => inTransaction(db, async (tx, afterCommit) => {
    const audits: AuditInput[] = [];
    const events: EventRow[] = [];
    const queued = new Map<string, JobItem[]>();
    const queue = (name: string, items: JobItem[]) => {
      if (!jobs) throw new Error(`job ${name} enqueued where no job engine runs`);
      const list = queued.get(name);
      if (list) list.push(...items);
      else queued.set(name, [...items]);
    };
    const value = await fn({
      tx,
      audit: (entry) => { audits.push(entry); },
      auditMany: (entries) => { audits.push(...entries); },
      emit: (topic, ...args) => { events.push(eventRow([topic, ...args])); },
      enqueue: (name, data, sendOptions) => queue(name, [{ data, ...sendOptions }]),
      enqueueMany: queue,
    });
    await recordAudits(tx, actor, audits);
    await insertEvents(tx, events);
    for (const [name, items] of queued) await jobs!.sendMany(name, items, { tx });
    const relayJob = events.length && jobs ? await jobs.send(EVENT_RELAY_JOB, {}, { tx, startAfter: RELAY_DELAY_SECONDS }) : null;
    afterCommit(async () => {
      // committed jobs start now where this process works them, not at the next poll
      for (const name of queued.keys()) jobs!.notify(name);
      // relayed here: the safety-net job has nothing left to do and goes
      if (events.length && outbox && (await outbox.relay(events)) && relayJob) void jobs!.discard(EVENT_RELAY_JOB, relayJob);
    });
    return value;
  }, options);
}

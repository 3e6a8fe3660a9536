/**
 * One write = one transaction holding the change, its audit row, its events and its jobs.
 * `emit` writes outbox rows (table `events`) in the transaction; right after commit this process
 * publishes them to the bus and stamps them (events.relay.ts), and a relay job enqueued in the same
 * transaction publishes whatever a crash left unstamped. Nobody hears of a change that rolled back,
 * and no committed event is lost. `enqueue` sends a pg-boss job in the transaction (jobs.engine.ts).
 * Public events also enqueue their webhook deliveries here (webhooks.dispatch.ts), woken after commit.
 */
import type { Db } from "./client.js";
import { freshRow, rowInserter } from "./insert-rows.js";
import { recordAudit, recordAudits, type Actor, type AuditInput } from "../domains/audit/audit.service.js";
import type { EventBus, Topics } from "../domains/events/events.pubsub.js";
import { EVENT_RELAY_JOB, outboxRows, publishEvents, sendRelayJob } from "../domains/events/events.relay.js";
import { jobsBoundTo, type Jobs, type SendOptions } from "../jobs/jobs.engine.js";
import { queueWebhookDeliveries, WEBHOOK_DELIVERY_JOB } from "../domains/webhooks/webhooks.dispatch.js";

export type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/** Who writes; a request also brings the event bus and the job engine (a CLI process has neither). */
export type Writer = Actor & { events?: EventBus; jobs?: Jobs };

export type Write = {
  tx: Tx;
  audit(entry: AuditInput): Promise<unknown>;
  /** several audit rows in one statement */
  auditMany(entries: AuditInput[]): Promise<unknown>;
  /** an event, written with the change and published after commit */
  emit<K extends keyof Topics>(topic: K, ...args: Topics[K]): void;
  /** a job, enqueued with the change (it runs only if the change commits) */
  enqueue<T extends object>(name: string, data: T, options?: Omit<SendOptions, "tx">): Promise<string | null>;
  /** several jobs of one queue, in one statement */
  enqueueMany(name: string, items: { data: object; singletonKey?: string }[]): Promise<void>;
};

// seq and tx_id are the database's own (their order is what catch-up pages by)
const insertEvents = rowInserter<ReturnType<typeof freshRow> & ReturnType<typeof outboxRows>[number]>("events", {
  id: "id uuid", createdAt: "created_at timestamp(3)", clientId: "client_id uuid", type: "type text", data: "data jsonb",
});

export async function withTransaction<T>(db: Db, writer: Writer, fn: (write: Write) => Promise<T>, options?: { timeout?: number }): Promise<T> {
  const emitted: unknown[][] = [];
  let eventIds: string[] = [];
  let relayJob: string | null = null;
  const queues = new Set<string>();
  const jobsFor = (name: string) => {
    if (!writer.jobs) throw new Error(`job ${name} enqueued where no job engine runs`);
    queues.add(name);
    return writer.jobs;
  };
  const result = await db.$transaction(async (tx) => {
    const value = await fn({
      tx,
      audit: (entry) => recordAudit(tx, writer, entry),
      auditMany: (entries) => recordAudits(tx, writer, entries),
      emit: (topic, ...args) => { emitted.push([topic, ...args]); },
      enqueue: (name, data, sendOptions) => jobsFor(name).send(name, data, { ...sendOptions, tx }),
      enqueueMany: (name, items) => jobsFor(name).sendMany(name, items, { tx }),
    });
    if (emitted.length) {
      const rows = outboxRows(emitted).map((row) => ({ ...freshRow(), ...row }));
      await insertEvents(tx, rows);
      eventIds = rows.map((e) => e.id);
      if (writer.jobs) relayJob = await sendRelayJob(writer.jobs, tx);
      // webhooks are owed whoever wrote: a writer without `jobs` (a job's own write) uses the app's engine
      if (await queueWebhookDeliveries(tx, writer.jobs ?? jobsBoundTo(db), rows)) queues.add(WEBHOOK_DELIVERY_JOB);
    }
    return value;
  }, options);
  // committed jobs (webhook deliveries among them) start now where this process works them, not at the next poll (2 s)
  for (const name of queues) (writer.jobs ?? jobsBoundTo(db))?.notify(name);
  // published here: the safety-net job has nothing to do and goes (on pg-boss's connection, not Prisma's)
  if (eventIds.length && writer.events && (await publishEvents(db, writer.events, eventIds)) && relayJob) void writer.jobs?.discard(EVENT_RELAY_JOB, relayJob);
  return result;
}

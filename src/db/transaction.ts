/**
 * One write = one transaction holding the change, its audit row, its events and its jobs.
 * `emit` writes outbox rows (table `events`) in the transaction; right after commit this process
 * publishes them to the bus and stamps them (events.relay.ts), and a relay job enqueued in the same
 * transaction publishes whatever a crash left unstamped. Nobody hears of a change that rolled back,
 * and no committed event is lost. `enqueue` sends a pg-boss job in the transaction (jobs.engine.ts).
 */
import type { Db } from "./client.js";
import { recordAudit, type Actor, type AuditInput } from "../domains/audit/audit.service.js";
import type { EventBus, Topics } from "../domains/events/events.pubsub.js";
import { EVENT_RELAY_JOB, outboxRows, publishEvents, sendRelayJob } from "../domains/events/events.relay.js";
import type { Jobs, SendOptions } from "../jobs/jobs.engine.js";

export type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/** Who writes; a request also brings the event bus and the job engine (a CLI process has neither). */
export type Writer = Actor & { events?: EventBus; jobs?: Jobs };

export type Write = {
  tx: Tx;
  audit(entry: AuditInput): Promise<unknown>;
  /** an event, written with the change and published after commit */
  emit<K extends keyof Topics>(topic: K, ...args: Topics[K]): void;
  /** a job, enqueued with the change (it runs only if the change commits) */
  enqueue<T extends object>(name: string, data: T, options?: Omit<SendOptions, "tx">): Promise<string | null>;
};

export async function withTransaction<T>(db: Db, writer: Writer, fn: (write: Write) => Promise<T>, options?: { timeout?: number }): Promise<T> {
  const emitted: unknown[][] = [];
  let eventIds: string[] = [];
  let relayJob: string | null = null;
  const result = await db.$transaction(async (tx) => {
    const value = await fn({
      tx,
      audit: (entry) => recordAudit(tx, writer, entry),
      emit: (topic, ...args) => { emitted.push([topic, ...args]); },
      enqueue: (name, data, sendOptions) => {
        if (!writer.jobs) throw new Error(`job ${name} enqueued where no job engine runs`);
        return writer.jobs.send(name, data, { ...sendOptions, tx });
      },
    });
    if (emitted.length) {
      eventIds = (await tx.event.createManyAndReturn({ data: outboxRows(emitted), select: { id: true } })).map((e) => e.id);
      if (writer.jobs) relayJob = await sendRelayJob(writer.jobs, tx);
    }
    return value;
  }, options);
  // published here: the safety-net job has nothing to do and goes (on pg-boss's connection, not Prisma's)
  if (eventIds.length && writer.events && (await publishEvents(db, writer.events, eventIds)) && relayJob) void writer.jobs?.discard(EVENT_RELAY_JOB, relayJob);
  return result;
}

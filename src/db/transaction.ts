/**
 * One write = one transaction holding the change, its audit row and its events. Events reach the
 * bus only after commit, so nobody hears of a change that rolled back. The events domain will make
 * `emit` write outbox rows inside the same transaction (SPEC 8); callers will not change.
 */
import type { Db } from "./client.js";
import { recordAudit, type Actor, type AuditInput } from "../domains/audit/audit.service.js";
import type { EventBus, Topics } from "../domains/events/events.pubsub.js";

export type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/** Who writes; a request also brings the event bus (the CLI has none). */
export type Writer = Actor & { events?: EventBus };

export type Write = {
  tx: Tx;
  audit(entry: AuditInput): Promise<unknown>;
  emit<K extends keyof Topics>(topic: K, ...args: Topics[K]): void;
};

export async function withTransaction<T>(db: Db, writer: Writer, fn: (write: Write) => Promise<T>, options?: { timeout?: number }): Promise<T> {
  const pending: (() => void)[] = [];
  const result = await db.$transaction((tx) => fn({
    tx,
    audit: (entry) => recordAudit(tx, writer, entry),
    emit: (topic, ...args) => { pending.push(() => (writer.events?.publish as (t: string, ...a: unknown[]) => void)?.(topic, ...args)); },
  }), options);
  for (const publish of pending) publish();
  return result;
}

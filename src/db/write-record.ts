/**
 * What a request sent with an Idempotency-Key has committed. Each of its writes records the value it
 * returns in the write's own transaction (the key's row, server/plugins/use-idempotency.ts), so the
 * record commits with the change or not at all. A retry after the process died between a commit and
 * the answer runs the request again with the record: each write already committed hands back its
 * recorded value instead of running twice, and the answer is made from them.
 */
import type { Tx } from "./transaction.js";

export type WriteRecord = {
  /** the next committed write's value when the request runs again after one; undefined: the write runs */
  replay(): { value: unknown } | undefined;
  /** records what the write returns, before its COMMIT; throws when another attempt has taken the key over */
  record(tx: Tx, value: unknown): Promise<void>;
};

const RECORD = Symbol("write record");

/** The record a writer carries (a request context the idempotency plugin extended), if any. */
export const writeRecordOf = (actor: object): WriteRecord | undefined => (actor as { [RECORD]?: WriteRecord })[RECORD];

/** What extends a request context with its record. */
export const carrying = (record: WriteRecord) => ({ [RECORD]: record });

/** `actor` with the record `from` carries: a write made for a request under an actor of its own is recorded too. */
export const keepingRecord = <A extends object>(from: object, actor: A): A => {
  const record = writeRecordOf(from);
  return record ? Object.assign(actor, carrying(record)) : actor;
};

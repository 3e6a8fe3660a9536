/** The audit trail: one row per write, written with the write (platform/write.ts), naming fields but never values. */
import type { Actor } from "../principal.js";
import { freshRow, rowInserter } from "../db/insert-rows.js";

export type AuditInput = { action: string; targetType: string; targetId: string; changedFields?: string[] };

const rowOf = (actor: Actor, entry: AuditInput) => ({
  ...freshRow(),
  clientId: actor.principal.clientId,
  // a reviewer acts as the named person their key belongs to
  actor:
    actor.principal.kind === "operator" ? "operator" : actor.principal.reviewer ? `reviewer:${actor.principal.reviewer.id}` : `key:${actor.principal.keyId}`,
  action: entry.action,
  targetType: entry.targetType,
  targetId: entry.targetId,
  requestId: actor.requestId ?? null,
  changedFields: entry.changedFields ?? [],
});

const insertAudits = rowInserter<ReturnType<typeof rowOf>>("audit_log", {
  id: "id uuid",
  createdAt: "created_at timestamp(3)",
  clientId: "client_id uuid",
  actor: "actor text",
  action: "action text",
  targetType: "target_type text",
  targetId: "target_id text",
  requestId: "request_id text",
  changedFields: "changed_fields text[]",
});

/** A write's entries as one statement (none: no statement). */
export function auditStatement(actor: Actor, entries: AuditInput[]) {
  return insertAudits(entries.map((entry) => rowOf(actor, entry)));
}

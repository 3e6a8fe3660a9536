/** The audit trail: one row per write, inside the write's own transaction, naming fields but never values. */
import type { Principal } from "../../context.js";
import type { Db } from "../../db/client.js";

type Tx = Pick<Db, "auditEntry">; // any transaction client: withTransaction (db/transaction.ts) is the usual caller

export type AuditInput = { action: string; targetType: string; targetId: string; changedFields?: string[] };
export type Actor = { principal: Principal; requestId?: string };

const rowOf = (actor: Actor, entry: AuditInput) => ({
  clientId: actor.principal.clientId,
  actor: actor.principal.keyId === "admin" ? "operator" : `key:${actor.principal.keyId}`,
  action: entry.action,
  targetType: entry.targetType,
  targetId: entry.targetId,
  requestId: actor.requestId ?? null,
  changedFields: entry.changedFields ?? [],
});

export function recordAudit(tx: Tx, actor: Actor, entry: AuditInput) {
  return tx.auditEntry.create({ data: rowOf(actor, entry) });
}

/** Several entries of one write in one statement. */
export function recordAudits(tx: Tx, actor: Actor, entries: AuditInput[]) {
  return tx.auditEntry.createMany({ data: entries.map((entry) => rowOf(actor, entry)) });
}

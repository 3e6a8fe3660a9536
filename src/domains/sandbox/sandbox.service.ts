/**
 * The sandbox's own operations, for SANDBOX keys only (a LIVE key gets 404, as if they did not
 * exist): a check's result as an upstream provider would post it, an upstream monitoring alert, and
 * a reset that deletes the client's data so a test suite starts clean.
 */
import type { RequestContext } from "../../context.js";
import { tenantOf } from "../../context.js";
import { DomainError, invalid } from "../../lib/errors.js";
import { recordCheckResult, type PostedResult } from "../checks/checks.service.js";
import { recordCompletedRun } from "../checks/checks.engine.js";
import { getUser } from "../users/users.service.js";

/** The sandbox client the caller is; anything else finds no sandbox here. */
function sandboxClient(ctx: RequestContext): string {
  if (ctx.principal.kind !== "client" || ctx.principal.mode !== "SANDBOX") throw new DomainError("NOT_FOUND", "The sandbox exists for sandbox keys only.");
  return ctx.principal.clientId;
}

/** A check's result as its upstream provider would post it: the same events, webhooks and moves of the user. */
export function simulateCheckResult(ctx: RequestContext, posted: Omit<PostedResult, "decidedBy">) {
  sandboxClient(ctx);
  return recordCheckResult(ctx, { ...posted, decidedBy: "PROVIDER" });
}

export type RaisedAlert = { userId: string; status?: "CONSIDER" | "REJECTED" | null; reasons?: readonly string[] | null };

/**
 * An upstream monitoring alert on a user, as a transaction-monitoring system would raise it: a run of
 * its own, decided by the provider; it stays open in later monitoring runs until a CLEAR result or a
 * reviewer's decision closes it.
 */
export async function raiseAlert(ctx: RequestContext, alert: RaisedAlert) {
  const clientId = sandboxClient(ctx);
  await getUser(ctx, alert.userId, { select: { id: true } });
  const reasons = [...(alert.reasons?.length ? alert.reasons : ["sandbox_alert"])];
  if (reasons.length > 50 || reasons.some((r) => r.length > 200))
    throw invalid([{ field: "reasons", code: "too_long", message: "reasons: at most 50, each at most 200 characters." }]);
  const status = alert.status ?? "CONSIDER";
  return ctx.transact(ctx, (write) =>
    recordCompletedRun(write, {
      clientId,
      userId: alert.userId,
      type: "TRANSACTION_MONITORING",
      trigger: "PROVIDER_UPDATE",
      decidedBy: "PROVIDER",
      outcome: { status, score: status === "REJECTED" ? 1 : 0.7, reasons, matches: [], provider: "upstream" },
    }),
  );
}

/** Deleted in this order (what refers to a row goes before it), all of the client's. */
const RESET = [
  `delete from cards where client_id = $1::uuid`,
  `delete from wallets where client_id = $1::uuid`,
  `delete from document_blobs where key in (select storage_key from documents where client_id = $1::uuid)`,
  `delete from documents where client_id = $1::uuid`,
  `delete from otp_codes where client_id = $1::uuid`,
  `delete from sandbox_messages where client_id = $1::uuid`,
  // check runs, reviews and their hits go with their users
  `delete from users where client_id = $1::uuid`,
  `delete from events where client_id = $1::uuid`,
  `delete from idempotency_keys where client_id = $1::uuid`,
];

/**
 * Deletes the sandbox client's users and all they hold (documents and their bytes, check runs,
 * reviews, wallets, codes, sandbox messages) and its events, in one transaction. Its keys, reviewers,
 * webhook endpoints and the audit trail stay: configuration and the record of what was done.
 */
export async function resetSandbox(ctx: RequestContext) {
  const clientId = sandboxClient(ctx);
  const users = await ctx.transact(ctx, async (write) => {
    const count = await write.tx.user.count({ where: { clientId: tenantOf(ctx) } });
    for (const statement of RESET) await write.tx.$executeRawUnsafe(statement, clientId);
    write.audit({ action: "sandbox.reset", targetType: "api_client", targetId: clientId });
    return count;
  });
  await ctx.documentStore.sweep(); // document files no row refers to any more
  return { deletedUsers: users };
}

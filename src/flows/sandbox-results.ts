/**
 * The sandbox's stand-ins for upstream systems: a check's result as its provider would post it, and a
 * transaction-monitoring alert as a monitoring system would raise it. Each has the same events,
 * webhooks and moves of the user as the real one: a run recorded and its user settled, in one write.
 */
import type { RequestContext } from "../context.js";
import { invalid } from "../lib/errors.js";
import { reasonsErrors } from "../domains/checks/checks.rules.js";
import type { PostedResult } from "../domains/checks/checks.service.js";
import { sandboxClient } from "../domains/sandbox/sandbox.service.js";
import { getUser } from "../domains/users/users.service.js";
import { recordCheckResult } from "./post-check-result.js";
import { recordCompletedRun } from "./settle-users.js";

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
  const errors = reasonsErrors(reasons);
  if (errors.length) throw invalid(errors);
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

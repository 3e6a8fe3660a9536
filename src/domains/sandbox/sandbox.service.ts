/**
 * The sandbox's own operations, for SANDBOX keys only (a LIVE key gets 404, as if they did not
 * exist): a check's result as an upstream provider would post it, an upstream monitoring alert, a
 * reset that deletes the client's data so a test suite starts clean, and a clock of the client's own
 * that can be moved ahead.
 */
import type { RequestContext } from "../../context.js";
import { tenantOf } from "../../context.js";
import { DomainError, invalid } from "../../lib/errors.js";
import { recordCheckResult, type PostedResult } from "../checks/checks.service.js";
import { enqueueChecks } from "../checks/checks.store.js";
import { recordCompletedRun } from "../../flows/settle-users.js";
import { runPeriodicChecks } from "../checks/checks.periodic.js";
import { announceKeyChange } from "../clients/clients.service.js";
import { getUser } from "../users/users.service.js";
import { reasonsErrors } from "../checks/checks.rules.js";

/** The sandbox client the caller is; anything else finds no sandbox here. */
export function sandboxClient(ctx: RequestContext): string {
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

/** The furthest a sandbox clock may run ahead: ten years of a customer's lifecycle. */
const MAX_AHEAD_SECONDS = 3650 * 86_400;

/** The client's sandbox clock: its time and how far it runs ahead of the real one. */
export async function sandboxClock(ctx: RequestContext) {
  const clientId = sandboxClient(ctx);
  const clock = await ctx.db.sandboxClock.findUnique({ where: { clientId } });
  return clockView(clock?.offsetSeconds ?? 0, clock?.updatedAt ?? null);
}

const clockView = (offsetSeconds: number, movedAt: Date | null) => ({ now: new Date(Date.now() + offsetSeconds * 1000), offsetSeconds, movedAt });

const dayOf = (at: Date) => new Date(at.toISOString().slice(0, 10));

export type Advance = { days?: number | null; hours?: number | null };

function advanceSeconds({ days, hours }: Advance) {
  const errors = (["days", "hours"] as const).flatMap((field) => {
    const value = field === "days" ? days : hours;
    return value != null && !(Number.isInteger(value) && value >= 0)
      ? [{ field, code: "invalid", message: `${field} must be a whole number, 0 or more.` }]
      : [];
  });
  const seconds = ((days ?? 0) * 24 + (hours ?? 0)) * 3600;
  if (!errors.length && seconds <= 0) errors.push({ field: "days", code: "required", message: "Advance by days, hours or both (more than 0 in all)." });
  if (errors.length) throw invalid(errors);
  return seconds;
}

/**
 * Moves the client's clock ahead and runs, at once and for its objects alone, what that much time
 * causes: documents expiring in between are expired (their users' KYC runs again, a document.changed
 * event each), OTP codes past their expiry stop working (they are judged by the client's time), and
 * the periodic re-screening of its users that falls due by then is queued and run. Other clients and
 * LIVE keep the real time.
 */
export async function advanceClock(ctx: RequestContext, advance: Advance) {
  const clientId = sandboxClient(ctx);
  const seconds = advanceSeconds(advance);
  const before = (await ctx.db.sandboxClock.findUnique({ where: { clientId } }))?.offsetSeconds ?? 0;
  const offsetSeconds = before + seconds;
  if (offsetSeconds > MAX_AHEAD_SECONDS)
    throw invalid([{ field: "days", code: "out_of_range", message: `The sandbox clock runs at most ${MAX_AHEAD_SECONDS / 86_400} days ahead.` }]);
  // what the move causes happens at the new time: its events and runs carry it
  const movedActor = { ...ctx, principal: { ...ctx.principal, clockAheadMs: offsetSeconds * 1000 } };
  const moved = await ctx.transact(movedActor, async (write) => {
    // the clock must still read what it read before: two moves at once never apply on one reading
    const { count } = await write.tx.sandboxClock.updateMany({ where: { clientId, offsetSeconds: before }, data: { offsetSeconds } });
    if (!count && before) throw new DomainError("CONFLICT", "The sandbox clock moved while this advance ran: read it again and retry.");
    const clock = count
      ? await write.tx.sandboxClock.findUniqueOrThrow({ where: { clientId } })
      : await write.tx.sandboxClock.create({ data: { clientId, offsetSeconds } }).catch(() => {
          throw new DomainError("CONFLICT", "The sandbox clock moved while this advance ran: read it again and retry.");
        });
    const [from, to] = [before, offsetSeconds].map((s) => new Date(Date.now() + s * 1000)) as [Date, Date];
    // valid through its expiry date: expired from the next day
    const expiring = await write.tx.document.findMany({
      where: { clientId, status: "ACTIVE", expiryDate: { gte: dayOf(from), lt: dayOf(to) } },
      select: { id: true, userId: true },
    });
    for (const doc of expiring) write.emit("document.changed", clientId, { documentId: doc.id, userId: doc.userId, change: "expired" });
    for (const userId of new Set(expiring.map((d) => d.userId))) await enqueueChecks(write, { clientId, userId }, ["KYC"], "DOCUMENT_CHANGED", to);
    write.audit({ action: "sandbox.clock_advanced", targetType: "api_client", targetId: clientId, changedFields: ["offsetSeconds"] });
    return { clock, to, expired: expiring.length };
  });
  announceKeyChange(ctx, clientId); // every instance drops the keys it holds with the old clock
  const { due } = await runPeriodicChecks(ctx, moved.to, { clientId });
  return { ...clockView(moved.clock.offsetSeconds, moved.clock.updatedAt), documentsExpired: moved.expired, rescreened: due };
}

/** Back to real time (objects already stamped ahead stay so). */
export async function resetClock(ctx: RequestContext) {
  const clientId = sandboxClient(ctx);
  await ctx.transact(ctx, async (write) => {
    await write.tx.sandboxClock.deleteMany({ where: { clientId } });
    write.audit({ action: "sandbox.clock_reset", targetType: "api_client", targetId: clientId, changedFields: ["offsetSeconds"] });
  });
  announceKeyChange(ctx, clientId);
  return clockView(0, null);
}

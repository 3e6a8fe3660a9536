/**
 * The sandbox clock moved ahead or back to real time: the clock (sandbox), and what that much time
 * causes for the client's objects alone (documents expiring, their users' KYC, the periodic
 * re-screening falling due), and every instance told to drop the keys it holds with the old clock.
 */
import type { RequestContext } from "../context.js";
import { DomainError, invalid } from "../lib/errors.js";
import { enqueueChecks } from "../domains/checks/checks.store.js";
import { runPeriodicChecks } from "../domains/checks/checks.periodic.js";
import { announceKeyChange } from "../domains/clients/clients.service.js";
import { advanceSeconds, type Advance, clockView, dayOf, MAX_AHEAD_SECONDS, sandboxClient } from "../domains/sandbox/sandbox.service.js";

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

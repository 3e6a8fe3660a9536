/**
 * The sandbox, for SANDBOX keys only (a LIVE key gets 404, as if it did not exist): who may use it
 * and the client's clock as it reads. What the sandbox does to other modules' data (a simulated
 * result, an alert, a reset, the clock moved ahead or back) is a flow each: src/flows/sandbox-*.ts.
 */
import type { RequestContext } from "../../context.js";
import { DomainError, invalid } from "../../lib/errors.js";

/** The sandbox client the caller is; anything else finds no sandbox here. */
export function sandboxClient(ctx: RequestContext): string {
  if (ctx.principal.kind !== "client" || ctx.principal.mode !== "SANDBOX") throw new DomainError("NOT_FOUND", "The sandbox exists for sandbox keys only.");
  return ctx.principal.clientId;
}

/** The furthest a sandbox clock may run ahead: ten years of a customer's lifecycle. */
export const MAX_AHEAD_SECONDS = 3650 * 86_400;

/** The client's sandbox clock: its time and how far it runs ahead of the real one. */
export async function sandboxClock(ctx: RequestContext) {
  const clientId = sandboxClient(ctx);
  const clock = await ctx.db.sandboxClock.findUnique({ where: { clientId } });
  return clockView(clock?.offsetSeconds ?? 0, clock?.updatedAt ?? null);
}

export const clockView = (offsetSeconds: number, movedAt: Date | null) => ({ now: new Date(Date.now() + offsetSeconds * 1000), offsetSeconds, movedAt });

export const dayOf = (at: Date) => new Date(at.toISOString().slice(0, 10));

export type Advance = { days?: number | null; hours?: number | null };

export function advanceSeconds({ days, hours }: Advance) {
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

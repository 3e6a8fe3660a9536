/**
 * Catch-up over the outbox (SPEC 8): a client's events after a given one, oldest first, in the
 * envelope webhooks and REST send: `{id, type, created_at, data: {user_id, …}}`. Only the caller's
 * client's events of the public types are listed (cache-invalidation events have no client).
 */
import type { RequestContext } from "../../context.js";
import { tenantOf } from "../../context.js";
import { isUuid } from "../../lib/ids.js";
import { invalid } from "../../lib/errors.js";
import { toSnake } from "../../lib/case.js";

/** What a consumer may hear of (SPEC 8); the checks engine adds the check.* ones as it emits them. */
export const PUBLIC_EVENT_TYPES = [
  "user.status.updated", "user.risk_level.updated",
  "check.kyc.updated", "check.sanctions_screening.updated", "check.transaction_monitoring.updated",
] as const;

export type EventEnvelope = { id: string; type: string; createdAt: Date; data: Record<string, unknown> };

/** The event's own fields in REST's names: `{userId, status}` → `{user_id, status}` (top level only). */
export const envelopeData = (data: unknown) =>
  Object.fromEntries(Object.entries((data ?? {}) as Record<string, unknown>).map(([k, v]) => [toSnake(k), v]));

export async function listEvents(ctx: RequestContext, args: { after?: string | null; types?: readonly string[] | null; first?: number | null }) {
  const clientId = tenantOf(ctx);
  const first = args.first ?? 10;
  if (first < 0 || first > 100) throw invalid([{ field: "first", code: "out_of_range", message: "first must be from 0 to 100." }]);
  const unknown = (args.types ?? []).filter((t) => !(PUBLIC_EVENT_TYPES as readonly string[]).includes(t));
  if (unknown.length) throw invalid([{ field: "types", code: "invalid", message: `types must be among ${PUBLIC_EVENT_TYPES.join(", ")}.` }]);
  let afterSeq: bigint | undefined;
  if (args.after != null) {
    const from = isUuid(args.after) ? await ctx.db.event.findFirst({ where: { id: args.after, clientId }, select: { seq: true } }) : null;
    if (!from) throw invalid([{ field: "after", code: "invalid", message: "after must be the id of one of your events." }]);
    afterSeq = from.seq;
  }
  const where = { clientId, type: { in: args.types?.length ? [...args.types] : [...PUBLIC_EVENT_TYPES] }, ...(afterSeq !== undefined ? { seq: { gt: afterSeq } } : {}) };
  const [rows, totalCount] = await Promise.all([
    ctx.db.event.findMany({ where, orderBy: { seq: "asc" }, take: first + 1, select: { id: true, type: true, createdAt: true, data: true } }),
    ctx.db.event.count({ where }),
  ]);
  const page: EventEnvelope[] = rows.slice(0, first).map((r) => ({ id: r.id, type: r.type, createdAt: r.createdAt, data: envelopeData(r.data) }));
  return { page, hasNextPage: rows.length > first, totalCount };
}

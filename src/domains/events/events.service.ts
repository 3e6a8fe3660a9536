/**
 * Catch-up over the outbox: a client's events after a given one, oldest first, in the
 * envelope webhooks and REST send: `{id, type, created_at, data: {user_id, …}}`. Only the caller's
 * client's events of the public types are listed (cache-invalidation events have no client).
 */
import type { RequestContext } from "../../context.js";
import { tenantOf } from "../../context.js";
import { isUuid } from "../../lib/ids.js";
import { invalid } from "../../lib/errors.js";
import { toSnake } from "../../lib/case.js";
import { PUBLIC_EVENT_TYPES } from "../../kernel/event-types.js";

export type EventEnvelope = { id: string; type: string; createdAt: Date; data: Record<string, unknown> };

/** The event's own fields in REST's names: `{userId, status}` → `{user_id, status}` (top level only). */
export const envelopeData = (data: unknown) => Object.fromEntries(Object.entries((data ?? {}) as Record<string, unknown>).map(([k, v]) => [toSnake(k), v]));

/**
 * Oldest first, in the order transactions became visible: only events of transactions older than
 * every one still running are listed (the snapshot's xmin), ordered by (transaction, seq). A cursor
 * therefore never passes an event whose transaction commits later, as paging by seq alone would
 * (seq is taken at insert, not at commit). A long transaction holds the list back while it runs.
 */
export async function listEvents(ctx: RequestContext, args: { after?: string | null; types?: readonly string[] | null; first?: number | null }) {
  const clientId = tenantOf(ctx);
  const first = args.first ?? 10;
  if (first < 0 || first > 100) throw invalid([{ field: "first", code: "out_of_range", message: "first must be from 0 to 100." }]);
  const unknown = (args.types ?? []).filter((t) => !(PUBLIC_EVENT_TYPES as readonly string[]).includes(t));
  if (unknown.length) throw invalid([{ field: "types", code: "invalid", message: `types must be among ${PUBLIC_EVENT_TYPES.join(", ")}.` }]);
  let cursor: { tx: string; seq: bigint } | null = null;
  if (args.after != null) {
    const [from] = isUuid(args.after)
      ? await ctx.db.$queryRawUnsafe<{ tx: string; seq: bigint }[]>(
          `select tx_id::text as tx, seq from events where id = $1::uuid and client_id = $2::uuid`,
          args.after,
          clientId,
        )
      : [];
    if (!from) throw invalid([{ field: "after", code: "invalid", message: "after must be the id of one of your events." }]);
    cursor = from;
  }
  const types = args.types?.length ? [...args.types] : [...PUBLIC_EVENT_TYPES];
  const where = `client_id = $1::uuid and type = any($2::text[]) and tx_id < pg_snapshot_xmin(pg_current_snapshot())
    and ($3::xid8 is null or (tx_id, seq) > ($3::xid8, $4::bigint))`;
  const params = [clientId, types, cursor?.tx ?? null, cursor?.seq ?? 0n];
  const [rows, [{ n }]] = await Promise.all([
    ctx.db.$queryRawUnsafe<{ id: string; type: string; created_at: Date; data: unknown }[]>(
      `select id::text, type, created_at, data from events where ${where} order by tx_id, seq limit $5`,
      ...params,
      first + 1,
    ),
    ctx.db.$queryRawUnsafe<{ n: number }[]>(`select count(*)::int as n from events where ${where}`, ...params),
  ]);
  const page: EventEnvelope[] = rows.slice(0, first).map((r) => ({ id: r.id, type: r.type, createdAt: new Date(r.created_at), data: envelopeData(r.data) }));
  return { page, hasNextPage: rows.length > first, totalCount: n };
}

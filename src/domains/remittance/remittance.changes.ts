/**
 * The corridor change feed: what a reference write changed in a corridor (its limits, status or
 * other facts, or a version of its requirements), as `reference.corridor.updated` events with an
 * RFC 6902 JSON Patch from the old answer to the new and the time the change takes effect. Every
 * client gets the event (reference data is everyone's): by webhook, subscription and GET /v2/events.
 *
 * A write reads the corridors it touches before and after (`corridorStates`), inside its own
 * transaction, and `corridorChanges` compares the two.
 */
import { createPatch, type Operation } from "rfc6902";
import type { Tx } from "../../db/transaction.js";

/** A corridor's facts as a caller reads them (REST names), and its requirement versions by number ({effective_at, source, …spec}). */
type CorridorState = { facts: Record<string, unknown>; versions: Map<number, { effective_at: string; source: string }> };

export type CorridorChange = {
  corridorId: string;
  /** `corridor`: its limits, status or other facts; `requirements`: a version of its requirements */
  change: "corridor" | "requirements";
  /** the requirement version changed or added (null for a corridor change) */
  version: number | null;
  /** the version the new one is compared with: the same number before, else the one it follows */
  previousVersion: number | null;
  /** when the change applies to payouts: the version's effective_at, or now for a corridor change */
  effectiveAt: string;
  /** RFC 6902 operations from the old document to the new; the old is `{}` for something new */
  diff: Operation[];
};

export async function corridorStates(tx: Tx, ids: readonly string[]): Promise<Map<string, CorridorState>> {
  if (!ids.length) return new Map();
  const corridors = await tx.corridor.findMany({ where: { id: { in: [...new Set(ids)] } }, include: { requirements: true } });
  return new Map(
    corridors.map((c) => [
      c.id,
      {
        facts: {
          receiving_country: c.receivingCountry,
          receiving_currency: c.receivingCurrency,
          receiving_institution_type: c.receivingInstitutionType,
          min_amount: Number(c.minAmount),
          max_amount: Number(c.maxAmount),
          delivery_estimate: { min_hours: c.deliveryMinHours, max_hours: c.deliveryMaxHours, description: c.deliveryDescription },
          required_fields: c.requiredFields,
          user_types: c.userTypes,
          status: c.status,
        },
        versions: new Map(c.requirements.map((r) => [r.version, { effective_at: r.effectiveAt.toISOString(), source: r.source, ...(r.spec as object) }])),
      },
    ]),
  );
}

/** The changes from `before` to `after`, corridor by corridor: one for its facts, one per requirement version. */
export function corridorChanges(before: Map<string, CorridorState>, after: Map<string, CorridorState>, now: Date): CorridorChange[] {
  const changes: CorridorChange[] = [];
  for (const [corridorId, state] of after) {
    const old = before.get(corridorId);
    const facts = createPatch(old?.facts ?? {}, state.facts);
    if (facts.length) changes.push({ corridorId, change: "corridor", version: null, previousVersion: null, effectiveAt: now.toISOString(), diff: facts });
    for (const [version, doc] of [...state.versions].sort(([a], [b]) => a - b)) {
      const same = old?.versions.get(version);
      // a new version is compared with the highest one below it, as a caller moves from one to the next
      const previous = same ? version : (Math.max(...[...state.versions.keys()].filter((v) => v < version)) as number);
      const from = same ?? (Number.isFinite(previous) ? state.versions.get(previous) : undefined);
      const diff = createPatch(from ?? {}, doc);
      if (diff.length)
        changes.push({ corridorId, change: "requirements", version, previousVersion: from ? previous : null, effectiveAt: doc.effective_at, diff });
    }
  }
  return changes;
}

/** Each change for every client (`announce` emits reference.corridor.updated: this file stays below the events domain). */
export async function announceCorridorChanges(tx: Tx, announce: (clientId: string, change: CorridorChange) => void, changes: readonly CorridorChange[]) {
  if (!changes.length) return;
  const clients = await tx.apiClient.findMany({ select: { id: true } });
  for (const change of changes) for (const client of clients) announce(client.id, change);
}

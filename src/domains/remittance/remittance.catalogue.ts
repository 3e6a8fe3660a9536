/**
 * One in-memory copy of the payout catalogue per process (corridors, their requirement versions,
 * institutions and branches). Any reference change heard on the event bus (Redis across instances)
 * drops the copy at once; the next request reads it again. A change the bus cannot carry (a CLI
 * import on PostgreSQL without Redis) is picked up when the copy is older than MAX_AGE_MS.
 */
import type { Db } from "../../db/client.js";
import type { EventBus } from "../events/events.pubsub.js";
import { catalogueIndexOf, type CatalogueIndex } from "./requirements/requirements.catalogue.js";
import { checkRequirementRow } from "./requirements/requirements.rules.js";
import type { CorridorFacts, RequirementRow } from "./requirements/requirements.spec.js";
import type { InstitutionType } from "./remittance.rules.js";

const MAX_AGE_MS = 60_000;

export type Catalogue = {
  corridors: Map<string, CorridorFacts>;
  /** each corridor's versions, lowest first */
  requirements: Map<string, RequirementRow[]>;
  index: CatalogueIndex;
  loadedAt: number;
};

async function loadCatalogue(db: Db): Promise<Catalogue> {
  const [corridors, rows, institutions, branches] = await Promise.all([
    db.corridor.findMany({
      select: { id: true, receivingCountry: true, receivingCurrency: true, receivingInstitutionType: true, minAmount: true, maxAmount: true, status: true },
    }),
    db.corridorRequirement.findMany({ orderBy: [{ corridorId: "asc" }, { version: "asc" }] }),
    db.receivingInstitution.findMany(),
    db.branch.findMany({ select: { id: true, institutionId: true, name: true, code: true, city: true, address: true } }),
  ]);
  const requirements = new Map<string, RequirementRow[]>();
  for (const row of rows) {
    // stored rows passed these checks when imported; checked again, the spec comes back typed
    const checked = checkRequirementRow(
      { ...(row.spec as object), corridor_id: row.corridorId, version: row.version, effective_at: row.effectiveAt.toISOString(), source: row.source },
      (f) => f,
      [],
    );
    if (checked) requirements.set(row.corridorId, [...(requirements.get(row.corridorId) ?? []), checked]);
  }
  return {
    corridors: new Map(corridors.map((c) => [c.id, { ...c, minAmount: Number(c.minAmount), maxAmount: Number(c.maxAmount) }])),
    requirements,
    index: catalogueIndexOf(
      institutions.map((i) => ({ ...i, country: i.countryCode, type: i.type as InstitutionType })),
      branches,
    ),
    loadedAt: Date.now(),
  };
}

/** The catalogue copy of one process, dropped on every reference change. */
export function createPayoutCatalogue(db: Db, events: EventBus) {
  let current: Promise<Catalogue> | null = null;
  const changes = events.subscribe("reference.updated");
  void (async () => {
    for await (const _ of changes) current = null;
  })();
  return {
    async read(): Promise<Catalogue> {
      const attempt = (current ??= loadCatalogue(db));
      try {
        const catalogue = await attempt;
        if (Date.now() - catalogue.loadedAt > MAX_AGE_MS && current === attempt) current = null;
        return catalogue;
      } catch (error) {
        if (current === attempt) current = null;
        throw error;
      }
    },
    async stop() {
      await changes.return?.();
    },
  };
}
export type PayoutCatalogue = ReturnType<typeof createPayoutCatalogue>;

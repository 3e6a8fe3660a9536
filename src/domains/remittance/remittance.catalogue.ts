/**
 * One in-memory copy of the payout catalogue per process (corridors, their requirement versions,
 * institutions and branches). Any reference change heard on the event bus (Redis across instances)
 * drops the copy at once; the next request reads it again. A change the bus cannot carry (a CLI
 * import on PostgreSQL without Redis) is picked up when the copy is older than MAX_AGE_MS.
 */
import type { Db } from "../../db/client.js";
import type { EventBus } from "../../platform/bus.js";
import { catalogueIndexOf, type CatalogueIndex } from "./requirements/requirements.catalogue.js";
import type { JsonSchema } from "./requirements/requirements.json-schema.js";
import type { CorridorFacts, RequirementRow, RequirementSpec } from "./requirements/requirements.spec.js";
import type { InstitutionType } from "./remittance.rules.js";

const MAX_AGE_MS = 60_000;
/** answers built per (version, payout method, amount): amounts vary freely, so the memo is bounded */
const MAX_SCHEMAS = 1000;

export type Catalogue = {
  corridors: Map<string, CorridorFacts>;
  /** each corridor's versions, lowest first */
  requirements: Map<string, RequirementRow[]>;
  index: CatalogueIndex;
  /** a requirements answer built once per copy: it changes only when the copy is dropped */
  schemaOf(key: string, build: () => JsonSchema): JsonSchema;
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
    // stored as the import's checks left it (remittance.import.ts): not checked again at each reload
    const typed = { corridorId: row.corridorId, version: row.version, effectiveAt: row.effectiveAt, source: row.source, spec: row.spec as RequirementSpec };
    requirements.set(row.corridorId, [...(requirements.get(row.corridorId) ?? []), typed]);
  }
  const schemas = new Map<string, JsonSchema>();
  return {
    corridors: new Map(corridors.map((c) => [c.id, { ...c, minAmount: Number(c.minAmount), maxAmount: Number(c.maxAmount) }])),
    requirements,
    index: catalogueIndexOf(
      institutions.map((i) => ({ ...i, country: i.countryCode, type: i.type as InstitutionType })),
      branches,
    ),
    schemaOf(key, build) {
      let schema = schemas.get(key);
      if (!schema) {
        schema = build();
        if (schemas.size >= MAX_SCHEMAS) schemas.delete(schemas.keys().next().value!);
        schemas.set(key, schema);
      }
      return schema;
    },
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

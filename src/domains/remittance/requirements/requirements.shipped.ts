/**
 * The shipped catalogue read straight from data/remittance/*.json, without a database: the
 * requirement rows (each checked), and the corridors, institutions and branches in the shapes the
 * schema builder and the validator take. The first-start loader can take the rows from here; the
 * tests take everything, so they check exactly what ships.
 */
import { readFileSync } from "node:fs";
import { toSnake } from "../../../lib/case.js";
import { invalid, type FieldError } from "../../../lib/errors.js";
import { fromRoot } from "../../../lib/paths.js";
import type { BranchRow, InstitutionRow } from "../remittance.rules.js";
import { catalogueIndexOf, type CatalogueIndex } from "./requirements.catalogue.js";
import { checkRequirementRow } from "./requirements.rules.js";
import type { CorridorFacts, RequirementRow } from "./requirements.spec.js";

const read = (file: string) => JSON.parse(readFileSync(fromRoot("data", "remittance", file), "utf8")) as Record<string, unknown>[];

/** data/remittance/requirements.json, every row checked; throws VALIDATION_FAILED naming `requirements.<i>.<field>`. */
export function shippedRequirementRows(): RequirementRow[] {
  const errors: FieldError[] = [];
  const rows = read("requirements.json").map((row, i) => checkRequirementRow(row, (f) => `requirements.${i}.${toSnake(f)}`, errors));
  if (errors.length) throw invalid(errors.slice(0, 20));
  return rows as RequirementRow[];
}

export type ShippedCatalogue = { corridors: (CorridorFacts & { requiredFields: string[] })[]; index: CatalogueIndex };

/** corridors.json as CorridorFacts, and institutions.json + branches.json as a CatalogueIndex. */
export function shippedCatalogue(): ShippedCatalogue {
  const corridors = read("corridors.json").map((c) => ({
    id: c.id as string,
    receivingCountry: c.receiving_country as string,
    receivingCurrency: c.receiving_currency as string,
    receivingInstitutionType: c.receiving_institution_type as string,
    minAmount: c.min_amount as number,
    maxAmount: c.max_amount as number,
    status: c.status as string,
    requiredFields: c.required_fields as string[],
  }));
  const institutions = read("institutions.json").map(
    (i) =>
      ({
        id: i.id,
        name: i.name,
        type: i.type,
        country: i.country,
        bic: i.bic,
        localCode: i.local_code,
        localCodeType: i.local_code_type,
        status: i.status,
        source: i.source,
      }) as InstitutionRow,
  );
  const branches = read("branches.json").map(
    (b) => ({ id: b.id, institutionId: b.institution_id, name: b.name, code: b.code, city: b.city, address: b.address }) as BranchRow,
  );
  return { corridors, index: catalogueIndexOf(institutions, branches) };
}

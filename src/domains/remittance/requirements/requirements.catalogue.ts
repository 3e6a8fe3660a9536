/**
 * The catalogue as the dry run reads it: synchronous lookups over institutions and branches held
 * in memory, so one validation makes no database round trip. `catalogueIndexOf` builds it from the
 * rows the lead's loader reads (remittance.rules.ts types); rebuild it when the catalogue changes.
 */
import type { BranchRow, InstitutionRow } from "../remittance.rules.js";
import { loadIfscList } from "./requirements.ifsc.js";

export type CatalogueInstitution = {
  id: string;
  name: string;
  type: string;
  country: string;
  status: string;
  localCode: string | null;
  localCodeType: string | null;
};
type CatalogueBranch = { id: string; institutionId: string; name: string; code: string };

export interface CatalogueIndex {
  institution(id: string): CatalogueInstitution | undefined;
  institutionByLocalCode(country: string, localCodeType: string, code: string): CatalogueInstitution | undefined;
  branchByCode(code: string): CatalogueBranch | undefined;
  /** ACTIVE institutions of a country and type, sorted by id: the allowed values a schema can list */
  activeInstitutions(country: string, type: string): CatalogueInstitution[];
}

export function catalogueIndexOf(institutions: readonly InstitutionRow[], branches: readonly BranchRow[]): CatalogueIndex {
  // the IFSC list is part of what a lookup needs: read it now, not on the first request
  loadIfscList();
  const byId = new Map<string, CatalogueInstitution>();
  const byCode = new Map<string, CatalogueInstitution>();
  const byKind = new Map<string, CatalogueInstitution[]>();
  for (const row of institutions) {
    const inst: CatalogueInstitution = {
      id: row.id,
      name: row.name,
      type: row.type,
      country: row.country,
      status: row.status ?? "ACTIVE",
      localCode: row.localCode,
      localCodeType: row.localCodeType,
    };
    byId.set(inst.id, inst);
    if (inst.localCode && inst.localCodeType) byCode.set(`${inst.country}|${inst.localCodeType}|${inst.localCode}`, inst);
    if (inst.status === "ACTIVE") {
      const kind = `${inst.country}|${inst.type}`;
      byKind.set(kind, [...(byKind.get(kind) ?? []), inst]);
    }
  }
  for (const list of byKind.values()) list.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const branchByCode = new Map(branches.map((b) => [b.code, { id: b.id, institutionId: b.institutionId, name: b.name, code: b.code }]));
  return {
    institution: (id) => byId.get(id),
    institutionByLocalCode: (country, type, code) => byCode.get(`${country}|${type}|${code}`),
    branchByCode: (code) => branchByCode.get(code),
    activeInstitutions: (country, type) => byKind.get(`${country}|${type}`) ?? [],
  };
}

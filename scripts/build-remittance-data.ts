/**
 * Builds the shipped remittance reference dataset in data/remittance/:
 *   institutions.json, branches.json, corridors.json, requirements.json (the catalogue), and
 *   ifsc-codes.txt (every IFSC branch code, which the payout dry run checks an IFSC against)
 *
 * Run from the repository root:  npx tsx scripts/build-remittance-data.ts
 *
 * Inputs (nothing is fetched from the network):
 *   - ifsc (Razorpay, MIT)            Indian banks, IFSC prefixes, IFSC branch codes
 *   - banks-ng (MIT)                  Nigerian banks, codes, head-office addresses
 *   - vietnam-qr-pay (MIT)            Vietnamese banks/wallets, NAPAS BINs, SWIFT codes
 *   - clabe-validator (MIT)           Mexican CLABE bank codes and names
 *   - currency-codes, i18n-iso-countries (MIT)  ISO 4217 minor units, ISO 3166 validation
 *   - data/remittance/sources/*.json  hand-curated rows, each citing its public source
 *   - sources/corridor-requirements.json  hand-curated requirements per corridor, expanded and
 *                                     checked with the app's own checkRequirementRow
 *
 * The output is deterministic: every list is sorted by id, selections are
 * "first N in sorted order", and nothing depends on time or randomness.
 * Running the script twice gives byte-identical files.
 */
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { toSnake } from "../src/lib/case.ts";
import type { FieldError } from "../src/lib/errors.ts";
import { checkRequirementRow } from "../src/domains/remittance/requirements/requirements.rules.ts";
import type { RequirementSpec } from "../src/domains/remittance/requirements/requirements.spec.ts";

const require = createRequire(import.meta.url);
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const OUT_DIR = join(ROOT, "data", "remittance");
const SRC_DIR = join(OUT_DIR, "sources");

// ---------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------

type InstitutionType = "BANK" | "MOBILE_WALLET" | "CASH_PICKUP";
type Status = "ACTIVE" | "INACTIVE";
const INSTITUTION_TYPES: readonly InstitutionType[] = ["BANK", "MOBILE_WALLET", "CASH_PICKUP"];

interface Institution {
  id: string;
  name: string;
  type: InstitutionType;
  country: string;
  bic: string | null;
  local_code: string | null;
  local_code_type: string | null;
  has_branches: boolean;
  status: Status;
  source: string;
}

interface Branch {
  id: string;
  institution_id: string;
  name: string;
  code: string;
  city: string | null;
  address: string | null;
}

interface DeliveryEstimate {
  min_hours: number;
  max_hours: number;
  description: string;
}

interface Corridor {
  id: string;
  receiving_country: string;
  receiving_currency: string;
  receiving_institution_type: InstitutionType;
  min_amount: number;
  max_amount: number;
  delivery_estimate: DeliveryEstimate;
  required_fields: string[];
  status: Status;
}

interface PackageSelections {
  in_ifsc: {
    bank_types: string[];
    exclude_bank_codes: Record<string, string>;
    branches_per_bank: number;
  };
  ng_banks_ng: {
    exclude_codes: Record<string, string>;
    mobile_wallet_codes: Record<string, string>;
  };
  vn_vietnam_qr_pay: {
    mobile_wallet_keys: Record<string, string>;
  };
  mx_clabe_validator: {
    codes: { code: string; type: InstitutionType }[];
  };
}

/** A hand-curated institution: the shipped shape without the derived has_branches. */
type HandCuratedRow = Omit<Institution, "has_branches">;

interface BicOverride {
  institution_id: string;
  bic: string;
  source: string;
}

interface StatusOverride {
  institution_id: string;
  status: Status;
  reason: string;
  source: string;
}

interface CorridorRules {
  currencies: Record<string, string>;
  delivery_estimates: Record<string, DeliveryEstimate>;
  corridors: {
    country: string;
    currency: string;
    type: InstitutionType;
    min: number;
    max: number;
    delivery: string;
    required_fields: string[];
    status: Status;
  }[];
}

// Shapes of the package data we read.
interface IfscBankMeta {
  code: string;
  ifsc: string | null;
  type?: string;
}
interface NgBank {
  name: string;
  slug: string;
  code: string;
  address: string;
}
interface VnBank {
  key: string;
  name: string;
  shortName: string;
  bin: string;
  vietQRStatus: number;
  swiftCode?: string | null;
  deprecated?: boolean;
}
interface ClabeBank {
  tag: string;
  name: string;
}

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

function fail(message: string): never {
  throw new Error(`[build-remittance-data] ${message}`);
}

function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(path, "utf8")) as T;
}

/** Package root directory, found from its entry point (works with an "exports" map too). */
function pkgDir(name: string): string {
  let dir = dirname(require.resolve(name));
  for (;;) {
    try {
      if (readJson<{ name?: string }>(join(dir, "package.json")).name === name) return dir;
    } catch {
      // no package.json here: keep walking up
    }
    const parent = dirname(dir);
    if (parent === dir) fail(`cannot find the package.json of ${name}`);
    dir = parent;
  }
}

function pkgVersion(name: string): string {
  return readJson<{ version: string }>(join(pkgDir(name), "package.json")).version;
}

function requirePackage<T>(name: string, subpath = ""): T {
  try {
    return require(subpath ? `${name}/${subpath}` : name) as T;
  } catch (err) {
    fail(`cannot load npm package "${name}" (${(err as Error).message}). ` + "Install the dev dependencies listed in data/remittance/README.md.");
  }
}

/** Lower-case ASCII slug: diacritics stripped, runs of other characters become "-". */
function slugify(text: string): string {
  return text
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/&/g, " and ")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

/** Plain code-unit comparison, so the order does not depend on the locale. */
function byId<T extends { id: string }>(a: T, b: T): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

const BIC_RE = /^[A-Z]{4}([A-Z]{2})[A-Z0-9]{2}([A-Z0-9]{3})?$/;

/** A BIC is accepted only if well-formed and its country part matches the institution. */
function checkedBic(bic: string | null | undefined, country: string): string | null {
  if (!bic) return null;
  const m = BIC_RE.exec(bic);
  if (!m || m[1] !== country) return null;
  return bic;
}

// ---------------------------------------------------------------------------
// Load inputs
// ---------------------------------------------------------------------------

const selections = readJson<PackageSelections>(join(SRC_DIR, "package-selections.json"));
const handCurated = readJson<HandCuratedRow[]>(join(SRC_DIR, "hand-curated-institutions.json"));
const bicOverrides = readJson<BicOverride[]>(join(SRC_DIR, "bic-overrides.json"));
const statusOverrides = readJson<StatusOverride[]>(join(SRC_DIR, "status-overrides.json"));
const corridorRules = readJson<CorridorRules>(join(SRC_DIR, "corridor-rules.json"));

const countries = requirePackage<{ isValid(code: string): boolean }>("i18n-iso-countries");
const currencyCodes = requirePackage<{ code(code: string): { digits: number } | undefined }>("currency-codes");

const versions: Record<string, string> = {};
for (const name of ["ifsc", "banks-ng", "vietnam-qr-pay", "clabe-validator", "currency-codes", "i18n-iso-countries"]) {
  try {
    versions[name] = pkgVersion(name);
  } catch {
    fail(`npm package "${name}" is not installed; see data/remittance/README.md`);
  }
}
const src = (name: string, detail: string): string => `${name}@${versions[name]} npm package (${detail})`;

const institutions: Institution[] = [];
const branches: Branch[] = [];

function addInstitution(inst: Omit<Institution, "has_branches">): void {
  institutions.push({ ...inst, has_branches: false });
}

/** Same object with its keys in the documented order. */
function orderedInstitution(i: Institution): Institution {
  return {
    id: i.id,
    name: i.name,
    type: i.type,
    country: i.country,
    bic: i.bic,
    local_code: i.local_code,
    local_code_type: i.local_code_type,
    has_branches: i.has_branches,
    status: i.status,
    source: i.source,
  };
}

// ---------------------------------------------------------------------------
// India: ifsc (Razorpay)
// ---------------------------------------------------------------------------
const IFSC_DIR = join(pkgDir("ifsc"), "src");
/** IFSC.json: bank prefix -> branch parts (numbers are zero-padded to 6 digits). */
const ifscCodes = readJson<Record<string, (string | number)[]>>(join(IFSC_DIR, "IFSC.json"));
{
  const bankNames = readJson<Record<string, string>>(join(IFSC_DIR, "banknames.json"));
  const banksMeta = readJson<Record<string, IfscBankMeta>>(join(IFSC_DIR, "banks.json"));
  const sel = selections.in_ifsc;
  const source = src("ifsc", "Razorpay; src/banknames.json, src/banks.json, src/IFSC.json");

  const seenPrefixes = new Set<string>();
  for (const key of Object.keys(banksMeta).sort()) {
    const meta = banksMeta[key];
    if (!meta.type || !sel.bank_types.includes(meta.type)) continue;
    if (key in sel.exclude_bank_codes) continue;
    // The prefix actually used in this bank's IFSC codes (e.g. USFB -> UJVN, IPPB -> IPOS).
    const prefix = meta.ifsc ? meta.ifsc.slice(0, 4) : key;
    if (seenPrefixes.has(prefix)) continue;
    seenPrefixes.add(prefix);
    const name = bankNames[key] ?? bankNames[prefix];
    if (!name) fail(`ifsc: no name for bank ${key}`);
    addInstitution({
      id: `in-${prefix.toLowerCase()}`,
      name: name.trim(),
      type: "BANK",
      country: "IN",
      bic: null,
      local_code: prefix,
      local_code_type: "IFSC_PREFIX",
      status: "ACTIVE",
      source,
    });
  }
}

function ifscBranchCodes(prefix: string): string[] {
  const raw = ifscCodes[prefix] ?? [];
  const codes = raw.map((c) => (typeof c === "number" ? `${prefix}0${String(c).padStart(6, "0")}` : `${prefix}0${c}`));
  for (const code of codes) {
    if (!/^[A-Z]{4}0[A-Z0-9]{6}$/.test(code)) fail(`ifsc: malformed IFSC ${code}`);
  }
  return [...new Set(codes)].sort();
}

// ---------------------------------------------------------------------------
// Nigeria: banks-ng
// ---------------------------------------------------------------------------
const NG_CITY_PATTERNS: [RegExp, string][] = [
  [/\bBenin City\b/i, "Benin City"],
  [/\bCalabar\b/i, "Calabar"],
  [/\bAbuja\b/i, "Abuja"],
  [/\bLagos\b/i, "Lagos"],
  // Victoria Island is a district of Lagos.
  [/\bVictoria Island\b/i, "Lagos"],
];
const ngHeadOffices: { institution_id: string; name: string; code: string; address: string }[] = [];
{
  const { banks } = requirePackage<{ banks: NgBank[] }>("banks-ng", "bin/banks.js");
  const sel = selections.ng_banks_ng;
  const source = src("banks-ng", "bin/banks.js");
  for (const bank of [...banks].sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0))) {
    if (bank.code in sel.exclude_codes) continue;
    const id = `ng-${slugify(bank.name)}`;
    const type: InstitutionType = bank.code in sel.mobile_wallet_codes ? "MOBILE_WALLET" : "BANK";
    addInstitution({
      id,
      name: bank.name.trim(),
      type,
      country: "NG",
      bic: null,
      local_code: bank.code,
      local_code_type: "NIBSS_CODE",
      status: "ACTIVE",
      source,
    });
    const address = bank.address.trim().replace(/[\s,]+$/, "");
    if (address) ngHeadOffices.push({ institution_id: id, name: bank.name.trim(), code: bank.code, address });
  }
}

// ---------------------------------------------------------------------------
// Vietnam: vietnam-qr-pay
// ---------------------------------------------------------------------------
{
  const { Banks } = requirePackage<{ Banks: VnBank[] }>("vietnam-qr-pay");
  const sel = selections.vn_vietnam_qr_pay;
  const source = src("vietnam-qr-pay", "dist/constants/banks.js");
  const byBin = new Map<string, VnBank>();
  for (const bank of [...Banks].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))) {
    if (bank.deprecated || !bank.bin) continue;
    const current = byBin.get(bank.bin);
    if (!current || bank.vietQRStatus > current.vietQRStatus) byBin.set(bank.bin, bank);
  }
  for (const bank of byBin.values()) {
    addInstitution({
      id: `vn-${slugify(bank.key)}`,
      name: bank.shortName.trim(),
      type: bank.key in sel.mobile_wallet_keys ? "MOBILE_WALLET" : "BANK",
      country: "VN",
      // The package's SWIFT code is kept only if it is well-formed and Vietnamese.
      bic: checkedBic(bank.swiftCode, "VN"),
      local_code: bank.bin,
      local_code_type: "NAPAS_BIN",
      status: "ACTIVE",
      source,
    });
  }
}

// ---------------------------------------------------------------------------
// Mexico: clabe-validator
// ---------------------------------------------------------------------------
{
  const { clabe } = requirePackage<{ clabe: { banksMap: Record<string, ClabeBank> } }>("clabe-validator");
  const source = src("clabe-validator", "clabe.banksMap");
  for (const { code, type } of selections.mx_clabe_validator.codes) {
    const bank = clabe.banksMap[String(Number(code))];
    if (!bank) fail(`clabe-validator: no bank with CLABE code ${code}`);
    addInstitution({
      id: `mx-${slugify(bank.tag)}`,
      name: bank.name.trim(),
      type,
      country: "MX",
      bic: null,
      local_code: code.padStart(3, "0"),
      local_code_type: "CLABE_BANK_CODE",
      status: "ACTIVE",
      source,
    });
  }
}

// ---------------------------------------------------------------------------
// Hand-curated rows
// ---------------------------------------------------------------------------
for (const row of handCurated) {
  if (!row.source) fail(`hand-curated row ${row.id} has no source`);
  if (row.bic !== null && checkedBic(row.bic, row.country) === null) {
    fail(`hand-curated row ${row.id}: BIC ${row.bic} is malformed or not for ${row.country}`);
  }
  addInstitution({
    id: row.id,
    name: row.name,
    type: row.type,
    country: row.country,
    bic: row.bic,
    local_code: row.local_code,
    local_code_type: row.local_code_type,
    status: row.status,
    source: `hand-curated: ${row.source}`,
  });
}

// ---------------------------------------------------------------------------
// Overrides, then validation
// ---------------------------------------------------------------------------
const instById = new Map<string, Institution>();
for (const inst of institutions) {
  if (instById.has(inst.id)) fail(`duplicate institution id ${inst.id}`);
  instById.set(inst.id, inst);
}

for (const o of bicOverrides) {
  const inst = instById.get(o.institution_id) ?? fail(`bic override for unknown institution ${o.institution_id}`);
  if (checkedBic(o.bic, inst.country) === null) fail(`bic override ${o.bic} is malformed or not for ${inst.country}`);
  if (inst.bic !== null && inst.bic !== o.bic) fail(`bic override for ${inst.id} conflicts with ${inst.bic}`);
  inst.bic = o.bic;
  inst.source = `${inst.source}; BIC hand-curated: ${o.source}`;
}

for (const o of statusOverrides) {
  const inst = instById.get(o.institution_id) ?? fail(`status override for unknown institution ${o.institution_id}`);
  inst.status = o.status;
}

for (const inst of institutions) {
  if (!/^[a-z]{2}-[a-z0-9]+(-[a-z0-9]+)*$/.test(inst.id)) fail(`bad institution id ${inst.id}`);
  if (inst.id.slice(0, 2) !== inst.country.toLowerCase()) fail(`id/country mismatch: ${inst.id}`);
  if (!countries.isValid(inst.country)) fail(`unknown country ${inst.country}`);
  if (!INSTITUTION_TYPES.includes(inst.type)) fail(`bad type ${inst.type} for ${inst.id}`);
  if (inst.status !== "ACTIVE" && inst.status !== "INACTIVE") fail(`bad status for ${inst.id}`);
  if ((inst.local_code === null) !== (inst.local_code_type === null)) fail(`local code/type mismatch for ${inst.id}`);
}

// ---------------------------------------------------------------------------
// Branches
// ---------------------------------------------------------------------------
for (const inst of [...institutions].sort(byId)) {
  if (inst.country !== "IN" || inst.status !== "ACTIVE" || inst.local_code === null) continue;
  for (const code of ifscBranchCodes(inst.local_code).slice(0, selections.in_ifsc.branches_per_bank)) {
    branches.push({
      id: `${inst.id}-${code.toLowerCase()}`,
      institution_id: inst.id,
      // The ifsc package ships codes only; no branch name or city is invented.
      name: `${inst.name} ${code}`,
      code,
      city: null,
      address: null,
    });
  }
}

for (const ho of ngHeadOffices) {
  const inst = instById.get(ho.institution_id);
  // Head offices are listed for banks only (wallet operators' offices are not payout points).
  if (inst?.status !== "ACTIVE" || inst.type !== "BANK") continue;
  const city = NG_CITY_PATTERNS.find(([re]) => re.test(ho.address))?.[1] ?? null;
  branches.push({
    id: `${ho.institution_id}-head-office`,
    institution_id: ho.institution_id,
    name: `${ho.name} Head Office`,
    // No branch sort codes are published in banks-ng: the head office carries the institution code.
    code: ho.code,
    city,
    address: ho.address,
  });
}

const branchIds = new Set<string>();
for (const b of branches) {
  if (branchIds.has(b.id)) fail(`duplicate branch id ${b.id}`);
  branchIds.add(b.id);
  const inst = instById.get(b.institution_id) ?? fail(`branch ${b.id} has unknown institution`);
  inst.has_branches = true;
}

// ---------------------------------------------------------------------------
// Corridors
// ---------------------------------------------------------------------------
const corridors: Corridor[] = [];
{
  const activePairs = new Set<string>();
  const allPairs = new Set<string>();
  for (const inst of institutions) {
    allPairs.add(`${inst.country}|${inst.type}`);
    if (inst.status === "ACTIVE") activePairs.add(`${inst.country}|${inst.type}`);
  }
  const covered = new Set<string>();
  for (const rule of corridorRules.corridors) {
    const pair = `${rule.country}|${rule.type}`;
    if (!allPairs.has(pair)) fail(`corridor ${pair} has no institutions`);
    const digits = currencyCodes.code(rule.currency)?.digits ?? fail(`unknown currency ${rule.currency}`);
    const delivery = corridorRules.delivery_estimates[rule.delivery] ?? fail(`unknown delivery ${rule.delivery}`);
    const min = Math.round(rule.min * 10 ** digits);
    const max = Math.round(rule.max * 10 ** digits);
    if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || min <= 0 || min >= max) {
      fail(`bad amounts for ${pair} ${rule.currency}`);
    }
    for (const f of rule.required_fields) if (!/^[a-z]+(_[a-z]+)*$/.test(f)) fail(`bad field name ${f}`);
    if (rule.status === "ACTIVE") {
      if (corridorRules.currencies[rule.country] !== rule.currency) {
        fail(`ACTIVE corridor ${pair} must use ${corridorRules.currencies[rule.country]}`);
      }
      covered.add(pair);
    }
    corridors.push({
      id: `${rule.country}-${rule.currency}-${rule.type.replace(/_/g, "-")}`.toLowerCase(),
      receiving_country: rule.country,
      receiving_currency: rule.currency,
      receiving_institution_type: rule.type,
      min_amount: min,
      max_amount: max,
      delivery_estimate: { ...delivery },
      required_fields: [...rule.required_fields],
      status: rule.status,
    });
  }
  for (const pair of activePairs) if (!covered.has(pair)) fail(`no ACTIVE corridor for ${pair}`);
  const ids = new Set<string>();
  for (const c of corridors) {
    if (ids.has(c.id)) fail(`duplicate corridor ${c.id}`);
    ids.add(c.id);
  }
}

// ---------------------------------------------------------------------------
// Corridor requirements: sources/corridor-requirements.json, expanded and checked
// ---------------------------------------------------------------------------
interface RequirementSources {
  fields: Record<string, Record<string, unknown>>;
  sender: Record<string, Record<string, unknown>>;
  purposes: Record<string, Record<string, unknown>>;
  conditions: Record<string, Record<string, unknown>>;
  documents: Record<string, Record<string, unknown>>;
  rows: Record<string, unknown>[];
}
type Json = Record<string, unknown>;

const requirementRows: Json[] = [];
{
  const sources = readJson<RequirementSources>(join(SRC_DIR, "corridor-requirements.json"));
  const template = (table: keyof Omit<RequirementSources, "rows">, name: string, where: string): Json =>
    sources[table][name] ?? fail(`${where}: no ${table} template named ${name}`);
  /** {"use": NAME, ...} is the template NAME with the other keys laid over it; a field's key is NAME unless given */
  const expand = (table: "fields" | "conditions" | "documents", item: unknown, where: string): Json => {
    if (typeof item === "string")
      return table === "fields" ? { key: item, ...template(table, item, where) } : fail(`${where}: ${item} is not a ${table} entry`);
    const { use, ...rest } = item as Json;
    if (use === undefined) return rest;
    const merged: Json = { ...(table === "fields" ? { key: use } : {}), ...template(table, String(use), where), ...rest };
    // a condition reads best as when → require → reason
    return table === "conditions" ? { when: merged.when, require: merged.require, reason: merged.reason } : merged;
  };
  const fieldsOf = (list: unknown, where: string) => (list as unknown[]).map((f, i) => expand("fields", f, `${where}.${i}`));

  const seen = new Set<string>();
  for (const [i, raw] of sources.rows.entries()) {
    const where = `corridor-requirements.json rows.${i}`;
    const beneficiary = raw.beneficiary as { fields: unknown[]; alternatives: Json[] };
    const sender = typeof raw.sender === "string" ? template("sender", raw.sender, where) : (raw.sender as Json);
    const row: Json = {
      ...raw,
      sender: { ...sender, fields: fieldsOf(sender.fields, `${where}.sender`) },
      beneficiary: {
        fields: fieldsOf(beneficiary.fields, `${where}.beneficiary`),
        alternatives: beneficiary.alternatives.map((alt, a) => ({ ...alt, fields: fieldsOf(alt.fields, `${where}.alternatives.${a}`) })),
      },
      conditions: (raw.conditions as unknown[]).map((c, j) => expand("conditions", c, `${where}.conditions.${j}`)),
      purposes: typeof raw.purposes === "string" ? template("purposes", raw.purposes, where) : raw.purposes,
      documents: (raw.documents as unknown[]).map((d, j) => expand("documents", d, `${where}.documents.${j}`)),
    };
    const errors: FieldError[] = [];
    const checked = checkRequirementRow(row, (f) => `${where}.${toSnake(f)}`, errors);
    if (!checked) fail(`invalid requirement row:\n  ${errors.map((e) => e.message).join("\n  ")}`);
    const key = `${checked.corridorId}@${checked.version}`;
    if (seen.has(key)) fail(`${where}: ${checked.corridorId} version ${checked.version} repeats`);
    seen.add(key);
    const corridor = corridors.find((c) => c.id === checked.corridorId) ?? fail(`${where}: no corridor ${checked.corridorId}`);
    checkAgainstCorridor(corridor, checked.spec, where);
    requirementRows.push(row);
  }
  for (const c of corridors) if (!requirementRows.some((r) => r.corridor_id === c.id)) fail(`corridor ${c.id} has no requirements`);
  requirementRows.sort((a, b) =>
    a.corridor_id === b.corridor_id ? (a.version as number) - (b.version as number) : (a.corridor_id as string) < (b.corridor_id as string) ? -1 : 1,
  );
}

/** What only the corridor row can tell: its flat required_fields and its limits agree with the spec. */
function checkAgainstCorridor(corridor: Corridor, spec: RequirementSpec, where: string): void {
  const requiredSets = spec.beneficiary.alternatives.map(
    (alt) => new Set([...spec.beneficiary.fields, ...alt.fields].filter((f) => f.required).map((f) => f.key)),
  );
  for (const name of corridor.required_fields)
    if (!requiredSets.some((set) => set.has(name))) fail(`${where}: required field ${name} of ${corridor.id} is required by no payout method`);
  const step = spec.amount.increment;
  if (corridor.min_amount % step || corridor.max_amount % step) fail(`${where}: ${corridor.id}'s limits are not multiples of the increment ${step}`);
  const thresholds = [...spec.conditions.flatMap((c) => c.when.amount_at_least ?? []), ...spec.documents.map((d) => d.min_amount)];
  for (const t of thresholds)
    if (t <= corridor.min_amount || t > corridor.max_amount)
      fail(`${where}: threshold ${t} is outside ${corridor.id}'s limits (${corridor.min_amount}, ${corridor.max_amount}]`);
}

// ---------------------------------------------------------------------------
// IFSC branch codes: ifsc-codes.txt
// ---------------------------------------------------------------------------
/**
 * The whole IFSC.json, so that the app needs no `ifsc` package at run time
 * (src/domains/remittance/requirements/requirements.ifsc.ts reads the file). Text, not JSON: one
 * line per bank keeps a package upgrade's diff to the banks that changed, and it is not one of the
 * catalogue files `cli reference import` takes. A line is the 4-letter prefix, a space, then each
 * code's 6-character branch part (numbers zero-padded), sorted and joined with no separator.
 */
const ifscBanks = Object.keys(ifscCodes)
  .sort()
  .map((prefix) => {
    if (!/^[A-Z]{4}$/.test(prefix)) fail(`ifsc: malformed bank prefix ${prefix}`);
    return { prefix, parts: ifscBranchCodes(prefix).map((code) => code.slice(5)) };
  });
const ifscCodesText = [
  `# IFSC branch codes from ${src("ifsc", "Razorpay, MIT; src/IFSC.json")}. Generated by scripts/build-remittance-data.ts: do not edit.`,
  "# One line per bank: its IFSC prefix, a space, then the last 6 characters of each of its IFSCs (the part after the 0), sorted, joined.",
  ...ifscBanks.map(({ prefix, parts }) => `${prefix} ${parts.join("")}`),
  "",
].join("\n");

// ---------------------------------------------------------------------------
// Write
// ---------------------------------------------------------------------------
function write(file: string, rows: { id: string }[]): void {
  const sorted = [...rows].sort(byId);
  writeFileSync(join(OUT_DIR, file), `${JSON.stringify(sorted, null, 2)}\n`, "utf8");
}

mkdirSync(OUT_DIR, { recursive: true });
write("institutions.json", institutions.map(orderedInstitution));
write("branches.json", branches);
write("corridors.json", corridors);
// sorted above by corridor_id, then version; keys as curated, templates expanded
writeFileSync(join(OUT_DIR, "requirements.json"), `${JSON.stringify(requirementRows, null, 2)}\n`, "utf8");
writeFileSync(join(OUT_DIR, "ifsc-codes.txt"), ifscCodesText, "utf8");

const countBy = <T>(rows: T[], key: (r: T) => string): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const r of rows) out[key(r)] = (out[key(r)] ?? 0) + 1;
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
};
console.log("package versions:", versions);
console.log("countries:", new Set(institutions.map((i) => i.country)).size);
console.log(
  "institutions:",
  institutions.length,
  countBy(institutions, (i) => i.type),
);
console.log(
  "institutions by status:",
  countBy(institutions, (i) => i.status),
);
console.log(
  "institutions by country:",
  countBy(institutions, (i) => i.country),
);
console.log("institutions with BIC:", institutions.filter((i) => i.bic !== null).length);
console.log(
  "branches:",
  branches.length,
  countBy(branches, (b) => b.institution_id.slice(0, 2)),
);
console.log(
  "corridors:",
  corridors.length,
  countBy(corridors, (c) => c.status),
);
console.log(
  "IFSC codes:",
  ifscBanks.reduce((n, b) => n + b.parts.length, 0),
  "of",
  ifscBanks.length,
  "banks",
);
console.log("corridor requirements:", requirementRows.length, "rows for", new Set(requirementRows.map((r) => r.corridor_id)).size, "corridors");

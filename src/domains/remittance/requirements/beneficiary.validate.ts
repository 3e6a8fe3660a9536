/**
 * The payout dry run: a request body checked against a corridor's requirements and our catalogue.
 * Every problem is collected (one per field: the first check it fails), each with its path and a
 * category, up to MAX_LISTED_PROBLEMS; past it problems are only counted (`omitted`), and a
 * documents list longer than MAX_PAYOUT_DOCUMENTS is refused whole, so no body makes the walk or
 * the answer large. Messages never repeat the value, since account numbers and phone numbers are PII.
 * What passes comes back normalised: trimmed, codes upper-cased, IBAN in electronic form, phone in
 * E.164, the institution resolved. Synchronous and allocation-light: it runs on every dry run.
 */
import { clip, Problems, reportUnknownKeys } from "../../../lib/errors.js";
import { formatMinor } from "./requirements.amounts.js";
import type { CatalogueIndex, CatalogueInstitution } from "./requirements.catalogue.js";
import { compiled, type CompiledAlternative, type CompiledField, type CompiledSpec } from "./requirements.compiled.js";
import { checkFormat } from "./requirements.formats.js";
import { isValidNuban } from "./requirements.nuban.js";
import type { CorridorFacts, RequirementCategory, RequirementSpec } from "./requirements.spec.js";

export type PayoutFieldError = { path: string; category: RequirementCategory; message: string };
type NormalisedPayout = {
  corridorId: string;
  amount: number;
  currency: string;
  payoutMethod: string;
  purposeOfRemittance: string | null;
  /** wire keys (snake_case) → normalised values; blank optional fields are left out */
  sender: Record<string, string>;
  beneficiary: Record<string, string>;
  institution: { id: string; name: string };
  /** the catalogue's branch when the beneficiary names one it lists (an IFSC), else null */
  branch: { id: string; name: string; code: string } | null;
  documents: { requirement: string; documentId: string }[];
};
/** `errors`: at most MAX_LISTED_PROBLEMS; `omitted`: how many more were found */
export type PayoutValidation = { ok: true; value: NormalisedPayout } | { ok: false; errors: PayoutFieldError[]; omitted: number };

/** The most entries `documents` may hold (the requirements' JSON Schema says it as maxItems). */
export const MAX_PAYOUT_DOCUMENTS = 20;

const TOP_KEYS_NO_DOCUMENTS: ReadonlySet<string> = new Set(["amount", "payout_method", "purpose_of_remittance", "sender", "beneficiary"]);
const TOP_KEYS: ReadonlySet<string> = new Set([...TOP_KEYS_NO_DOCUMENTS, "documents"]);
const DOCUMENT_KEYS = new Set(["requirement", "document_id"]);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TYPE_NAMES: Record<string, string> = { BANK: "bank", MOBILE_WALLET: "mobile wallet", CASH_PICKUP: "cash pickup network" };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const blank = (v: unknown) => v === undefined || v === null || (typeof v === "string" && v.trim() === "");

type Section = { values: Record<string, string>; present: Set<string> };

class Run {
  readonly problems = new Problems<PayoutFieldError>();
  readonly failed = new Set<string>();
  institution: CatalogueInstitution | undefined;
  branch: NormalisedPayout["branch"] = null;
  constructor(
    readonly corridor: CorridorFacts,
    readonly catalogue: CatalogueIndex,
  ) {}

  add(path: string, category: RequirementCategory, message: string) {
    this.problems.add({ path, category, message });
    this.failed.add(path);
  }

  /** The keys of `raw` the schema does not know: the first listed, the rest only counted (a body can hold a hundred thousand). */
  unknownKeys(raw: object, known: ReadonlySet<string>, prefix: string, message: (path: string, key: string) => string) {
    reportUnknownKeys(raw, known, this.problems, (key) => {
      const path = `${prefix}${clip(key)}`;
      this.problems.add({ path, category: "not_allowed", message: message(path, key) });
    });
  }

  get failing() {
    return this.problems.size > 0;
  }

  /** One field: present and text, length, pattern, allowed values, format, institution; the first failure is reported. */
  field(f: CompiledField, raw: unknown, path: string, out: Section) {
    const { spec } = f;
    if (blank(raw)) {
      if (spec.required) this.add(path, "field_missing", `${path} (${spec.label}) is required.`);
      return;
    }
    out.present.add(spec.key);
    if (typeof raw !== "string") return this.add(path, "incorrect_format", `${path} must be text.`);
    const trimmed = raw.trim();
    const min = spec.min_length ?? 1;
    if (trimmed.length < min || (spec.max_length !== undefined && trimmed.length > spec.max_length))
      return this.add(path, "incorrect_format", `${path} must be ${min} to ${spec.max_length ?? "any number of"} characters.`);
    if (f.pattern && !f.pattern.test(trimmed))
      return this.add(path, "incorrect_format", `${path} is not in the expected form.${spec.description ? ` ${spec.description}` : ""}`);
    const value = f.upper ? trimmed.toUpperCase() : trimmed;
    if (f.allowed && !f.allowed.has(value)) return this.add(path, "not_allowed", `${path} must be one of ${[...f.allowed].join(", ")}.`);
    const checked = checkFormat(spec.format, value, this.corridor.receivingCountry);
    if (!checked.ok) return this.add(path, checked.category, `${path} ${checked.message}`);
    if (spec.institution && !this.resolve(f, checked.value, checked.localCode, path)) return;
    out.values[spec.key] = checked.value;
  }

  /** The institution a field names must be an ACTIVE one of the corridor's country and type. */
  resolve(f: CompiledField, value: string, localCode: string | undefined, path: string): boolean {
    const how = f.spec.institution!;
    const { receivingCountry: country, receivingInstitutionType: type } = this.corridor;
    const inst =
      how.by === "id"
        ? this.catalogue.institution(value)
        : localCode
          ? this.catalogue.institutionByLocalCode(country, how.local_code_type, localCode)
          : undefined;
    const kind = TYPE_NAMES[type] ?? type;
    if (!inst || inst.country !== country) this.add(path, "unknown_institution", `${path} names no ${kind} we pay out to in ${country}.`);
    else if (inst.type !== type) this.add(path, "unknown_institution", `${path} names a ${TYPE_NAMES[inst.type] ?? inst.type}, not a ${kind}.`);
    else if (inst.status !== "ACTIVE") this.add(path, "unknown_institution", `${path} names an institution that no longer receives payouts.`);
    else {
      this.institution = inst;
      if (f.spec.format === "ifsc") {
        const b = this.catalogue.branchByCode(value);
        this.branch = b && b.institutionId === inst.id ? { id: b.id, name: b.name, code: b.code } : null;
      }
      return true;
    }
    return false;
  }

  section(
    name: "sender" | "beneficiary",
    raw: unknown,
    fields: CompiledField[],
    known: ReadonlySet<string>,
    foreign: (key: string) => string,
  ): Section | undefined {
    if (raw === undefined || raw === null) return void this.add(name, "field_missing", `${name} is required.`);
    if (!isObject(raw)) return void this.add(name, "incorrect_format", `${name} must be an object.`);
    const out: Section = { values: {}, present: new Set() };
    this.unknownKeys(raw, known, `${name}.`, (path, key) => `${path} ${foreign(key)}`);
    for (const f of fields) this.field(f, raw[f.spec.key], `${name}.${f.spec.key}`, out);
    return out;
  }
}

/** Checks a dry-run body against the corridor's requirements; every error at once, or the normalised payout. */
export function validatePayout(input: { corridor: CorridorFacts; spec: RequirementSpec; body: unknown }, catalogue: CatalogueIndex): PayoutValidation {
  const { corridor, spec, body } = input;
  const c = compiled(spec);
  const run = new Run(corridor, catalogue);
  if (!isObject(body)) return { ok: false, errors: [{ path: "", category: "incorrect_format", message: "The body must be a JSON object." }], omitted: 0 };
  if (corridor.status && corridor.status !== "ACTIVE")
    run.add("corridor_id", "not_allowed", `The corridor ${corridor.id} is ${corridor.status}: it takes no payouts.`);
  run.unknownKeys(body, spec.documents.length ? TOP_KEYS : TOP_KEYS_NO_DOCUMENTS, "", (path) => `${path} is not a field of a payout on ${corridor.id}.`);

  const amount = checkAmount(run, body.amount, spec);
  const alt = pickAlternative(run, c, body.payout_method, body.beneficiary);
  const sender = run.section("sender", body.sender, c.sender, c.senderKeys, () => "is not a sender field.");
  const beneficiary = run.section("beneficiary", body.beneficiary, alt.fields, alt.keys, (key) =>
    c.methodOfKey.has(key) ? `belongs to payout method ${c.methodOfKey.get(key)}, not ${alt.spec.payout_method}.` : "is not a beneficiary field.",
  );
  if (beneficiary) checkNuban(run, alt, beneficiary);
  checkConditions(run, spec, amount, { sender, beneficiary });
  const purpose = checkPurpose(run, c, spec, body.purpose_of_remittance);
  const documents = spec.documents.length ? checkDocuments(run, c, spec, amount, body.documents) : [];

  if (run.failing || amount === undefined || !sender || !beneficiary || !run.institution)
    return { ok: false, errors: run.problems.listed, omitted: run.problems.omitted };
  return {
    ok: true,
    value: {
      corridorId: corridor.id,
      amount,
      currency: corridor.receivingCurrency,
      payoutMethod: alt.spec.payout_method,
      purposeOfRemittance: purpose ?? null,
      sender: sender.values,
      beneficiary: beneficiary.values,
      institution: { id: run.institution.id, name: run.institution.name },
      branch: run.branch,
      documents,
    },
  };
}

function checkAmount(run: Run, raw: unknown, spec: RequirementSpec): number | undefined {
  const { minAmount: min, maxAmount: max, receivingCurrency: cur } = run.corridor;
  if (raw === undefined || raw === null) return void run.add("amount", "field_missing", "amount is required.");
  if (typeof raw !== "number" || !Number.isSafeInteger(raw))
    return void run.add("amount", "incorrect_format", `amount must be a whole number of minor units of ${cur}.`);
  const step = spec.amount.increment;
  if (raw < min || raw > max) run.add("amount", "amount_out_of_range", `amount must be from ${formatMinor(min, cur)} to ${formatMinor(max, cur)}.`);
  else if (raw % step) run.add("amount", "amount_out_of_range", `amount must be a multiple of ${formatMinor(step, cur)}.`);
  return raw;
}

/** The named payout method, else the first (in preference order) whose fields the beneficiary has, else the closest. */
function pickAlternative(run: Run, c: CompiledSpec, method: unknown, beneficiary: unknown): CompiledAlternative {
  if (!blank(method)) {
    const named = typeof method === "string" ? c.byMethod.get(method.trim()) : undefined;
    if (named) return named;
    run.add(
      "payout_method",
      typeof method === "string" ? "not_allowed" : "incorrect_format",
      `payout_method must be one of ${[...c.byMethod.keys()].join(", ")}.`,
    );
  }
  if (c.alternatives.length === 1 || !isObject(beneficiary)) return c.alternatives[0];
  let best = c.alternatives[0];
  let bestScore = -1;
  for (const alt of c.alternatives) {
    const own = alt.fields.filter((f) => f.spec.required && alt.spec.fields.includes(f.spec));
    const have = own.filter((f) => !blank(beneficiary[f.spec.key])).length;
    if (have === own.length) return alt;
    if (have > bestScore) [best, bestScore] = [alt, have];
  }
  return best;
}

/** NUBAN's check digit depends on the bank: checked once the bank code resolved. */
function checkNuban(run: Run, alt: CompiledAlternative, beneficiary: Section) {
  const code = run.institution?.localCode;
  for (const f of alt.fields) {
    const value = beneficiary.values[f.spec.key];
    if (f.spec.format !== "nuban" || value === undefined || !code) continue;
    if (!isValidNuban(value, code)) {
      const path = `beneficiary.${f.spec.key}`;
      run.add(path, "incorrect_format", `${path} fails the NUBAN check digit for its bank.`);
      delete beneficiary.values[f.spec.key];
    }
  }
}

function checkConditions(run: Run, spec: RequirementSpec, amount: number | undefined, sections: Record<"sender" | "beneficiary", Section | undefined>) {
  for (const cond of spec.conditions) {
    const { amount_at_least: from, institution_ids: ids } = cond.when;
    if (from !== undefined && (amount === undefined || amount < from)) continue;
    if (ids && (!run.institution || !ids.includes(run.institution.id))) continue;
    for (const target of cond.require) {
      const [name, key] = target.split(".") as ["sender" | "beneficiary", string];
      const section = sections[name];
      if (section && !section.present.has(key) && !run.failed.has(target)) run.add(target, "field_missing", `${target} is required. ${cond.reason}`);
    }
  }
}

function checkPurpose(run: Run, c: CompiledSpec, spec: RequirementSpec, raw: unknown): string | undefined {
  if (blank(raw)) return void (spec.purposes.required && run.add("purpose_of_remittance", "field_missing", "purpose_of_remittance is required."));
  if (typeof raw !== "string") return void run.add("purpose_of_remittance", "incorrect_format", "purpose_of_remittance must be text.");
  if (c.purposes.has(raw.trim())) return raw.trim();
  run.add("purpose_of_remittance", "not_allowed", `purpose_of_remittance must be one of ${[...c.purposes].join(", ")}.`);
}

function checkDocuments(run: Run, c: CompiledSpec, spec: RequirementSpec, amount: number | undefined, raw: unknown) {
  const given: NormalisedPayout["documents"] = [];
  // requirements an entry names, even one whose document_id is wrong: that entry's error is enough
  const named = new Set<string>();
  const notList = raw !== undefined && raw !== null && !Array.isArray(raw);
  // a list past the bound is refused whole: its items are not judged, nor what they would have met
  const tooLong = Array.isArray(raw) && raw.length > MAX_PAYOUT_DOCUMENTS;
  if (notList) run.add("documents", "incorrect_format", "documents must be a list.");
  else if (tooLong) run.add("documents", "incorrect_format", `documents holds ${raw.length} entries; at most ${MAX_PAYOUT_DOCUMENTS} are taken.`);
  else
    (raw ?? []).forEach((item: unknown, i: number) => {
      const at = `documents.${i}`;
      if (!isObject(item)) return run.add(at, "incorrect_format", `${at} must be an object with requirement and document_id.`);
      run.unknownKeys(item, DOCUMENT_KEYS, `${at}.`, (path) => `${path} is not a document field.`);
      const { requirement, document_id: id } = item;
      const known = typeof requirement === "string" && c.documents.has(requirement);
      if (known) named.add(requirement);
      if (blank(requirement)) run.add(`${at}.requirement`, "field_missing", `${at}.requirement is required.`);
      else if (!known) run.add(`${at}.requirement`, "not_allowed", `${at}.requirement must be one of ${[...c.documents.keys()].join(", ")}.`);
      if (blank(id)) run.add(`${at}.document_id`, "field_missing", `${at}.document_id is required.`);
      else if (typeof id !== "string" || !UUID.test(id)) run.add(`${at}.document_id`, "incorrect_format", `${at}.document_id must be a document id (UUID).`);
      else if (known) given.push({ requirement: requirement as string, documentId: id.toLowerCase() });
    });
  for (const d of spec.documents)
    if (amount !== undefined && amount >= d.min_amount && !named.has(d.key) && !notList && !tooLong)
      run.add(
        "documents",
        "field_missing",
        `${d.label} is required from ${formatMinor(d.min_amount, run.corridor.receivingCurrency)}: add a document with requirement ${d.key}.`,
      );
  return given;
}

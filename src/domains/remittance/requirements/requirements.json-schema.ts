/**
 * A corridor's requirements as a JSON Schema 2020-12 document describing the dry-run request body
 * (minus the corridor id): `{amount, payout_method?, purpose_of_remittance?, sender, beneficiary,
 * documents?}`. Payout methods are a `oneOf` in preference order; requirements that start at an
 * amount or for an institution are `if`/`then`. Given an amount, those conditions are resolved
 * and the amount narrowed to the band between thresholds where they hold; given a payout method,
 * only that one remains. Patterns carry the structure any validator checks; `format` names
 * (iban, ifsc, ...) are annotations, and so are `x-currency` / `x-minor-unit-digits`
 * (SCHEMA_ANNOTATIONS lists what an Ajv user registers, or they pass `strict: false`).
 */
import { countryName } from "../../../lib/countries.js";
import { DomainError } from "../../../lib/errors.js";
import { MAX_PAYOUT_DOCUMENTS } from "./beneficiary.validate.js";
import { amountThresholds, formatMinor, minorUnitDigits } from "./requirements.amounts.js";
import type { CatalogueInstitution } from "./requirements.catalogue.js";
import type { AlternativeSpec, ConditionSpec, CorridorFacts, FieldSpec, RequirementSpec } from "./requirements.spec.js";

export type JsonSchema = { [keyword: string]: unknown };
export type SchemaOptions = {
  payoutMethod?: string;
  /** minor units */
  amount?: number;
  /** the corridor's ACTIVE institutions (CatalogueIndex.activeInstitutions): listed as the allowed values of fields naming one */
  institutions?: readonly Pick<CatalogueInstitution, "id" | "name" | "localCode" | "localCodeType">[];
};

/** What a strict JSON Schema validator must be told of: annotations that are not 2020-12 vocabulary. */
export const SCHEMA_ANNOTATIONS = {
  keywords: ["x-currency", "x-minor-unit-digits"],
  formats: ["iban", "bic", "ifsc", "clabe", "nuban", "e164", "country", "card_number"],
} as const;

/**
 * A `payout_method` or `amount` option the corridor cannot answer for. A DomainError
 * (VALIDATION_FAILED, 400, naming the option) so nothing masks it; the route may answer 422.
 */
export class RequirementOptionError extends DomainError {
  constructor(
    readonly option: "payout_method" | "amount",
    message: string,
    /** the payout methods the corridor offers, for a payout_method error */
    readonly allowed: readonly string[] = [],
  ) {
    super("VALIDATION_FAILED", message, [{ field: option, code: "not_offered", message }]);
    this.name = "RequirementOptionError";
  }
}

const DRAFT = "https://json-schema.org/draft/2020-12/schema";
const UUID_PATTERN = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";
const TYPE_NAMES: Record<string, string> = { BANK: "bank account", MOBILE_WALLET: "mobile wallet", CASH_PICKUP: "cash pickup" };
/** catalogue lookups: no validator could check them, so no `format` is published */
const LOOKUP_FORMATS = new Set(["institution_id", "local_code"]);

type Band = { min: number; max: number; amount?: number };
type Required = { sender: string[]; beneficiary: string[]; documents: string[] };

export function corridorJsonSchema(corridor: CorridorFacts, spec: RequirementSpec, options: SchemaOptions = {}): JsonSchema {
  const alternatives = pickAlternatives(spec, options.payoutMethod);
  const band = amountBand(corridor, spec, options.amount);
  const resolved = band.amount !== undefined;
  const always: Required = { sender: [], beneficiary: [], documents: [] };
  const conditional: JsonSchema[] = [];
  for (const cond of spec.conditions) {
    const from = cond.when.amount_at_least;
    if (resolved && from !== undefined && band.amount! < from) continue;
    const when = { ...cond.when, amount_at_least: resolved ? undefined : from };
    if (when.amount_at_least === undefined && !when.institution_ids) for (const t of cond.require) always[section(t)].push(field(t));
    else conditional.push(conditionSchema(when, cond, institutionKey(spec)));
  }
  for (const d of spec.documents) {
    if (!resolved) conditional.push(documentIf(`${d.label}: required from ${formatMinor(d.min_amount, corridor.receivingCurrency)}.`, d.min_amount, d.key));
    else if (band.amount! >= d.min_amount) always.documents.push(d.key);
  }

  const institutions = options.institutions;
  const properties: JsonSchema = {
    amount: amountSchema(corridor, spec, band),
    payout_method: payoutMethodSchema(alternatives, options.payoutMethod !== undefined),
    purpose_of_remittance: {
      type: "string",
      title: "Purpose of remittance",
      description: spec.purposes.source,
      oneOf: spec.purposes.codes.map((p) => ({ const: p.code, title: p.label })),
    },
    sender: objectSchema("Sender", "The person sending the money.", spec.sender.fields, always.sender, institutions),
    beneficiary:
      alternatives.length === 1
        ? beneficiarySchema(spec, alternatives[0], always.beneficiary, institutions)
        : {
            type: "object",
            title: "Beneficiary",
            description: "The person receiving the money: the fields of one payout method below (oneOf, in preference order).",
          },
  };
  if (spec.documents.length) properties.documents = documentsSchema(spec, corridor, always.documents);
  const required = [
    "amount",
    ...(spec.purposes.required ? ["purpose_of_remittance"] : []),
    "sender",
    "beneficiary",
    ...(always.documents.length ? ["documents"] : []),
  ];

  const schema: JsonSchema = {
    $schema: DRAFT,
    title: `Payout on ${corridor.id}`,
    description: describe(corridor, band),
    type: "object",
    required,
    properties,
    additionalProperties: false,
  };
  if (alternatives.length > 1)
    schema.oneOf = alternatives.map((alt) => ({
      type: "object",
      title: alt.label,
      ...(alt.description ? { description: alt.description } : {}),
      properties: { payout_method: { const: alt.payout_method }, beneficiary: beneficiarySchema(spec, alt, always.beneficiary, institutions) },
    }));
  if (conditional.length) schema.allOf = conditional;
  const examples = spec.examples.map((e) => e.body).filter((b) => inBand(b, band) && alternatives.some((alt) => alt.payout_method === methodOf(spec, b)));
  if (examples.length) schema.examples = examples;
  return schema;
}

function pickAlternatives(spec: RequirementSpec, method?: string): AlternativeSpec[] {
  const all = spec.beneficiary.alternatives;
  if (method === undefined) return all;
  const found = all.find((a) => a.payout_method === method);
  if (!found) {
    const names = all.map((a) => a.payout_method);
    throw new RequirementOptionError("payout_method", `payout_method must be one of ${names.join(", ")}.`, names);
  }
  return [found];
}

/** The corridor's limits, or (given an amount) the band around it where the same requirements hold. */
function amountBand(corridor: CorridorFacts, spec: RequirementSpec, amount?: number): Band {
  const { minAmount: min, maxAmount: max, receivingCurrency: cur } = corridor;
  if (amount === undefined) return { min, max };
  const step = spec.amount.increment;
  if (!Number.isSafeInteger(amount) || amount < min || amount > max || amount % step)
    throw new RequirementOptionError(
      "amount",
      `amount must be a whole number of minor units of ${cur} from ${formatMinor(min, cur)} to ${formatMinor(max, cur)}, in steps of ${formatMinor(step, cur)}.`,
    );
  const thresholds = amountThresholds(spec);
  const below = thresholds.filter((t) => t <= amount).pop();
  const above = thresholds.find((t) => t > amount);
  return { min: Math.max(min, below ?? min), max: Math.min(max, above === undefined ? max : above - step), amount };
}

function describe(corridor: CorridorFacts, band: Band) {
  const cur = corridor.receivingCurrency;
  const what = `${cur} to a ${TYPE_NAMES[corridor.receivingInstitutionType] ?? corridor.receivingInstitutionType} in ${countryName(corridor.receivingCountry)}`;
  const parts = [`The request body of a payout dry run on corridor ${corridor.id}: ${what}.`];
  if (band.amount !== undefined)
    parts.push(`Resolved for ${formatMinor(band.amount, cur)}: it holds for amounts from ${formatMinor(band.min, cur)} to ${formatMinor(band.max, cur)}.`);
  if (corridor.status && corridor.status !== "ACTIVE") parts.push(`This corridor is ${corridor.status}: payouts on it are refused.`);
  return parts.join(" ");
}

function amountSchema(corridor: CorridorFacts, spec: RequirementSpec, band: Band): JsonSchema {
  const cur = corridor.receivingCurrency;
  const digits = minorUnitDigits(cur);
  const step = spec.amount.increment;
  return {
    type: "integer",
    title: "Amount",
    description: `In minor units of ${cur} (${digits} decimal digits: ${10 ** digits} is ${formatMinor(10 ** digits, cur)}), from ${formatMinor(band.min, cur)} to ${formatMinor(band.max, cur)} in steps of ${formatMinor(step, cur)}.`,
    minimum: band.min,
    maximum: band.max,
    multipleOf: step,
    "x-currency": cur,
    "x-minor-unit-digits": digits,
  };
}

function payoutMethodSchema(alternatives: AlternativeSpec[], chosen: boolean): JsonSchema {
  const base = {
    type: "string",
    title: "Payout method",
    description: "Which payout method the beneficiary's fields follow; optional: without it, the fields decide.",
  };
  if (chosen) return { ...base, const: alternatives[0].payout_method };
  return { ...base, oneOf: alternatives.map((a) => ({ const: a.payout_method, title: a.label })) };
}

function beneficiarySchema(spec: RequirementSpec, alt: AlternativeSpec, extra: string[], institutions: SchemaOptions["institutions"]) {
  const description = alt.description ?? "The person receiving the money.";
  return objectSchema(`Beneficiary: ${alt.label}`, description, [...spec.beneficiary.fields, ...alt.fields], extra, institutions);
}

function objectSchema(title: string, description: string, fields: FieldSpec[], extra: string[], institutions: SchemaOptions["institutions"]): JsonSchema {
  return {
    type: "object",
    title,
    description,
    required: [...new Set([...fields.filter((f) => f.required).map((f) => f.key), ...extra])],
    properties: Object.fromEntries(fields.map((f) => [f.key, fieldSchema(f, institutions)])),
    additionalProperties: false,
  };
}

function fieldSchema(f: FieldSpec, institutions: SchemaOptions["institutions"]): JsonSchema {
  const s: JsonSchema = { type: "string", title: f.label };
  if (f.description) s.description = f.description;
  s.minLength = f.min_length ?? 1;
  if (f.max_length !== undefined) s.maxLength = f.max_length;
  if (f.pattern) s.pattern = f.pattern;
  if (f.format && !LOOKUP_FORMATS.has(f.format)) s.format = f.format;
  if (f.enum) s.oneOf = f.enum.map((e) => ({ const: e.value, title: e.label }));
  const how = f.institution;
  if (how && institutions && (how.by === "id" || f.format === "local_code")) {
    const listed = institutions.filter((i) => how.by === "id" || (i.localCodeType === how.local_code_type && i.localCode));
    if (listed.length) s.oneOf = listed.map((i) => ({ const: how.by === "id" ? i.id : i.localCode, title: i.name }));
  }
  return s;
}

function documentsSchema(spec: RequirementSpec, corridor: CorridorFacts, always: string[]): JsonSchema {
  const cur = corridor.receivingCurrency;
  const s: JsonSchema = {
    type: "array",
    title: "Documents",
    description: "Documents already uploaded through the documents API, each naming the requirement it meets.",
    maxItems: MAX_PAYOUT_DOCUMENTS,
    items: {
      type: "object",
      required: ["requirement", "document_id"],
      properties: {
        requirement: {
          type: "string",
          title: "Requirement",
          oneOf: spec.documents.map((d) => ({
            const: d.key,
            title: d.label,
            description: `${d.description ? `${d.description} ` : ""}The ${d.party}'s document, one of ${d.accepted_types.join(", ")}; required from ${formatMinor(d.min_amount, cur)}.`,
          })),
        },
        document_id: { type: "string", title: "Document id", format: "uuid", pattern: UUID_PATTERN },
      },
      additionalProperties: false,
    },
  };
  if (always.length) s.allOf = always.map(contains);
  return s;
}

// every subschema says its type, so Ajv's default strict mode (strictTypes) has nothing to warn about
const contains = (key: string): JsonSchema => ({
  type: "array",
  contains: { type: "object", properties: { requirement: { const: key } }, required: ["requirement"] },
});
const amountIf = (from: number): JsonSchema => ({ type: "object", properties: { amount: { type: "integer", minimum: from } }, required: ["amount"] });
/** JSON Schema's if/then: the one place the keyword `then` is written (a schema is data, never awaited) */
const ifThen = (description: string, condition: JsonSchema, then: JsonSchema): JsonSchema => ({
  description,
  if: condition,
  then,
});
const documentIf = (description: string, from: number, key: string) =>
  ifThen(description, amountIf(from), { type: "object", required: ["documents"], properties: { documents: contains(key) } });
const section = (target: string) => target.split(".")[0] as "sender" | "beneficiary";
const field = (target: string) => target.split(".")[1];

/** the beneficiary field naming the institution; institution conditions need it to be the same in every payout method */
const institutionKey = (spec: RequirementSpec) => spec.beneficiary.alternatives[0].fields.find((f) => f.institution)?.key ?? "institution_id";

function conditionSchema(when: ConditionSpec["when"], cond: ConditionSpec, institutionField: string): JsonSchema {
  const parts: JsonSchema[] = [];
  if (when.amount_at_least !== undefined) parts.push(amountIf(when.amount_at_least));
  // checkRequirementRow allows institution conditions only where every payout method has the institution_id field
  if (when.institution_ids)
    parts.push({
      type: "object",
      properties: { beneficiary: { type: "object", properties: { [institutionField]: { enum: when.institution_ids } }, required: [institutionField] } },
      required: ["beneficiary"],
    });
  const then: JsonSchema = { type: "object", properties: {}, required: [] };
  for (const name of ["sender", "beneficiary"] as const) {
    const keys = cond.require.filter((t) => section(t) === name).map(field);
    if (keys.length) {
      (then.properties as JsonSchema)[name] = { type: "object", required: keys };
      (then.required as string[]).push(name);
    }
  }
  return ifThen(cond.reason, parts.length === 1 ? parts[0] : { allOf: parts }, then);
}

const inBand = (body: Record<string, unknown>, band: Band) =>
  band.amount === undefined || (typeof body.amount === "number" && body.amount >= band.min && body.amount <= band.max);

/** An example's payout method: the one it names, else the first whose own required fields its beneficiary has. */
function methodOf(spec: RequirementSpec, body: Record<string, unknown>): string | undefined {
  if (typeof body.payout_method === "string") return body.payout_method;
  const b = (body.beneficiary ?? {}) as Record<string, unknown>;
  return spec.beneficiary.alternatives.find((alt) => alt.fields.every((f) => !f.required || b[f.key] !== undefined))?.payout_method;
}

/**
 * The requirement catalogue's format: what a corridor asks of the sender and the beneficiary, as
 * data (zod schema + the types inferred from it). Keys are snake_case, exactly as in
 * data/remittance/requirements.json, so the spec is stored and served as written: no key mapping
 * stands between the curated file, the database and the JSON Schema built from it.
 * docs/corridor-requirements.md describes the format for API users.
 */
import { z } from "zod";
import { DOCUMENT_TYPES } from "../../../kernel/document-types.js";

/** Error categories of a dry run, in the order an API user reads them. */
export const REQUIREMENT_CATEGORIES = ["field_missing", "incorrect_format", "not_allowed", "unknown_institution", "amount_out_of_range"] as const;
export type RequirementCategory = (typeof REQUIREMENT_CATEGORIES)[number];

/**
 * Format names a field may carry. Each picks the check the dry run makes beyond the pattern
 * (requirements.formats.ts) and is published as the JSON Schema `format` annotation, except the
 * two catalogue lookups, which no schema validator could check.
 */
const FIELD_FORMATS = ["iban", "bic", "ifsc", "clabe", "nuban", "e164", "date", "country", "card_number", "institution_id", "local_code"] as const;
export type FieldFormat = (typeof FIELD_FORMATS)[number];

/** snake_case wire names made of letters only, so a camelCase round trip (lib/case.ts) is exact */
const KEY = /^[a-z]+(_[a-z]+)*$/;
const key = z.string().regex(KEY, "must be snake_case letters such as account_number");
const text = (max: number) => z.string().trim().min(1).max(max);
const minor = z.int().min(1).max(Number.MAX_SAFE_INTEGER);

const compiles = (source: string) => {
  try {
    new RegExp(source, "u");
    return true;
  } catch {
    return false;
  }
};

const fieldSchema = z.strictObject({
  key,
  label: text(100),
  description: text(500).optional(),
  // every field is text: codes keep their leading zeros, and amounts are not fields
  type: z.literal("string"),
  required: z.boolean(),
  format: z.enum(FIELD_FORMATS).optional(),
  /** ECMA-262 with the `u` flag, as JSON Schema (and Ajv) read it; checked against the trimmed value */
  pattern: z.string().min(1).max(300).refine(compiles, "must be a valid regular expression").optional(),
  min_length: z.int().min(1).max(1000).optional(),
  max_length: z.int().min(1).max(1000).optional(),
  enum: z
    .array(z.strictObject({ value: z.string().min(1).max(64), label: text(100) }))
    .min(1)
    .optional(),
  /** the value is a code: upper-cased after trimming (IFSC, BIC, ...) */
  upper: z.boolean().optional(),
  /** the field names the receiving institution: by our catalogue id, or by a local code the value is or begins with */
  institution: z
    .discriminatedUnion("by", [
      z.strictObject({ by: z.literal("id") }),
      z.strictObject({ by: z.literal("local_code"), local_code_type: z.string().regex(/^[A-Z][A-Z0-9_]{1,31}$/) }),
    ])
    .optional(),
});

const alternativeSchema = z.strictObject({
  /** the `payout_method` query parameter and body field pick it */
  payout_method: key,
  label: text(100),
  description: text(500).optional(),
  fields: z.array(fieldSchema).min(1),
});

const conditionSchema = z.strictObject({
  /** every condition given must hold */
  when: z
    .strictObject({ amount_at_least: minor.optional(), institution_ids: z.array(z.string().min(1).max(100)).min(1).optional() })
    .refine((w) => w.amount_at_least !== undefined || w.institution_ids !== undefined, "needs amount_at_least or institution_ids"),
  /** `sender.<key>` or `beneficiary.<key>` of a field every payout method has */
  require: z.array(z.string().regex(/^(sender|beneficiary)\.[a-z]+(_[a-z]+)*$/, "must be sender.<field> or beneficiary.<field>")).min(1),
  reason: text(500),
});

const documentSchema = z.strictObject({
  key,
  label: text(100),
  description: text(500).optional(),
  party: z.enum(["sender", "beneficiary"]),
  accepted_types: z.array(z.enum(DOCUMENT_TYPES)).min(1),
  /** required from this amount (minor units) on */
  min_amount: minor,
});

const body = z.record(z.string(), z.unknown());
const expectedError = z.strictObject({ path: z.string().max(200), category: z.enum(REQUIREMENT_CATEGORIES) });

export const requirementSpecSchema = z.strictObject({
  /** minor units: every amount is a multiple of it (1 = any minor unit, 100 = whole units of a 2-digit currency) */
  amount: z.strictObject({ increment: minor }),
  sender: z.strictObject({ fields: z.array(fieldSchema).min(1) }),
  beneficiary: z.strictObject({
    /** fields every payout method asks for */
    fields: z.array(fieldSchema),
    /** payout methods in preference order: the JSON Schema's `oneOf` */
    alternatives: z.array(alternativeSchema).min(1),
  }),
  conditions: z.array(conditionSchema),
  purposes: z.strictObject({
    required: z.boolean(),
    /** where the codes come from (a regulator's list, or the product's own) */
    source: text(300),
    codes: z.array(z.strictObject({ code: z.string().regex(/^[A-Z0-9_]{2,32}$/), label: text(200) })).min(1),
  }),
  documents: z.array(documentSchema),
  /** valid request bodies, published in the JSON Schema's `examples` */
  examples: z.array(z.strictObject({ title: text(200), body })).min(1),
  /** invalid bodies with the errors the dry run returns; `schema_can_tell` false when only a lookup or a checksum sees the problem */
  invalid_examples: z.array(z.strictObject({ title: text(200), body, schema_can_tell: z.boolean(), errors: z.array(expectedError).min(1) })).min(1),
});

export type RequirementSpec = z.output<typeof requirementSpecSchema>;
export type FieldSpec = z.output<typeof fieldSchema>;
export type AlternativeSpec = z.output<typeof alternativeSchema>;
export type ConditionSpec = z.output<typeof conditionSchema>;
export type DocumentSpec = z.output<typeof documentSchema>;

/** One version of a corridor's requirements, as checkRequirementRow returns it. */
export type RequirementRow = { corridorId: string; version: number; effectiveAt: Date; source: string; spec: RequirementSpec };

/** What the schema builder and the validator need of a corridor (amounts in minor units). */
export type CorridorFacts = {
  id: string;
  receivingCountry: string;
  receivingCurrency: string;
  receivingInstitutionType: string;
  minAmount: number;
  maxAmount: number;
  status: string | null;
};

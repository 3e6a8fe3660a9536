/**
 * Country rule sets, pure: the file format (zod, every error named by its path in the file)
 * and `evaluate`, which turns a rule set and what is known of a user into
 * `{currentlyDue, eventuallyDue, errors}`. Names are REST field names, the same strings in both
 * transports; document groups are `documents.<name>`, verifications `phone_verified` / `email_verified`.
 */
import { z } from "zod";
import { toAlpha2 } from "../../lib/countries.js";
import { invalid, type FieldError } from "../../lib/errors.js";
import { parseIsoDate } from "../../lib/dates.js";
import { DOCUMENT_TYPES } from "../../kernel/document-types.js";

const RULE_FIELDS = [
  "first_name",
  "middle_name",
  "last_name",
  "date_of_birth",
  "email",
  "phone_number",
  "nationality",
  "country_of_residence",
  "residential_address",
  "residential_address.postal_code",
  "billing_address",
  "tax_id",
] as const;
type RuleField = (typeof RULE_FIELDS)[number];

export const DEFAULT_COUNTRY = "DEFAULT";

const compiles = (source: string) => {
  try {
    new RegExp(source, "iu");
    return true;
  } catch {
    return false;
  }
};
const pattern = z.string().max(300).refine(compiles, "must be a valid regular expression").nullable();

const ruleSetSchema = z.strictObject({
  country: z.string().transform((c, ctx) => {
    const code = c === DEFAULT_COUNTRY ? c : toAlpha2(c);
    if (!code) ctx.addIssue({ code: "custom", message: "must be an ISO 3166-1 alpha-2 (or alpha-3) code, or DEFAULT" });
    return code ?? c;
  }),
  version: z.number().int().min(1).max(1_000_000),
  effective_from: z
    .string()
    .refine((v) => parseIsoDate(v) !== null || (/^\d{4}-\d{2}-\d{2}T/.test(v) && !Number.isNaN(Date.parse(v))), "must be YYYY-MM-DD or an ISO 8601 instant"),
  name: z.string().min(1).max(200),
  required_fields: z.array(z.enum(RULE_FIELDS)),
  eventually_due_fields: z.array(z.enum(RULE_FIELDS)),
  documents: z
    .array(
      z.strictObject({
        name: z.string().regex(/^[a-z][a-z0-9_]{0,39}$/, "must be lower-case letters, digits and _"),
        one_of: z.array(z.enum(DOCUMENT_TYPES)).min(1),
      }),
    )
    .refine((groups) => new Set(groups.map((g) => g.name)).size === groups.length, "group names must be unique"),
  formats: z.strictObject({ postal_code: pattern, tax_id: pattern }),
  minimum_age: z.number().int().min(0).max(120),
  phone_verification_required: z.boolean(),
  email_verification_required: z.boolean(),
  rescreening_interval_days: z.number().int().min(1).max(3650),
  notes: z.record(z.string(), z.string()).optional(),
});
export type RuleSetBody = z.output<typeof ruleSetSchema>;

/** A rule set file's content, checked whole: every problem is reported, named by its path in the file. */
export function parseRuleSet(value: unknown): RuleSetBody {
  const parsed = ruleSetSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw invalid(
    parsed.error.issues.slice(0, 20).flatMap((issue): FieldError[] => {
      const at = (key?: string) => [...issue.path, ...(key ? [key] : [])].join(".") || "file";
      if (issue.code === "unrecognized_keys")
        return issue.keys.map((key) => ({ field: at(key), code: "unknown_field", message: `${at(key)} is not a rule set field.` }));
      return [{ field: at(), code: issue.code, message: `${at()}: ${issue.message}` }];
    }),
  );
}

export const effectiveFromOf = (body: RuleSetBody) =>
  new Date(parseIsoDate(body.effective_from) ? `${body.effective_from}T00:00:00.000Z` : body.effective_from);

/** A rule set ready to evaluate: the body plus its compiled formats. */
export type CompiledRuleSet = {
  country: string;
  version: number;
  effectiveFrom: Date;
  body: RuleSetBody;
  formats: { postalCode: RegExp | null; taxId: RegExp | null };
};

const whole = (source: string | null) => (source ? new RegExp(`^(?:${source})$`, "iu") : null);
export const compileRuleSet = (row: { country: string; version: number; effectiveFrom: Date; body: unknown }): CompiledRuleSet => {
  const body = row.body as RuleSetBody;
  return {
    country: row.country,
    version: row.version,
    effectiveFrom: row.effectiveFrom,
    body,
    formats: { postalCode: whole(body.formats.postal_code), taxId: whole(body.formats.tax_id) },
  };
};

type AddressLike = { postalCode?: string | null } | null;
export type DocumentFact = { documentType: string; status: string; expiryDate: Date | null; invalidReason?: string | null };

/** What is known of a user. `taxId` is the decrypted value (kept in memory only), `undefined` when unreadable. */
export type Subject = {
  firstName?: string | null;
  middleName?: string | null;
  lastName?: string | null;
  dateOfBirth?: Date | null;
  email?: string | null;
  phoneNumber?: string | null;
  nationality?: string | null;
  countryOfResidence?: string | null;
  residentialAddress?: unknown;
  billingAddress?: unknown;
  taxId?: string | null;
  emailVerified: boolean;
  phoneVerified: boolean;
  documents: DocumentFact[];
};

export type Requirements = { currentlyDue: string[]; eventuallyDue: string[]; errors: FieldError[] };

const VALUE: Record<RuleField, (s: Subject) => unknown> = {
  first_name: (s) => s.firstName,
  middle_name: (s) => s.middleName,
  last_name: (s) => s.lastName,
  date_of_birth: (s) => s.dateOfBirth,
  email: (s) => s.email,
  phone_number: (s) => s.phoneNumber,
  nationality: (s) => s.nationality,
  country_of_residence: (s) => s.countryOfResidence,
  residential_address: (s) => s.residentialAddress,
  "residential_address.postal_code": (s) => (s.residentialAddress as AddressLike)?.postalCode,
  billing_address: (s) => s.billingAddress,
  tax_id: (s) => s.taxId,
};
const missing = (s: Subject, field: RuleField) => VALUE[field](s) == null || VALUE[field](s) === "";

/** Whole years from `born` to `on`, by the calendar (UTC). */
function ageOn(born: Date, on: Date) {
  const years = on.getUTCFullYear() - born.getUTCFullYear();
  const before = on.getUTCMonth() < born.getUTCMonth() || (on.getUTCMonth() === born.getUTCMonth() && on.getUTCDate() < born.getUTCDate());
  return years - (before ? 1 : 0);
}

/** ACTIVE and not past its expiry date: the only documents that satisfy a group. */
const usable = (doc: DocumentFact, now: Date) => doc.status === "ACTIVE" && (!doc.expiryDate || doc.expiryDate.getTime() > now.getTime());

/**
 * Which groups can be satisfied, each by its own document (a passport counts once even if two groups
 * accept it): a maximum bipartite matching by augmenting paths; groups and documents are few.
 */
export function unsatisfiedGroups(groups: RuleSetBody["documents"], documents: DocumentFact[], now: Date) {
  const docs = documents.filter((d) => usable(d, now));
  const owner = new Array<number>(docs.length).fill(-1);
  const assign = (g: number, seen: Set<number>): boolean => {
    for (let d = 0; d < docs.length; d++) {
      if (seen.has(d) || !(groups[g].one_of as string[]).includes(docs[d].documentType)) continue;
      seen.add(d);
      if (owner[d] === -1 || assign(owner[d], seen)) {
        owner[d] = g;
        return true;
      }
    }
    return false;
  };
  return groups.filter((_, g) => !assign(g, new Set()));
}

export function evaluate(rules: CompiledRuleSet, s: Subject, now: Date): Requirements {
  const { body } = rules;
  const where = rules.country === DEFAULT_COUNTRY ? "by default" : `in ${rules.country}`;
  const due = new Set<string>();
  const errors: FieldError[] = [];
  const error = (field: string, code: string, message: string) => {
    errors.push({ field, code, message });
    due.add(field);
  };

  for (const field of body.required_fields) if (missing(s, field)) due.add(field);
  if (body.phone_verification_required && !s.phoneNumber) due.add("phone_number");
  if (body.email_verification_required && !s.email) due.add("email");

  const postal = (s.residentialAddress as AddressLike)?.postalCode;
  if (postal && rules.formats.postalCode && !rules.formats.postalCode.test(postal.trim()))
    error("residential_address.postal_code", "invalid_format", `residential_address.postal_code is not a valid postal code ${where}.`);
  if (s.taxId === undefined) error("tax_id", "unreadable", "tax_id cannot be read back; send it again.");
  else if (s.taxId && rules.formats.taxId && !rules.formats.taxId.test(s.taxId))
    error("tax_id", "invalid_format", `tax_id does not have the format of a tax id ${where}.`);
  if (s.dateOfBirth && ageOn(s.dateOfBirth, now) < body.minimum_age)
    error("date_of_birth", "under_minimum_age", `The user must be at least ${body.minimum_age} years old ${where}.`);

  for (const group of unsatisfiedGroups(body.documents, s.documents, now)) due.add(`documents.${group.name}`);
  if (body.phone_verification_required && !s.phoneVerified) due.add("phone_verified");
  if (body.email_verification_required && !s.emailVerified) due.add("email_verified");

  const currentlyDue = [...due];
  const later = body.eventually_due_fields.filter((f) => missing(s, f) && !due.has(f));
  return { currentlyDue, eventuallyDue: [...currentlyDue, ...later], errors };
}

/** What a user of the country owes before giving anything: the rule set read as a checklist (no tax id given, which is not an unreadable one). */
export const blankSubject: Subject = { taxId: null, emailVerified: false, phoneVerified: false, documents: [] };

/** A due item as a field error (REQUIREMENTS_DUE lists them in `errors[]`). */
export function dueAsFieldErrors(rules: CompiledRuleSet, requirements: Requirements): FieldError[] {
  const specific = new Map(requirements.errors.map((e) => [e.field, e]));
  return requirements.currentlyDue.map((field) => specific.get(field) ?? { field, code: "required", message: describeDue(rules, field) });
}

function describeDue(rules: CompiledRuleSet, item: string) {
  if (item.startsWith("documents.")) {
    const group = rules.body.documents.find((g) => `documents.${g.name}` === item);
    return `An ACTIVE, unexpired document of one of the types ${group?.one_of.join(", ")} is needed.`;
  }
  if (item === "phone_verified" || item === "email_verified")
    return `The ${item === "phone_verified" ? "phone number" : "email address"} must be verified by OTP.`;
  return `${item} is required.`;
}

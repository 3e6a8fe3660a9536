/**
 * Checks one row of the requirement catalogue (data/remittance/requirements.json, an import, an
 * admin edit): the shape with zod, then what a shape cannot say (unique keys, one institution
 * field per payout method, conditions naming fields that exist). Every problem is pushed, named the
 * way checkRow names its fields (camelCase paths; the import's namer turns them into snake_case).
 */
import { toCamel, toSnake } from "../../../lib/case.js";
import type { FieldError } from "../../../lib/errors.js";
import type { FieldNamer } from "../remittance.rules.js";
import { requirementSpecSchema, type FieldSpec, type RequirementRow, type RequirementSpec } from "./requirements.spec.js";

const ROW_KEYS = ["corridor_id", "version", "effective_at", "source"] as const;
/** ISO 8601 in UTC, with or without fractions: the `effective_at` the catalogue writes */
const UTC_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

/**
 * Deep snake_case keys. The file is snake_case already; a caller that ran camelKeys over the row
 * (as the reference import does) gets it back exactly, since every key is letters joined by `_`.
 */
function snakeKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeKeys);
  if (value && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [toSnake(k), snakeKeys(v)]));
  return value;
}

const camelPath = (path: PropertyKey[]) => path.map((p) => toCamel(String(p))).join(".");

/** Checks a requirement row (snake_case as in the file, or camelCase keys) and pushes every problem. */
export function checkRequirementRow(input: Record<string, unknown>, name: FieldNamer, errors: FieldError[]): RequirementRow | undefined {
  const before = errors.length;
  const push = (path: PropertyKey[], message: string, code = "invalid") => {
    const field = name(camelPath(path));
    errors.push({ field, code, message: `${field} ${message}` });
  };
  const row = snakeKeys(input) as Record<string, unknown>;
  const { corridor_id: corridorId, version, effective_at: effectiveAt, source, ...spec } = row;
  for (const k of ROW_KEYS) if (row[k] == null || row[k] === "") push([k], "is required.", "required");
  if (corridorId != null && !(typeof corridorId === "string" && /^[a-z0-9][a-z0-9._-]{0,99}$/.test(corridorId)))
    push(["corridor_id"], "must be a corridor id such as in-inr-bank.");
  if (version != null && !(Number.isSafeInteger(version) && (version as number) >= 1)) push(["version"], "must be a whole number from 1.");
  if (effectiveAt != null && !(typeof effectiveAt === "string" && UTC_INSTANT.test(effectiveAt) && !Number.isNaN(Date.parse(effectiveAt))))
    push(["effective_at"], "must be an ISO 8601 instant in UTC, e.g. 2026-01-01T00:00:00Z.");
  if (source != null && !(typeof source === "string" && source.trim().length >= 1 && source.length <= 1000))
    push(["source"], "must be 1 to 1000 characters naming the public source.");

  const parsed = requirementSpecSchema.safeParse(spec);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      if (issue.code === "unrecognized_keys") for (const k of issue.keys) push([...issue.path, k], "is not a field of a requirement row.", "unknown_field");
      else if (valueAt(spec, issue.path) === undefined) push(issue.path, "is required.", "required");
      else push(issue.path, `is not valid: ${issue.message}.`);
    }
  } else checkMeaning(parsed.data, push);
  if (errors.length !== before) return undefined;
  return {
    corridorId: corridorId as string,
    version: version as number,
    effectiveAt: new Date(effectiveAt as string),
    source: (source as string).trim(),
    spec: parsed.data!,
  };
}

function valueAt(value: unknown, path: PropertyKey[]): unknown {
  let at = value;
  for (const p of path) at = at && typeof at === "object" ? (at as Record<PropertyKey, unknown>)[p] : undefined;
  return at;
}

type Push = (path: PropertyKey[], message: string) => void;

/** The rules across fields, which the shape cannot hold. */
function checkMeaning(spec: RequirementSpec, push: Push) {
  const { increment } = spec.amount;
  const common = spec.beneficiary.fields;
  unique(spec.sender.fields, ["sender", "fields"], push);
  unique(common, ["beneficiary", "fields"], push);
  spec.sender.fields.forEach((f, i) => checkField(f, ["sender", "fields", i], push));
  common.forEach((f, i) => checkField(f, ["beneficiary", "fields", i], push));
  if (common.some((f) => f.institution)) push(["beneficiary", "fields"], "must not name the institution: each payout method does.");
  if (spec.sender.fields.some((f) => f.institution)) push(["sender", "fields"], "must not name an institution.");
  const methods = new Set<string>();
  spec.beneficiary.alternatives.forEach((alt, a) => {
    const at = ["beneficiary", "alternatives", a];
    if (methods.has(alt.payout_method)) push([...at, "payout_method"], "repeats an earlier payout method.");
    methods.add(alt.payout_method);
    unique([...common, ...alt.fields], [...at, "fields"], push);
    alt.fields.forEach((f, i) => checkField(f, [...at, "fields", i], push));
    const naming = alt.fields.filter((f) => f.institution);
    if (naming.length !== 1) push([...at, "fields"], "must have exactly one field naming the institution (institution_id or a code).");
    else if (!naming[0].required) push([...at, "fields"], "must require the field naming the institution: a payout goes to one.");
    if (
      alt.fields.some((f) => f.format === "nuban")
      && !alt.fields.some((f) => f.institution?.by === "local_code" && f.institution.local_code_type === "NIBSS_CODE")
    )
      push([...at, "fields"], "has a nuban field but no bank code field (local_code_type NIBSS_CODE) for its check digit.");
  });
  const senderKeys = new Set(spec.sender.fields.map((f) => f.key));
  const commonKeys = new Set(common.map((f) => f.key));
  const naming = spec.beneficiary.alternatives.map((alt) => alt.fields.find((f) => f.institution));
  // a condition on the institution is a JSON Schema `if` on one field: every payout method must have it
  const oneIdField = naming.every((f) => f?.institution?.by === "id") && new Set(naming.map((f) => f?.key)).size === 1;
  spec.conditions.forEach((c, i) => {
    for (const target of c.require) {
      const [section, field] = target.split(".");
      if (!(section === "sender" ? senderKeys : commonKeys).has(field))
        push(["conditions", i, "require"], `names ${target}, which is not a ${section} field every payout method has.`);
    }
    if (c.when.amount_at_least !== undefined && c.when.amount_at_least % increment)
      push(["conditions", i, "when", "amount_at_least"], `must be a multiple of the amount increment (${increment}).`);
    if (c.when.institution_ids && !oneIdField)
      push(["conditions", i, "when", "institution_ids"], "needs every payout method to name the institution by the same institution_id field.");
  });
  unique(spec.documents, ["documents"], push);
  spec.documents.forEach((d, i) => {
    if (d.min_amount % increment) push(["documents", i, "min_amount"], `must be a multiple of the amount increment (${increment}).`);
  });
  const codes = spec.purposes.codes.map((c) => c.code);
  if (new Set(codes).size !== codes.length) push(["purposes", "codes"], "repeats a code.");
}

function unique(items: { key: string }[], at: PropertyKey[], push: Push) {
  const seen = new Set<string>();
  for (const item of items) {
    if (seen.has(item.key)) push(at, `repeats the key ${item.key}.`);
    seen.add(item.key);
  }
}

function checkField(f: FieldSpec, at: PropertyKey[], push: Push) {
  if (f.min_length && f.max_length && f.min_length > f.max_length) push([...at, "min_length"], "must not exceed max_length.");
  if (f.enum && new Set(f.enum.map((e) => e.value)).size !== f.enum.length) push([...at, "enum"], "repeats a value.");
  if ((f.format === "institution_id") !== (f.institution?.by === "id"))
    push([...at, "institution"], "by id goes with format institution_id, and only with it.");
  if (f.format === "local_code" && f.institution?.by !== "local_code") push([...at, "institution"], "must be by local_code for format local_code.");
  if (f.institution?.by === "local_code" && !["local_code", "ifsc", "clabe", "iban", "card_number"].includes(f.format ?? ""))
    push([...at, "format"], "must say how the code is read from the value (local_code, ifsc, clabe, iban or card_number).");
}

/** The version of a corridor's requirements in effect at `at`: the highest version whose effective_at has passed. */
export function requirementsInEffect<R extends Pick<RequirementRow, "corridorId" | "version" | "effectiveAt">>(
  rows: readonly R[],
  corridorId: string,
  at: Date = new Date(),
): R | undefined {
  let best: R | undefined;
  for (const r of rows) if (r.corridorId === corridorId && r.effectiveAt <= at && (!best || r.version > best.version)) best = r;
  return best;
}

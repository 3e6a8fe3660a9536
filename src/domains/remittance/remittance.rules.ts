/**
 * Remittance lookup rules, pure and shared by GraphQL, REST, the CLI import and admin mutations:
 * country parameters (alpha-2, alpha-3 or English name), enum values (case-insensitive, `-` or `_`),
 * sort parameters, the accent-free search key, and the checks on an imported or edited row.
 * Errors name the field in camelCase; the REST shim shows it in snake_case.
 */
import { toAlpha2 } from "../../lib/countries.js";
import { oneOf, type Sort } from "../../lib/choices.js";
import { invalid, type FieldError } from "../../lib/errors.js";

const INSTITUTION_TYPES = ["BANK", "MOBILE_WALLET", "CASH_PICKUP", "CARDS"] as const;
const STATUSES = ["ACTIVE", "INACTIVE"] as const;
export const USER_TYPES = ["INDIVIDUAL", "BUSINESS"] as const;
export type InstitutionType = (typeof INSTITUTION_TYPES)[number];
export type Status = (typeof STATUSES)[number];
export type UserType = (typeof USER_TYPES)[number];

/** Lower-case, diacritics removed: "Peso Uruguayo", "PESO" and "péso" all meet at "peso". */
export const searchKey = (...parts: (string | null | undefined)[]) =>
  parts
    .filter(Boolean)
    .join(" ")
    .normalize("NFD")
    .replace(/\p{Diacritic}/gu, "")
    .toLowerCase()
    .replace(/\s+/g, " ")
    .trim();

const fail = (errors: FieldError[], field: string, message: string, code = "invalid") => {
  errors.push({ field, code, message });
  return undefined;
};

/** One enum value, written any case with `-` or `_` (`mobile-wallet` → MOBILE_WALLET). */
const enumValue = oneOf;

const countryCode = (raw: unknown, field: string, errors: FieldError[]) =>
  toAlpha2(String(raw), { allowName: true }) ?? fail(errors, field, `${field} must be an ISO 3166-1 alpha-2 or alpha-3 code or an English country name.`);

/** Runs `checks` on the given (non-empty) values only and throws every error at once. */
export function parseArgs<T extends Record<string, unknown>>(
  args: Record<string, unknown>,
  checks: { [K in keyof T]: (raw: unknown, field: string, errors: FieldError[]) => T[K] | undefined },
): Partial<T> {
  const errors: FieldError[] = [];
  const out: Partial<T> = {};
  for (const [field, check] of Object.entries(checks) as [keyof T & string, (raw: unknown, field: string, errors: FieldError[]) => unknown][]) {
    const raw = args[field];
    if (raw == null || raw === "" || (Array.isArray(raw) && !raw.length)) continue;
    out[field] = check(raw, field, errors) as T[typeof field];
  }
  if (errors.length) throw invalid(errors);
  return out;
}

/** Argument checkers, one per filter name, used by the lookups service. */
export const arg = {
  type: (raw: unknown, f: string, e: FieldError[]) => enumValue(INSTITUTION_TYPES, raw, f, e),
  status: (raw: unknown, f: string, e: FieldError[]) => enumValue(STATUSES, raw, f, e),
  userType: (raw: unknown, f: string, e: FieldError[]) => enumValue(USER_TYPES, raw, f, e),
  country: countryCode,
  countries: (raw: unknown, f: string, e: FieldError[]) => {
    const codes = (raw as string[]).flatMap((v) => String(v).split(",")).map((v, i) => countryCode(v, `${f}.${i}`, e));
    return codes.every(Boolean) ? (codes as string[]) : undefined;
  },
  text: (raw: unknown) => searchKey(String(raw)) || undefined,
  /** a `contains` term: Prisma passes % and _ through to LIKE, so they are escaped here */
  like: (raw: unknown) => searchKey(String(raw)).replace(/[\\%_]/g, "\\$&") || undefined,
  currency: (raw: unknown, f: string, e: FieldError[]) =>
    /^[a-z]{3}$/i.test(String(raw).trim()) ? String(raw).trim().toUpperCase() : fail(e, f, `${f} must be an ISO 4217 code such as PHP.`),
};

/** `sort=code|name|-code|-name` (currencies, kept as an alias of sort_fields + sort_order): a leading `-` means descending. */
export function parseCurrencySort(sort?: string | null): Sort<"code" | "name"> {
  if (!sort) return { field: "code", order: "asc" };
  const desc = sort.trim().startsWith("-");
  const field = sort.trim().replace(/^[-+]/, "").toLowerCase();
  if (field !== "code" && field !== "name") throw invalid([{ field: "sort", code: "invalid", message: "sort must be code, name, -code or -name." }]);
  return { field, order: desc ? "desc" : "asc" };
}

// ── rows written by the import and the admin mutations ──

type Check = (raw: unknown, field: string, errors: FieldError[]) => unknown;
const text =
  (max: number): Check =>
  (raw, f, e) => {
    const v = String(raw).trim();
    return v.length >= 1 && v.length <= max ? v : fail(e, f, `${f} must be 1 to ${max} characters.`);
  };
const slug: Check = (raw, f, e) =>
  /^[a-z0-9][a-z0-9._-]{0,99}$/.test(String(raw)) ? String(raw) : fail(e, f, `${f} must be lower-case letters, digits, '.', '_' or '-' (at most 100).`);
const bic: Check = (raw, f, e) =>
  /^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(String(raw)) ? String(raw) : fail(e, f, `${f} must be an 8 or 11 character BIC.`);
/** an integer, also when a CSV cell spells it as text */
const count =
  (max = Number.MAX_SAFE_INTEGER): Check =>
  (raw, f, e) => {
    const n = typeof raw === "string" && /^\d+$/.test(raw.trim()) ? Number(raw) : raw;
    return Number.isSafeInteger(n) && (n as number) >= 0 && (n as number) <= max ? n : fail(e, f, `${f} must be a whole number from 0 to ${max}.`);
  };
const list =
  (item: Check): Check =>
  (raw, f, e) => {
    if (!Array.isArray(raw)) return fail(e, f, `${f} must be a list.`);
    const out = raw.map((v, i) => item(v, `${f}.${i}`, e));
    return out.every((v) => v !== undefined) ? [...new Set(out)] : undefined;
  };
const fieldName: Check = (raw, f, e) =>
  /^[a-z][a-z0-9_]{0,63}$/.test(String(raw)) ? String(raw) : fail(e, f, `${f} must be a snake_case field name such as account_number.`);
const pick =
  (values: readonly string[]): Check =>
  (raw, f, e) =>
    enumValue(values, raw, f, e);

type Spec = Record<string, [Check, "required" | "optional"]>;
const ROW_SPECS = {
  institution: {
    id: [slug, "required"],
    name: [text(200), "required"],
    type: [pick(INSTITUTION_TYPES), "required"],
    country: [countryCode, "required"],
    bic: [bic, "optional"],
    localCode: [text(32), "optional"],
    localCodeType: [text(32), "optional"],
    status: [pick(STATUSES), "optional"],
    source: [text(1000), "optional"],
  },
  branch: {
    id: [slug, "required"],
    institutionId: [slug, "required"],
    name: [text(200), "required"],
    code: [text(32), "required"],
    city: [text(100), "optional"],
    address: [text(500), "optional"],
  },
  corridor: {
    id: [slug, "required"],
    receivingCountry: [countryCode, "required"],
    receivingCurrency: [arg.currency, "required"],
    receivingInstitutionType: [pick(INSTITUTION_TYPES), "required"],
    minAmount: [count(), "required"],
    maxAmount: [count(), "required"],
    deliveryMinHours: [count(24 * 365), "required"],
    deliveryMaxHours: [count(24 * 365), "required"],
    deliveryDescription: [text(200), "required"],
    requiredFields: [list(fieldName), "required"],
    userTypes: [list(pick(USER_TYPES)), "optional"],
    status: [pick(STATUSES), "optional"],
  },
} satisfies Record<string, Spec>;

export type RowKind = keyof typeof ROW_SPECS;
export const ROW_KINDS = Object.keys(ROW_SPECS) as RowKind[];
/** the fields of each kind, in camelCase (CSV columns are their snake_case names) */
export const rowFields = (kind: RowKind) => Object.keys(ROW_SPECS[kind]);
export type InstitutionRow = {
  id: string;
  name: string;
  type: InstitutionType;
  country: string;
  bic: string | null;
  localCode: string | null;
  localCodeType: string | null;
  status: Status | null;
  source: string | null;
};
export type BranchRow = { id: string; institutionId: string; name: string; code: string; city: string | null; address: string | null };
export type CorridorRow = {
  id: string;
  receivingCountry: string;
  receivingCurrency: string;
  receivingInstitutionType: InstitutionType;
  minAmount: number;
  maxAmount: number;
  deliveryMinHours: number;
  deliveryMaxHours: number;
  deliveryDescription: string;
  requiredFields: string[];
  userTypes: UserType[] | null;
  status: Status | null;
};
export type Row = { kind: "institution"; row: InstitutionRow } | { kind: "branch"; row: BranchRow } | { kind: "corridor"; row: CorridorRow };
/** How a row's field is named in errors: `minAmount` for a mutation, `rows.3.min_amount` for a CSV line. */
export type FieldNamer = (field: string) => string;

/**
 * Checks one row of a kind (fields in camelCase; a nested `deliveryEstimate` is flattened) and
 * pushes every problem, named by `name`. Returns the normalised row, or undefined.
 */
export function checkRow(kind: RowKind, input: Record<string, unknown>, name: FieldNamer, errors: FieldError[]): Row | undefined {
  const before = errors.length;
  const source: Record<string, unknown> = { ...input, ...flattenDelivery(input.deliveryEstimate) };
  const out: Record<string, unknown> = {};
  for (const [field, [check, need]] of Object.entries(ROW_SPECS[kind] as Spec)) {
    const raw = source[field];
    if (raw == null || raw === "") {
      if (need === "required") fail(errors, name(field), `${name(field)} is required.`, "required");
      else out[field] = null;
    } else out[field] = check(raw, name(field), errors);
  }
  const after = (field: string, bad: boolean, message: string) => {
    if (bad) fail(errors, name(field), `${name(field)} ${message}`);
  };
  if (kind === "corridor" && errors.length === before) {
    after("minAmount", (out.minAmount as number) > (out.maxAmount as number), "must not exceed the maximum amount.");
    after("deliveryMinHours", (out.deliveryMinHours as number) > (out.deliveryMaxHours as number), "must not exceed the maximum hours.");
  }
  if (kind === "institution" && out.bic)
    after("bic", String(out.bic).slice(4, 6) !== out.country, `must carry the institution's country (${String(out.country)}) in letters 5-6.`);
  return errors.length === before ? ({ kind, row: out } as Row) : undefined;
}

function flattenDelivery(value: unknown) {
  if (!value || typeof value !== "object") return {};
  const d = value as { minHours?: unknown; maxHours?: unknown; description?: unknown };
  return { deliveryMinHours: d.minHours, deliveryMaxHours: d.maxHours, deliveryDescription: d.description };
}

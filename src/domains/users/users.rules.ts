/**
 * Users' input rules, pure and shared by every transport: each bad field is reported at once with
 * its name; accepted values come out normalised (E.164 phone, alpha-2 country, trimmed names).
 */
import { parsePhoneNumberFromString } from "libphonenumber-js/max";
import { z } from "zod";
import { parseIsoDate } from "../../lib/dates.js";
import { toAlpha2 } from "../../lib/countries.js";
import { article } from "../../lib/case.js";
import { DomainError, invalid, type FieldError } from "../../lib/errors.js";

export type Address = { line1: string; line2?: string | null; city: string; state?: string | null; postalCode?: string | null; country: string };

/** The fields a caller may write; `undefined` = leave as is, `null` = clear. */
export type UserInput = {
  externalId?: string | null;
  email?: string | null;
  phoneNumber?: string | null;
  firstName?: string | null;
  middleName?: string | null;
  lastName?: string | null;
  dateOfBirth?: string | null;
  nationality?: string | null;
  countryOfResidence?: string | null;
  residentialAddress?: Address | null;
  billingAddress?: Address | null;
  taxId?: string | null;
  locale?: string | null;
  status?: string | null;
};

type Checker = (value: unknown, field: string, errors: FieldError[]) => unknown;

const fail = (errors: FieldError[], field: string, message: string, code = "invalid") => {
  errors.push({ field, code, message });
  return undefined;
};

const text =
  (max: number): Checker =>
  (value, field, errors) => {
    const v = String(value).trim();
    return v.length === 0 || v.length > max ? fail(errors, field, `${field} must be 1 to ${max} characters.`) : v;
  };

const emailSchema = z.email();
const email: Checker = (value, field, errors) => {
  const v = String(value).trim();
  return emailSchema.safeParse(v).success && v.length <= 254 ? v : fail(errors, field, `${field} must be a valid email address.`);
};

const phone: Checker = (value, field, errors) => {
  const parsed = parsePhoneNumberFromString(String(value));
  return parsed?.isValid() && String(value).startsWith("+")
    ? parsed.number
    : fail(errors, field, `${field} must be a valid phone number in E.164 form, e.g. +6591234567.`);
};

const country: Checker = (value, field, errors) =>
  toAlpha2(String(value)) ?? fail(errors, field, `${field} must be an ISO 3166-1 alpha-2 or alpha-3 country code.`);

const birthDate: Checker = (value, field, errors) => {
  const date = parseIsoDate(value);
  if (!date) return fail(errors, field, `${field} must be a real date written YYYY-MM-DD.`);
  if (date.getTime() >= Date.now()) return fail(errors, field, `${field} must be in the past.`);
  if (date.getUTCFullYear() < 1900) return fail(errors, field, `${field} must be after 1900-01-01.`);
  return date;
};

const locale: Checker = (value, field, errors) => {
  try {
    return Intl.getCanonicalLocales(String(value))[0];
  } catch {
    return fail(errors, field, `${field} must be a BCP 47 language tag such as en-SG.`);
  }
};

const taxId: Checker = (value, field, errors) => {
  const v = String(value).replace(/[\s-]/g, "");
  return /^[A-Za-z0-9]{4,32}$/.test(v) ? v : fail(errors, field, `${field} must be 4 to 32 letters or digits.`);
};

const address: Checker = (value, field, errors) => {
  const a = value as Address;
  const before = errors.length;
  const out = {
    line1: text(200)(a.line1 ?? "", `${field}.line1`, errors) as string,
    line2: a.line2 ? (text(200)(a.line2, `${field}.line2`, errors) as string) : null,
    city: text(100)(a.city ?? "", `${field}.city`, errors) as string,
    state: a.state ? (text(100)(a.state, `${field}.state`, errors) as string) : null,
    postalCode: a.postalCode ? (text(20)(a.postalCode, `${field}.postalCode`, errors) as string) : null,
    country: country(a.country ?? "", `${field}.country`, errors) as string,
  };
  return errors.length > before ? undefined : out;
};

const CHECKS: Record<Exclude<keyof UserInput, "status">, Checker> = {
  externalId: text(128),
  email,
  phoneNumber: phone,
  firstName: text(100),
  middleName: text(100),
  lastName: text(100),
  dateOfBirth: birthDate,
  nationality: country,
  countryOfResidence: country,
  residentialAddress: address,
  billingAddress: address,
  taxId,
  locale,
};
const REQUIRED: (keyof UserInput)[] = ["firstName", "lastName"];

export type CheckedUser = { [K in keyof typeof CHECKS]?: unknown } & { status?: UserStatusValue };

/** Validates the given fields (all of them, reporting every error) and returns them normalised. */
export function checkUserFields(input: UserInput, { creating }: { creating: boolean }): CheckedUser {
  const errors: FieldError[] = [];
  const out: Record<string, unknown> = {};
  for (const [field, check] of Object.entries(CHECKS)) {
    const value = input[field as keyof UserInput];
    if (value === undefined) continue;
    if (value === null) {
      if (REQUIRED.includes(field as keyof UserInput)) fail(errors, field, `${field} is required and cannot be cleared.`, "required");
      else out[field] = null;
      continue;
    }
    out[field] = check(value, field, errors);
  }
  if (creating) for (const field of REQUIRED) if (input[field] == null) fail(errors, field, `${field} is required.`, "required");
  if (creating && input.email == null && input.phoneNumber == null) fail(errors, "email", "email or phoneNumber is required.", "required");
  if (input.status != null) out.status = input.status;
  if (errors.length) throw invalid(errors);
  return out as CheckedUser;
}

export type UserStatusValue = "PENDING" | "IN_REVIEW" | "ACTIVE" | "REJECTED" | "SUSPENDED" | "CLOSED";

/** Status moves. A caller may only close a user; the rest are moved by verification and risk. */
const MOVES: Record<UserStatusValue, UserStatusValue[]> = {
  PENDING: ["IN_REVIEW", "CLOSED"],
  IN_REVIEW: ["ACTIVE", "REJECTED", "CLOSED"],
  ACTIVE: ["SUSPENDED", "CLOSED"],
  SUSPENDED: ["ACTIVE", "CLOSED"],
  REJECTED: ["CLOSED"],
  CLOSED: [],
};
const CALLER_SETTABLE_STATUSES: UserStatusValue[] = ["CLOSED"];
/** A rejection is undone only by a person: an operator's result that clears what rejected the user. */
const PERSON_MOVES: Partial<Record<UserStatusValue, UserStatusValue[]>> = { REJECTED: ["ACTIVE"] };

export function checkStatusMove(from: UserStatusValue, to: UserStatusValue, { byCaller, byPerson = false }: { byCaller: boolean; byPerson?: boolean }) {
  if (from === to) return;
  if (byCaller && !CALLER_SETTABLE_STATUSES.includes(to))
    throw new DomainError(
      "INVALID_STATE_TRANSITION",
      `status can only be set to ${CALLER_SETTABLE_STATUSES.join(", ")} by a caller; ${to} follows from verification.`,
    );
  if (!MOVES[from].includes(to) && !(byPerson && PERSON_MOVES[from]?.includes(to)))
    throw new DomainError("INVALID_STATE_TRANSITION", `${article(from)} ${from} user cannot move to ${to}.`);
}

/** Last four characters, the rest starred: what callers see of a tax id. */
export const etagOf = (user: { id: string; version: number }) => `"${user.id.slice(0, 8)}-${user.version}"`;

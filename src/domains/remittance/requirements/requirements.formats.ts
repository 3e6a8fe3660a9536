/**
 * The check each field format makes beyond its pattern, with the maintained library for it:
 * ibantools (IBAN checksum and the country's length, BIC), the `ifsc` package's list,
 * clabe-validator (CLABE check digit), libphonenumber-js (mobile numbers). NUBAN needs the bank's
 * code, so the validator checks it once the bank is known (requirements.nuban.ts).
 * A result carries the normalised value and, for codes that begin with the institution's code,
 * that code, for the catalogue lookup.
 */
import { clabe } from "clabe-validator";
import { electronicFormatIBAN, extractIBAN, isValidBIC, validateIBAN } from "ibantools";
import { parsePhoneNumberFromString } from "libphonenumber-js/max";
import { toAlpha2 } from "../../../lib/countries.js";
import { parseIsoDate } from "../../../lib/dates.js";
import { isListedIfsc } from "./requirements.ifsc.js";
import type { FieldFormat, RequirementCategory } from "./requirements.spec.js";

export type FormatResult =
  | { ok: true; value: string; localCode?: string }
  | { ok: false; category: Exclude<RequirementCategory, "field_missing" | "amount_out_of_range">; message: string };

const bad = (message: string): FormatResult => ({ ok: false, category: "incorrect_format", message });
const refused = (message: string): FormatResult => ({ ok: false, category: "not_allowed", message });

/** Formats whose values are codes: compared and returned in upper case. */
export const UPPER_FORMATS: ReadonlySet<FieldFormat> = new Set(["iban", "bic", "ifsc", "country"]);

type Check = (value: string, country: string) => FormatResult;

const CHECKS: Partial<Record<FieldFormat, Check>> = {
  iban: (value, country) => {
    const iban = electronicFormatIBAN(value) ?? value;
    if (!validateIBAN(iban).valid) return bad("is not a valid IBAN: its check digits or its length for the country are wrong.");
    if (iban.slice(0, 2) !== country) return refused(`must be an IBAN of ${country}.`);
    return { ok: true, value: iban, localCode: extractIBAN(iban).bankIdentifier };
  },
  bic: (value, country) => {
    if (!isValidBIC(value)) return bad("is not a valid BIC (8 or 11 characters).");
    return value.slice(4, 6) === country ? { ok: true, value } : refused(`must be the BIC of a bank in ${country}.`);
  },
  // a well-formed IFSC missing from the list names no branch: the institution is unknown, not the format
  ifsc: (value) =>
    isListedIfsc(value)
      ? { ok: true, value, localCode: value.slice(0, 4) }
      : { ok: false, category: "unknown_institution", message: "is not an IFSC of any bank branch in the RBI list (ifsc package)." },
  // the plaza (city) digits are not checked: SPEI routes on the bank code and the account
  clabe: (value) =>
    clabe.computeChecksum(value.slice(0, 17)) === Number(value[17]) ? { ok: true, value, localCode: value.slice(0, 3) } : bad("has a wrong check digit."),
  e164: (value, country) => {
    const phone = parsePhoneNumberFromString(value);
    if (!phone?.isValid()) return bad("is not a valid phone number in international form, e.g. +639051234567.");
    if (phone.country !== country) return refused(`must be a mobile number of ${country}.`);
    const type = phone.getType();
    return type === "MOBILE" || type === "FIXED_LINE_OR_MOBILE" ? { ok: true, value: phone.number } : refused("must be a mobile number, not a landline.");
  },
  date: (value) => (parseIsoDate(value) ? { ok: true, value } : bad("must be a real date written YYYY-MM-DD.")),
  country: (value) => (toAlpha2(value) ? { ok: true, value } : bad("must be an ISO 3166-1 alpha-2 country code.")),
  card_number: (value) => ({ ok: true, value, localCode: value.slice(0, 6) }),
  local_code: (value) => ({ ok: true, value, localCode: value }),
};

/** The format's check on a trimmed (and, for codes, upper-cased) value that matched its pattern. */
export function checkFormat(format: FieldFormat | undefined, value: string, country: string): FormatResult {
  const check = format && CHECKS[format];
  return check ? check(value, country) : { ok: true, value };
}

/**
 * Amounts are integers in minor units of the receiving currency; the digits come from ISO 4217
 * (currency-codes), never from a table of our own. Shared by the schema builder and the validator
 * so both speak of limits the same way.
 */
import cc from "currency-codes";
import type { RequirementSpec } from "./requirements.spec.js";

const digitsCache = new Map<string, number>();

export function minorUnitDigits(currency: string): number {
  let digits = digitsCache.get(currency);
  if (digits === undefined) {
    digits = cc.code(currency)?.digits;
    if (digits === undefined) throw new Error(`currency-codes knows no currency ${currency}`);
    digitsCache.set(currency, digits);
  }
  return digits;
}

// toLocaleString with options builds a new formatter on every call; one per precision is enough
const formatters = new Map<number, Intl.NumberFormat>();
const formatterOf = (digits: number) => {
  let formatter = formatters.get(digits);
  if (!formatter) formatters.set(digits, (formatter = new Intl.NumberFormat("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })));
  return formatter;
};

/** 150000000 INR → "1,500,000.00 INR": how messages and descriptions show a minor-unit amount */
export const formatMinor = (amount: number, currency: string) => {
  const digits = minorUnitDigits(currency);
  return `${formatterOf(digits).format(amount / 10 ** digits)} ${currency}`;
};

/** Every amount at which a requirement starts (conditions and documents), ascending, without repeats. */
export const amountThresholds = (spec: RequirementSpec) =>
  [
    ...new Set([
      ...spec.conditions.flatMap((c) => (c.when.amount_at_least === undefined ? [] : [c.when.amount_at_least])),
      ...spec.documents.map((d) => d.min_amount),
    ]),
  ].sort((a, b) => a - b);

/**
 * Picking one of a fixed set of values the forgiving way every list filter takes them (any case,
 * `-` or `_`: `mobile-wallet` → MOBILE_WALLET), and the one sorting vocabulary of every list:
 * `sortFields` (one of the list's sort keys) + `sortOrder` (ASC | DESC), the vendor's names.
 * A refusal lists the allowed values the way the caller wrote theirs (lower or upper case).
 */
import { invalid, type FieldError } from "./errors.js";

const fail = (errors: FieldError[], field: string, message: string) => {
  errors.push({ field, code: "invalid", message });
  return undefined;
};

export function oneOf<T extends string>(values: readonly T[], raw: unknown, field: string, errors: FieldError[]): T | undefined {
  const text = String(raw).trim();
  const wanted = text.toUpperCase().replaceAll("-", "_");
  const found = values.find((v) => v.toUpperCase() === wanted);
  if (found) return found;
  const lower = text === text.toLowerCase();
  return fail(errors, field, `${field} must be one of ${values.map((v) => (lower ? v.toLowerCase() : v.toUpperCase())).join(", ")}.`);
}

type SortOrder = "asc" | "desc";
export type Sort<F extends string> = { field: F; order: SortOrder };
export type SortArgs = { sortFields?: string | null; sortOrder?: string | null };

/** The list's sort from `sortFields` / `sortOrder`; what is not given comes from `fallback`. */
export function parseSort<F extends string>(fields: readonly F[], args: SortArgs, fallback: Sort<F>, errors: FieldError[] = []): Sort<F> {
  const field = args.sortFields ? oneOf(fields, args.sortFields, "sortFields", errors) : fallback.field;
  const order = args.sortOrder
    ? (oneOf(["ASC", "DESC"] as const, args.sortOrder, "sortOrder", errors)?.toLowerCase() as SortOrder | undefined)
    : args.sortFields
      ? "asc"
      : fallback.order;
  if (errors.length) throw invalid(errors);
  return { field: field!, order: order! };
}

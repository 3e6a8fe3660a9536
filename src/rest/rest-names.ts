/**
 * REST speaks its own names: snake_case fields and `list[1]` indexes, never a GraphQL variable,
 * type or camelCase field. Domain errors name fields in the domain's (GraphQL) camelCase as
 * dotted paths (`residentialAddress.postalCode`, `destinationCountryCode.1`); these turn them into
 * the REST form at the edge, so no service has to know which transport called it.
 */
import { toSnake } from "../lib/case.js";

/** `residentialAddress.postalCode` → `residential_address.postal_code`; `codes.1` → `codes[1]`. */
export function restPath(path: string, { rename = true } = {}) {
  let out = "";
  for (const segment of path.split(".")) {
    if (/^\d+$/.test(segment) && out) out += `[${segment}]`;
    else out += (out ? "." : "") + (rename ? toSnake(segment) : segment);
  }
  return out;
}

// a camelCase word, optionally followed by more dotted segments or indexes
const NAME_PATH = /\b[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*(?:\.(?:[A-Za-z][A-Za-z0-9]*|\d+))*/g;

/**
 * Rewrites the field names inside a caller-facing sentence. Only words the schema knows as field
 * or argument names are touched (`known`), so ordinary words and values pass unchanged.
 */
export function restText(text: string, known: ReadonlySet<string>) {
  return text.replace(NAME_PATH, (match) => (match.split(".").some((s) => known.has(s)) ? restPath(match) : match));
}

/** snake_case ↔ camelCase for wire names (REST is snake_case, GraphQL camelCase). */
export const toCamel = (s: string) => s.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
export const toSnake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Deep key conversion of a JSON value; arrays and nested objects included. */
export function camelKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelKeys);
  if (value && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [toCamel(k), camelKeys(v)]));
  return value;
}

/** "An" before a word read with a vowel sound as written here (status names: ACTIVE, IN_REVIEW), else "A". */
export const article = (word: string) => (/^[AEIOU]/i.test(word) ? "An" : "A");

/** How REST takes an enum value, and OpenAPI declares it: as GraphQL names it, in lower case, and in lower case with `-` for `_`. */
export const enumSpellings = (value: string) => [...new Set([value, value.toLowerCase(), value.toLowerCase().replaceAll("_", "-")])];

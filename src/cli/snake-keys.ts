import { toSnake } from "../lib/case.js";

/** Deep camelCase → snake_case keys, dates as ISO strings: CLI output uses REST's names. */
export function snakeKeys(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(snakeKeys);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [toSnake(k), snakeKeys(v)]));
  return value;
}

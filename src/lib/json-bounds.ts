/**
 * Bounds for JSON a caller makes the service store, and for reading it back. A stored value is
 * read by every later list that shows it, so what a caller sends once is paid for on every read:
 * its size is judged on arrival, before its shape is walked, and a value read back from an older
 * row is measured without being copied.
 */
import { z } from "zod";
import type { FieldError } from "./errors.js";

/**
 * The bytes `value` takes as JSON, counted until they pass `limit` (then `limit + 1`): a walk that
 * copies nothing, so measuring an oversize value costs no more than the part under the limit.
 */
export function jsonBytesWithin(value: unknown, limit: number): number {
  let bytes = 0;
  const stack: unknown[] = [value];
  while (stack.length) {
    const next = stack.pop();
    if (typeof next === "string") bytes += Buffer.byteLength(next) + 2;
    else if (typeof next === "number" || typeof next === "boolean") bytes += String(next).length;
    else if (next === null || typeof next !== "object") bytes += 4;
    else if (Array.isArray(next)) {
      bytes += 2 + Math.max(0, next.length - 1);
      for (let i = next.length - 1; i >= 0 && bytes <= limit; i--) stack.push(next[i]);
    } else {
      const keys = Object.keys(next);
      bytes += 2 + Math.max(0, keys.length - 1);
      for (const key of keys) {
        if (bytes > limit) break;
        bytes += Buffer.byteLength(key) + 3;
        stack.push((next as Record<string, unknown>)[key]);
      }
    }
    if (bytes > limit) return limit + 1;
  }
  return bytes;
}

/** A value of at most `limit` bytes as JSON, judged before its shape is. */
const withinBytes = (limit: number) =>
  z.unknown().superRefine((value, ctx) => {
    if (jsonBytesWithin(value, limit) > limit)
      ctx.addIssue({ code: "custom", message: `must be at most ${limit} bytes as JSON`, params: { code: "too_large" } });
  });

/** Text of at most `max` characters. */
export const text = (max: number) => z.string().max(max);

/** A list of at most `count` texts of at most `max` characters each. */
export const texts = (count: number, max: number) => z.array(text(max)).max(count);

/**
 * Free-form facts a caller attaches (a provider's own fields): at most `keys` keys of at most 64
 * characters, each a short text, a number, true/false or null, and at most `bytes` in all.
 */
export const metadata = ({ keys = 20, valueMax = 500, bytes = 4096 } = {}) =>
  withinBytes(bytes).pipe(
    z
      .record(z.string().min(1).max(64), z.union([text(valueMax), z.number(), z.boolean(), z.null()]))
      .refine((record) => Object.keys(record).length <= keys, `must have at most ${keys} keys`),
  );

/** The field error code of a zod issue, in the words the service's other checks use. */
const codeOf = (issue: z.core.$ZodIssue) =>
  issue.code === "too_big" || issue.code === "too_small"
    ? issue.origin === "number"
      ? "out_of_range"
      : issue.code === "too_big"
        ? "too_long"
        : "too_short"
    : "invalid";

/**
 * A zod error as the caller's field errors, each named by its dotted path under `field`
 * (`matches.3.entryNames`). The list is as long as the value's problems (a value is judged by its size
 * first, so that is bounded); the answer lists the first of them and counts the rest, as every
 * problem list does (lib/errors.ts).
 */
export function fieldErrorsOf(error: z.ZodError, field: string): FieldError[] {
  return error.issues.flatMap((issue): FieldError[] => {
    const at = (key?: string | number) => [field, ...issue.path, ...(key === undefined ? [] : [key])].map(String).join(".");
    if (issue.code === "unrecognized_keys")
      return issue.keys.map((key) => ({ field: at(key), code: "unknown_field", message: `${at(key)} is not a field it takes.` }));
    const code = (issue as { params?: { code?: string } }).params?.code ?? codeOf(issue);
    return [{ field: at(), code, message: `${at()}: ${issue.message}` }];
  });
}

/** What a read shows in place of a stored value it cannot show: too large, or not of the shape the read takes. */
export const omitted = (why: "oversize" | "unreadable", facts: Record<string, unknown> = {}) => ({ ...facts, omitted: why });

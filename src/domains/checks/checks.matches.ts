/**
 * The matches of a check's result: what a posted one (an upstream provider's, a person's, the
 * sandbox's) may hold when it arrives, and how any stored one reads back. One shape, the built-in
 * matcher's (screen-person.ts), every field bounded: a stored result is read by every later list of
 * the user's runs and by the reviews it opens, so its size is paid for on each read.
 *
 * Arrival is strict (VALIDATION_FAILED naming each problem by path, `matches.3.entryNames`); snake_case
 * spellings of the fields are taken too, as REST callers write them. Reading is tolerant: rows written
 * before these bounds, or by an older matcher, show what of them has the shape (a lone name for
 * `entryNames`, no explanation rather than half of one), and a match too large to show is a marker.
 */
import { z } from "zod";
import { camelKeys } from "../../lib/case.js";
import type { FieldError } from "../../lib/errors.js";
import { fieldErrorsOf, jsonBytesWithin, metadata, omitted, text, texts } from "../../lib/json-bounds.js";

/** At most this many matches a result, this many bytes a match and this many all of them together. */
export const MATCH_LIMITS = { count: 50, bytes: 16 * 1024, totalBytes: 64 * 1024, entryNames: 20 } as const;

const share = z.number().min(0).max(1);
const verdict = <const V extends readonly [string, ...string[]]>(values: V) => z.enum(values);

/** How the matcher weighed a hit, feature by feature (MatchExplanation in screen-person.ts). */
const explanation = z.object({
  name: z.object({
    score: share,
    // a user's name is at most 300 characters in all, and its words fold (ß → ss) as they are compared
    pairs: z.array(z.object({ given: text(600), listed: text(300), similarity: share })).max(100),
    unpairedGiven: texts(100, 600),
    unpairedListed: texts(100, 300),
    reordered: z.boolean(),
    basis: verdict(["aligned", "near", "initials"]).optional(),
    otherGivenName: z.boolean().optional(),
  }),
  dateOfBirth: z.object({ given: text(40).nullable(), listed: texts(20, 40), verdict: verdict(["exact", "year", "near", "conflict", "unknown"]) }),
  nationality: z.object({ given: text(40).nullable(), listed: texts(20, 40), verdict: verdict(["match", "conflict", "unknown"]) }),
  alias: z.object({ matched: text(300), primary: z.boolean(), weak: z.boolean() }),
});

/** One match as a posted result may give it: the entry, its names, the score and why; `details` for a provider's own fields. */
const postedMatch = z.strictObject({
  list: text(100).optional(),
  listVersion: text(200).optional(),
  entryId: text(100).min(1).optional(),
  name: text(300).optional(),
  matchedName: text(300).optional(),
  entryNames: texts(MATCH_LIMITS.entryNames, 300).optional(),
  score: share.optional(),
  status: verdict(["CONSIDER", "REJECTED"]).optional(),
  reasons: texts(50, 200).optional(),
  programs: texts(20, 100).optional(),
  explanation: explanation.nullable().optional(),
  entryHash: text(128).optional(),
  subjectHash: text(128).optional(),
  suppressed: z.boolean().optional(),
  details: metadata().optional(),
});

/** A match with its fields in the stored spelling (camelCase); `details` keeps the caller's own keys. */
function spelledAsStored(match: unknown) {
  if (!match || typeof match !== "object" || Array.isArray(match)) return match;
  const { details, ...fields } = match as Record<string, unknown>;
  return { ...(camelKeys(fields) as object), ...(details === undefined ? {} : { details }) };
}

/**
 * The problems of posted matches, each named by its path; none when they may be stored. Sizes first
 * (the count, each match's bytes, all of them together), so a large body is refused before its
 * shape is walked.
 */
export function postedMatchesErrors(matches: readonly unknown[] | null | undefined): FieldError[] {
  if (!matches?.length) return [];
  const tooLong = (message: string, field = "matches") => [{ field, code: "too_long", message }];
  if (matches.length > MATCH_LIMITS.count) return tooLong(`matches: at most ${MATCH_LIMITS.count}.`);
  const oversize = matches.findIndex((m) => jsonBytesWithin(m, MATCH_LIMITS.bytes) > MATCH_LIMITS.bytes);
  if (oversize >= 0) return tooLong(`matches.${oversize}: at most ${MATCH_LIMITS.bytes} bytes as JSON a match.`, `matches.${oversize}`);
  if (jsonBytesWithin(matches, MATCH_LIMITS.totalBytes) > MATCH_LIMITS.totalBytes)
    return tooLong(`matches: at most ${MATCH_LIMITS.totalBytes} bytes as JSON in all.`);
  const parsed = z.array(postedMatch).safeParse(matches.map(spelledAsStored));
  return parsed.success ? [] : fieldErrorsOf(parsed.error, "matches");
}

/** Posted matches as they are stored (the fields in their stored spelling); call once postedMatchesErrors found none. */
export const storedMatches = (matches: readonly unknown[] | null | undefined) => (matches ?? []).map(spelledAsStored);

// ── reading back ──

const maybe = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);
/** Texts of a list, the others left out; at most `count`, each cut to `max`. */
const textsOf = (value: unknown, count: number, max: number) =>
  Array.isArray(value)
    ? value
        .filter((v): v is string => typeof v === "string")
        .slice(0, count)
        .map((v) => v.slice(0, max))
    : [];
const strings = (count: number, max: number) =>
  z
    .unknown()
    .optional()
    .transform((value) => textsOf(value, count, max));
// an upstream provider's lone name is a list of one
const names = z
  .unknown()
  .optional()
  .transform((value) => textsOf(typeof value === "string" ? [value] : value, MATCH_LIMITS.entryNames, 300));

/** The fields reads take, each on its own: one odd field is left out, never the match. */
const readable = z.object({
  list: maybe(text(100)),
  listVersion: maybe(text(200)),
  entryId: maybe(text(100)),
  name: maybe(text(300)),
  matchedName: maybe(text(300)),
  entryNames: names,
  score: maybe(z.number().transform((n) => Math.min(1, Math.max(0, n)))),
  status: maybe(verdict(["CONSIDER", "REJECTED"])),
  reasons: strings(50, 200),
  programs: strings(20, 100),
  explanation: explanation.nullable().catch(null),
  entryHash: maybe(text(128)),
  subjectHash: maybe(text(128)),
  suppressed: maybe(z.boolean()),
  details: maybe(metadata()),
});
export type StoredMatch = z.output<typeof readable> & { omitted?: "oversize" | "unreadable" };

/**
 * A stored match as every read shows it, whatever the row holds: its fields that have their shape
 * (`entryNames` always a list, `explanation` whole or null), or, for a match too large to show or not
 * an object at all, a marker with what can be told of it.
 */
export function readMatch(stored: unknown): StoredMatch {
  if (!stored || typeof stored !== "object" || Array.isArray(stored)) return { ...readable.parse({}), ...omitted("unreadable") };
  const entryId = typeof (stored as { entryId?: unknown }).entryId === "string" ? (stored as { entryId: string }).entryId.slice(0, 100) : undefined;
  if (jsonBytesWithin(stored, MATCH_LIMITS.bytes) > MATCH_LIMITS.bytes) return { ...readable.parse({ entryId }), ...omitted("oversize") };
  return readable.parse(stored);
}

/** Stored matches as reads show them: at most MATCH_LIMITS.count, each read by readMatch, and no more than the total bytes allowed. */
export function readMatches(stored: unknown): StoredMatch[] {
  if (!Array.isArray(stored)) return [];
  let budget = MATCH_LIMITS.totalBytes;
  return stored.slice(0, MATCH_LIMITS.count).map((raw) => {
    const match = readMatch(raw);
    const bytes = jsonBytesWithin(match, MATCH_LIMITS.bytes);
    if (bytes > budget) return { ...readable.parse({ entryId: match.entryId }), ...omitted("oversize") };
    budget -= bytes;
    return match;
  });
}

/** A completed run's result as reads show it (CheckRun.result): `matches` read by readMatches, the rest kept to its type. */
export function readResult(stored: unknown) {
  if (!stored || typeof stored !== "object" || Array.isArray(stored)) return null;
  const { score, reasons, matches, provider, matcher } = stored as Record<string, unknown>;
  return {
    score: typeof score === "number" && Number.isFinite(score) ? score : null,
    reasons: textsOf(reasons, 50, 200),
    matches: readMatches(matches),
    provider: typeof provider === "string" ? provider.slice(0, 200) : null,
    // the built-in matcher's version and configuration, written by this service alone
    matcher: matcher && typeof matcher === "object" && jsonBytesWithin(matcher, MATCH_LIMITS.bytes) <= MATCH_LIMITS.bytes ? matcher : null,
  };
}

/**
 * Fingerprints of what a screening compares: a listed entry's identifying data and a person's screened
 * data. A decided false positive stays quiet while both fingerprints hold (a re-screen with the same
 * data against the same entry is noise); a change to either is material and is judged again. A new
 * list version keeps an entry's fingerprint when the entry did not change, so list diffs use it too.
 */
import { createHash } from "node:crypto";
import { countryCode, type WatchlistEntry } from "./sdn-parse.js";
import { parseName } from "./name-match.js";

const digest = (value: unknown) => createHash("sha256").update(JSON.stringify(value)).digest("hex").slice(0, 16);

/** Names (with their weak flag), dates of birth and nationalities: programs and remarks change no identity. */
export const entryFingerprint = (entry: WatchlistEntry) =>
  digest([entry.type, entry.names.map((n) => [n.text, n.weak]), entry.birthDates.map((b) => b.text), entry.nationalities]);

/** What identifies a person to the matcher: the words of their names (lower case, accents and scripts folded to ASCII), date of birth, nationality. */
export type ScreenedData = {
  firstName: string;
  middleName?: string | null;
  lastName: string;
  /** YYYY-MM-DD */
  dateOfBirth?: string | null;
  /** ISO 3166-1 alpha-2 or alpha-3 */
  nationality?: string | null;
};

/** Case, accents, punctuation and spacing are no material change; a word, a date or a country is. */
export const subjectFingerprint = (person: ScreenedData) =>
  digest([
    [person.firstName, person.middleName, person.lastName].map((part) => (part ? parseName(part).tokens.map((t) => t.text) : [])),
    person.dateOfBirth ?? null,
    person.nationality ? (countryCode(person.nationality) ?? person.nationality) : null,
  ]);

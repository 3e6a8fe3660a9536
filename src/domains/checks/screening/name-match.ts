/**
 * Name comparison for screening: normalisation (any script → ASCII, accents, case, particles),
 * transliteration folding, per-token similarity (Jaro–Winkler on folded spellings, raised when the
 * Double Metaphone keys agree) and an order-free alignment of two names that tolerates missing
 * middle names, an extra given name, and words written together or apart (`Abd al-Rahman` /
 * `Abdulrahman`, `Abu al-Khayr` / `Abualkhayr`).
 */
import anyAscii from "any-ascii";
import { jaroWinkler } from "@skyra/jaro-winkler";
import { doubleMetaphone } from "double-metaphone";

/** One word (or two words written together) with what comparing it needs, computed once per spelling. */
export interface Word {
  /** index in the watchlist's vocabulary; negative for a screened person's own words */
  id: number;
  /** lower-case ASCII as written */
  text: string;
  /** spelling with transliteration variants folded together (`qaddafi` → `kadafi`) */
  folded: string;
  /** Double Metaphone codes of `text` (primary, alternate when different) */
  phonetic: string[];
  /** a connective word (`al`, `bin`, `de`, `van`…); whether it acts as one depends on its place (ParsedName.particle) */
  connective: boolean;
  initial: boolean;
}

/** A word of a name, or two adjacent words joined (`abd` + `rahman` → `abdrahman`): `covers` the token indices. */
export interface Unit {
  word: Word;
  covers: number[];
  /** `covers` as bits */
  mask: number;
  /** identifies the person: not a particle, not an initial (two words joined always do) */
  real: boolean;
  /** a single particle word */
  particle: boolean;
}

export interface ParsedName {
  tokens: Word[];
  /** each token, then each adjacent pair joined, and three joined across a particle (`abu al khayr`) */
  units: Unit[];
  /** which tokens form the surname (the part before the comma of `SURNAME, Given`), if known */
  surname: boolean[];
  /** connective words between two others (`abu al khayr`, `osama bin laden`): matched if present, barely missed if absent;
   *  first or last they are names (`Bin Xu`, `Le Van Thanh`) */
  particle: boolean[];
  /** neither a particle nor an initial */
  real: boolean[];
}

const PARTICLES = new Set([
  "al",
  "el",
  "ul",
  "ad",
  "ed",
  "ud",
  "ar",
  "ur",
  "as",
  "us",
  "at",
  "az",
  "ash",
  "an",
  "bin",
  "ben",
  "ibn",
  "bint",
  "binti",
  "ould",
  "de",
  "del",
  "della",
  "der",
  "den",
  "di",
  "da",
  "das",
  "do",
  "dos",
  "du",
  "la",
  "las",
  "le",
  "les",
  "los",
  "van",
  "von",
  "y",
  "e",
]);

/** Interns words: one Word object per spelling (the watchlist shares one table across all names). */
export class WordTable {
  readonly words: Word[] = [];
  private readonly byText = new Map<string, Word>();
  constructor(private readonly sign: 1 | -1 = 1) {}
  get(text: string): Word {
    let word = this.byText.get(text);
    if (!word) {
      const [primary, alternate] = doubleMetaphone(text);
      const id = this.sign > 0 ? this.words.length : -1 - this.words.length;
      word = {
        id,
        text,
        folded: fold(text),
        phonetic: primary === alternate ? [primary] : [primary, alternate],
        connective: PARTICLES.has(text),
        initial: text.length === 1,
      };
      this.words.push(word);
      this.byText.set(text, word);
    }
    return word;
  }
}

/** Lower-case ASCII words: any script transliterated, accents and apostrophes dropped, hyphens split. */
function nameWords(text: string): string[] {
  return anyAscii(text)
    .toLowerCase()
    .replace(/['`’ʿʾ]/g, "")
    .split(/[^a-z0-9]+/)
    .filter((w) => w && !/^\d+$/.test(w));
}

/** Folds spellings that transliterations of one name produce (Arabic, Cyrillic, Persian, Chinese romanisations). */
function fold(word: string): string {
  return word
    .replace(/^abd(?:ou|u|e|a|o)?(?:l|r|s|n)(?=[a-z]{3})/, "abd")
    .replace(/^abd(?:ou|u|e|a|o)l$/, "abd")
    .replace(/^ye(?=[a-z]{3})/, "e")
    .replace(/^j(?=[aeiou])/, "y")
    .replace(/sch/g, "sh")
    .replace(/tch/g, "ch")
    .replace(/ph/g, "f")
    .replace(/ck/g, "k")
    .replace(/q/g, "k")
    .replace(/kh/g, "h")
    .replace(/gh/g, "g")
    .replace(/dh/g, "d")
    .replace(/th/g, "t")
    .replace(/zh/g, "j")
    .replace(/dj/g, "j")
    .replace(/w/g, "v")
    .replace(/x/g, "ks")
    .replace(/ou/g, "u")
    .replace(/oo/g, "u")
    .replace(/ee/g, "i")
    .replace(/(?<!^)y/g, "i")
    .replace(/(.)\1+/g, "$1")
    .replace(/(?<=[a-z]{3})(?:off|ow)$/, "ov")
    .replace(/(?<=[a-z]{3})(?:eff|ew)$/, "ev");
}

/** Names longer than 30 words share the last bit (no listed name comes near). */
const bit = (i: number) => 1 << Math.min(i, 30);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, k) => from + k);

/** Parses a name as typed or as listed; `SURNAME, Given Names` marks the surname tokens. */
export function parseName(text: string, table = new WordTable(-1)): ParsedName {
  const comma = text.indexOf(",");
  const surnameWords = comma > 0 ? nameWords(text.slice(0, comma)) : [];
  // `SURNAME, Given` is compared in the order people write it: given names, then surname
  const words = comma > 0 ? [...nameWords(text.slice(comma + 1)), ...surnameWords] : nameWords(text);
  const tokens = words.map((w) => table.get(w));
  // a one-letter connective beside an initial is an initial too (`P Y Sorokin`, not `Ortega y Gasset`)
  const besideInitial = (i: number) => tokens[i - 1]?.initial || tokens[i + 1]?.initial;
  const particle = tokens.map((t, i) => t.connective && i > 0 && i < tokens.length - 1 && !(t.initial && besideInitial(i)));
  const real = tokens.map((t, i) => !particle[i] && !t.initial);
  const units: Unit[] = tokens.map((word, i) => ({ word, covers: [i], mask: bit(i), real: real[i]!, particle: particle[i]! }));
  const surnameFrom = words.length - surnameWords.length;
  const joined = (from: number, to: number): Unit => ({
    word: table.get(words.slice(from, to + 1).join("")),
    covers: range(from, to),
    mask: range(from, to).reduce((m, i) => m | bit(i), 0),
    real: true,
    particle: false,
  });
  for (let i = 0; i + 1 < words.length; i++) {
    // never across the given names / surname boundary of `SURNAME, Given` (`Kyong Su` + `Ra` is no `sura`)
    if (tokens[i]!.initial || tokens[i + 1]!.initial || (surnameWords.length && i + 1 === surnameFrom)) continue;
    units.push(joined(i, i + 1));
    // `abu al khayr` → `abualkhayr`
    if (particle[i + 1] && i + 2 < words.length && real[i + 2]) units.push(joined(i, i + 2));
  }
  return { tokens, units, surname: words.map((_, i) => i >= words.length - surnameWords.length), particle, real };
}

/** 0…1: 1 for the same word, ~0.9+ for one typo or a transliteration variant, lower for different names. */
export function tokenSimilarity(a: Word, b: Word): number {
  if (a.text === b.text) return 1;
  if (a.folded === b.folded) return 0.97;
  if (a.initial || b.initial) return a.text[0] === b.text[0] ? ALIGNMENT_CONFIG.initialSimilarity : 0;
  // folding can also pull a typo further away (`khoroneko`/`khooneko` → `horoneko`/`huneko`)
  const jw = Math.max(jaroWinkler(a.folded, b.folded), jaroWinkler(a.text, b.text));
  const shortest = Math.min(a.folded.length, b.folded.length);
  // one letter in four is a different name more often than a typo (`wang`/`gang`, `chen`/`chan`)
  const lengthPenalty = shortest <= 4 ? 0.08 : shortest === 5 ? 0.03 : 0;
  // same sound: trusted for words of four letters on; short ones (`jun`/`yan`, `ali`/`eli`) share codes by chance
  if (shortest <= 3 || !a.phonetic.some((p) => b.phonetic.includes(p))) return jw - lengthPenalty;
  return Math.max(jw - lengthPenalty, Math.min(0.9, jw + 0.12));
}

export interface Alignment {
  /** 0…1 */
  score: number;
  /** pairs [query token index, listed token index] as matched (pairs from joined words repeat indices), and the units paired */
  pairs: { query: number[]; listed: number[]; similarity: number; units: { query: Unit; listed: Unit } }[];
  unmatchedQuery: number;
  unmatchedListed: number;
  reordered: boolean;
  /** every word on both sides paired with the same word (spelling folded): the name as listed */
  complete: boolean;
  /** the least similar pair of words (initials aside): a word that only loosely resembles the listed one (below LOOSE_PAIR) */
  weakest: number;
  /** how many words that identify the person (not particles, not initials) paired: the fewer of theirs and of the listed name's */
  realPaired: number;
  /** the person's first word paired nothing while a listed given name is left over: another given name, not a missing one */
  otherGivenName: boolean;
  /** one word of the person's pairs and the rest are initials that do (allowed by `oneWord` only) */
  initialsOnly: boolean;
}

export const MATCH_FLOOR = 0.78;
const JOINED_FLOOR = 0.94;
/** below this a pair is a loose resemblance (`othman`/`omran`, `huang`/`zhang`): screening wants a date of birth to agree */
export const LOOSE_PAIR = 0.85;
export const MISSING_QUERY_TOKEN = 0.07;
const MISSING_LISTED_TOKEN = 0.04;
/** the person's first word paired with nothing: an extra name they go by… */
const EXTRA_FIRST_NAME = 0.03;
/** …or, when a listed given name is left over too, another given name: a conflict, costing more than a dropped name */
const OTHER_GIVEN_NAME = 0.08;
const PARTICLE_WEIGHT = 0.15;
const INITIAL_WEIGHT = 0.4;

/** The alignment's thresholds and weights as plain JSON, recorded with every screening result (screen-person.ts MATCHER). */
export const ALIGNMENT_CONFIG = {
  matchFloor: MATCH_FLOOR,
  joinedFloor: JOINED_FLOOR,
  loosePair: LOOSE_PAIR,
  missingQueryToken: MISSING_QUERY_TOKEN,
  missingListedToken: MISSING_LISTED_TOKEN,
  extraFirstName: EXTRA_FIRST_NAME,
  otherGivenName: OTHER_GIVEN_NAME,
  particleWeight: PARTICLE_WEIGHT,
  initialWeight: INITIAL_WEIGHT,
  initialSimilarity: 0.8,
} as const;

/** How many words identify the person (not particles, not initials). */
export const realWords = (name: ParsedName) => name.real.filter(Boolean).length;
const weight = (name: ParsedName, i: number) => (name.particle[i] ? PARTICLE_WEIGHT : name.tokens[i]!.initial ? INITIAL_WEIGHT : 1);

/**
 * Best one-to-one pairing of the two names' words (greedy on similarity, words may be joined),
 * then: mean similarity of what paired, minus a little for each word on either side left over.
 * `null` when fewer than two real words pair up (one, when a name has only one, or with `oneWord`
 * when every other word of the person's is an initial that pairs) or, for a listed `SURNAME, Given`
 * name, when nothing of the surname pairs.
 */
export function alignNames(
  query: ParsedName,
  listed: ParsedName,
  similarity: (q: Unit, l: Unit) => number = (q, l) => tokenSimilarity(q.word, l.word),
  { oneWord = false }: { oneWord?: boolean } = {},
): Alignment | null {
  const candidates: { q: Unit; l: Unit; s: number }[] = [];
  for (const q of query.units)
    for (const l of listed.units) {
      if (q.covers.length > 1 && l.covers.length > 1) continue;
      if (q.particle !== l.particle && q.word.text !== l.word.text) continue;
      // words written together pair only with the same letters written apart (`abualkhayr`, not `chenguo`/`cheng`)
      if (q.covers.length !== l.covers.length && Math.abs(q.word.folded.length - l.word.folded.length) > 1) continue;
      const s = similarity(q, l);
      // words written together must be spelt (almost) the same as apart: `yuhan` is not `yuhua`
      if (s >= (q.covers.length === l.covers.length ? MATCH_FLOOR : JOINED_FLOOR)) candidates.push({ q, l, s });
    }
  // on a tie, the surname's word: a word listed twice (`SIHAB, Ahmed Abdulrahman Sihab`) pairs where the surname rule wants it
  const inSurname = (l: Unit) => (listed.surname[l.covers[0]!] ? 0 : 1);
  candidates.sort((a, b) => b.s - a.s || a.q.covers.length + a.l.covers.length - b.q.covers.length - b.l.covers.length || inSurname(a.l) - inSurname(b.l));
  let usedQ = 0;
  let usedL = 0;
  const pairs: Alignment["pairs"] = [];
  let sum = 0;
  let weights = 0;
  let realPaired = 0;
  let listedRealPaired = 0;
  for (const { q, l, s } of candidates) {
    if (q.mask & usedQ || l.mask & usedL) continue;
    usedQ |= q.mask;
    usedL |= l.mask;
    pairs.push({ query: q.covers, listed: l.covers, similarity: s, units: { query: q, listed: l } });
    for (const i of q.covers) {
      const w = weight(query, i);
      sum += w * s;
      weights += w;
      if (query.real[i]) realPaired++;
    }
    for (const i of l.covers) if (listed.real[i]) listedRealPaired++;
  }
  // two words on each side: two of the person's written together (`Mohammad Hu` → `mohammadhu`) pairing one
  // listed word (`Mohamedou`) are one word of the list's, not two
  realPaired = Math.min(realPaired, listedRealPaired);
  const single = realWords(query) === 1 && realWords(listed) === 1;
  // one word and initials: every word of the person's pairs, an initial among them
  const initialsAside = oneWord && realPaired === 1 && query.tokens.every((_, i) => usedQ & bit(i)) && pairs.some((p) => p.units.query.word.initial);
  if (weights === 0 || (realPaired < 2 && !single && !initialsAside)) return null;
  if (listed.surname.some(Boolean) && !listed.surname.some((isSurname, i) => isSurname && usedL & bit(i))) return null;
  const leftOver = (name: ParsedName, used: number) => name.tokens.reduce((t, _, i) => t + (used & bit(i) ? 0 : weight(name, i)), 0);
  const unmatchedQuery = leftOver(query, usedQ);
  const unmatchedListed = leftOver(listed, usedL);
  const order = [...pairs].sort((a, b) => a.query[0]! - b.query[0]!).map((p) => p.listed[0]!);
  // the name a person goes by (their first word) matching nothing listed is an extra name, and a different
  // given name when a listed given name is left over too
  const firstUnpaired = query.tokens.length > 1 && query.real[0] && !(usedQ & 1);
  const givenLeftOver = listed.surname.some(Boolean) && listed.tokens.some((_, i) => listed.real[i] && !listed.surname[i] && !(usedL & bit(i)));
  const otherGivenName = firstUnpaired && givenLeftOver;
  const firstPenalty = otherGivenName ? OTHER_GIVEN_NAME : firstUnpaired ? EXTRA_FIRST_NAME : 0;
  const score = sum / weights - MISSING_QUERY_TOKEN * unmatchedQuery - MISSING_LISTED_TOKEN * unmatchedListed - firstPenalty;
  const complete = unmatchedQuery < 0.5 && unmatchedListed < 0.5 && pairs.every((p) => p.similarity >= 0.97);
  // an initial agreeing with a name is no loose resemblance of two words
  const weakest = Math.min(1, ...pairs.filter((p) => p.units.query.real && p.units.listed.real).map((p) => p.similarity));
  const reordered = order.some((v, i) => i > 0 && v < order[i - 1]!);
  const initialsOnly = realPaired < 2 && !single;
  return { score, pairs, unmatchedQuery, unmatchedListed, reordered, complete, weakest, realPaired, otherGivenName, initialsOnly };
}

/** Whether two spellings are at most `max` edits apart (a letter changed, left out, added, or two swapped): typing slips. */
export function withinEdits(a: string, b: string, max: number): boolean {
  if (Math.abs(a.length - b.length) > max) return false;
  // optimal string alignment distance, three rows at a time; stops once a whole row is past `max`
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      let d = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      row.push(d);
    }
    if (Math.min(...row) > max) return false;
    [before, previous] = [previous, row];
  }
  return previous[b.length]! <= max;
}

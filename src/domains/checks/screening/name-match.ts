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
  "ibn",
  "bint",
  "binti",
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
  const particle = tokens.map((t, i) => t.connective && i > 0 && i < tokens.length - 1);
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
  if (a.initial || b.initial) return a.text[0] === b.text[0] ? 0.8 : 0;
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
  /** pairs [query token index, listed token index] as matched (pairs from joined words repeat indices) */
  pairs: { query: number[]; listed: number[]; similarity: number }[];
  unmatchedQuery: number;
  unmatchedListed: number;
  reordered: boolean;
  /** every word on both sides paired with the same word (spelling folded): the name as listed */
  complete: boolean;
  /** the least similar pair: a word that only loosely resembles the listed one (below LOOSE_PAIR) */
  weakest: number;
}

export const MATCH_FLOOR = 0.78;
const JOINED_FLOOR = 0.94;
/** below this a pair is a loose resemblance (`othman`/`omran`, `huang`/`zhang`): screening wants a date of birth to agree */
export const LOOSE_PAIR = 0.85;
export const MISSING_QUERY_TOKEN = 0.07;
const MISSING_LISTED_TOKEN = 0.04;
const OTHER_GIVEN_NAME = 0.03;
const PARTICLE_WEIGHT = 0.15;

/** How many words identify the person (not particles, not initials). */
export const realWords = (name: ParsedName) => name.real.filter(Boolean).length;
const weight = (name: ParsedName, i: number) => (name.particle[i] ? PARTICLE_WEIGHT : name.tokens[i]!.initial ? 0.4 : 1);

/**
 * Best one-to-one pairing of the two names' words (greedy on similarity, words may be joined),
 * then: mean similarity of what paired, minus a little for each word on either side left over.
 * `null` when fewer than two real words pair up (one, when a name has only one) or, for a listed
 * `SURNAME, Given` name, when nothing of the surname pairs.
 */
export function alignNames(
  query: ParsedName,
  listed: ParsedName,
  similarity: (q: Unit, l: Unit) => number = (q, l) => tokenSimilarity(q.word, l.word),
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
  candidates.sort((a, b) => b.s - a.s || a.q.covers.length + a.l.covers.length - b.q.covers.length - b.l.covers.length);
  let usedQ = 0;
  let usedL = 0;
  const pairs: Alignment["pairs"] = [];
  let sum = 0;
  let weights = 0;
  let realPaired = 0;
  for (const { q, l, s } of candidates) {
    if (q.mask & usedQ || l.mask & usedL) continue;
    usedQ |= q.mask;
    usedL |= l.mask;
    pairs.push({ query: q.covers, listed: l.covers, similarity: s });
    for (const i of q.covers) {
      const w = weight(query, i);
      sum += w * s;
      weights += w;
      if (query.real[i]) realPaired++;
    }
  }
  const single = realWords(query) === 1 && realWords(listed) === 1;
  if (weights === 0 || (realPaired < 2 && !single)) return null;
  if (listed.surname.some(Boolean) && !listed.surname.some((isSurname, i) => isSurname && usedL & bit(i))) return null;
  const leftOver = (name: ParsedName, used: number) => name.tokens.reduce((t, _, i) => t + (used & bit(i) ? 0 : weight(name, i)), 0);
  const unmatchedQuery = leftOver(query, usedQ);
  const unmatchedListed = leftOver(listed, usedL);
  const order = [...pairs].sort((a, b) => a.query[0]! - b.query[0]!).map((p) => p.listed[0]!);
  // the name a person goes by (their first word) matching nothing listed is a different given name, not a missing one
  const firstUnpaired = query.tokens.length > 1 && query.real[0] && !(usedQ & 1) ? OTHER_GIVEN_NAME : 0;
  const score = sum / weights - MISSING_QUERY_TOKEN * unmatchedQuery - MISSING_LISTED_TOKEN * unmatchedListed - firstUnpaired;
  const complete = unmatchedQuery < 0.5 && unmatchedListed < 0.5 && pairs.every((p) => p.similarity >= 0.97);
  const weakest = Math.min(...pairs.map((p) => p.similarity));
  return { score, pairs, unmatchedQuery, unmatchedListed, reordered: order.some((v, i) => i > 0 && v < order[i - 1]!), complete, weakest };
}

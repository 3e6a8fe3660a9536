/**
 * A loaded watchlist: the parsed SDN entries, every individual's name and alias parsed once, and a
 * two-level blocking index. Level 1, over the vocabulary (~23,000 distinct words): key (sound,
 * spelling, spelling less one letter) → words. Level 2: word → names using it. A screening
 * compares each of the person's words with the few hundred listed words sharing a key, keeps the
 * similar ones, and aligns only the names holding similar words for two of the person's words.
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fromRoot } from "../../../lib/paths.js";
import { parseName, realWords, WordTable, type ParsedName, type Word } from "./name-match.js";
import { parseSdnSteps, WatchlistFormatError, type ListedName, type WatchlistEntry } from "./sdn-parse.js";

/** The list shipped with the project (data/sanctions/). */
export const SHIPPED_WATCHLIST = fromRoot("data", "sanctions", "ofac-sdn-2024-05-03.csv");

export interface WatchlistVersion {
  /** `ofac-sdn-2024-05-03+210ca6b4a818`: file date and the first 12 hex digits of its sha256 */
  id: string;
  source: "OFAC-SDN";
  fileName: string;
  /** from the file name `…YYYY-MM-DD….csv`, else null */
  publishedOn: string | null;
  sha256: string;
}

export interface IndexedName {
  entry: WatchlistEntry;
  listed: ListedName;
  parsed: ParsedName;
}

export interface Watchlist {
  version: WatchlistVersion;
  entries: WatchlistEntry[];
  /** individuals' names and aliases that are screened (single-word weak aliases are not: see README) */
  names: IndexedName[];
  vocabulary: WordTable;
  /** hash of a blocking key → ids of the real words (not particles, not initials) carrying it; a
   *  collision only adds words to compare, and hashing keeps 400,000 keys from costing ~20 MB of strings;
   *  most keys (a spelling less one letter) have one word, kept as the bare id */
  wordsByKey: Map<number, number | number[]>;
  /** word id → indices in `names` of the names using that word (alone or as two joined words) */
  namesByWord: number[][];
  stats: { entries: number; individuals: number; names: number; words: number; keys: number; buildMs: number };
  /** scratch for one screening (one at a time: screening is synchronous) */
  scratch: { hits: Uint32Array; seen: Int32Array; stamp: number };
}

/**
 * Blocking keys of a word: its Double Metaphone codes (transliterations, `Gadhafi`/`Qaddafi`), and
 * its spelling as written and folded, each whole and, from four letters on, with each letter left
 * out in turn, so two words one typo apart (`marzook`/`marzok`, `hammadou`/`hammadox`) share a key.
 */
export function blockingKeys(word: Word): string[] {
  // short words pair on sound only by chance (tokenSimilarity ignores it for them): no sound key, no huge `m:A` bucket
  const keys = new Set(word.folded.length >= 4 ? word.phonetic.map((p) => `m:${p}`) : []);
  for (const f of new Set([word.text, word.folded])) {
    keys.add(`d:${f}`);
    if (f.length >= 4) for (let i = 0; i < f.length; i++) keys.add(`d:${f.slice(0, i)}${f.slice(i + 1)}`);
  }
  return [...keys];
}

/** The ids of the words carrying a blocking key. */
export function wordsWithKey(watchlist: Watchlist, key: string): readonly number[] {
  const ids = watchlist.wordsByKey.get(keyHash(key));
  return ids === undefined ? [] : typeof ids === "number" ? [ids] : ids;
}

/** FNV-1a, 32 bits */
export function keyHash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Parses an SDN file's text and indexes it; throws WatchlistFormatError for a file that is not one. */
export function buildWatchlist(text: string, fileName: string): Watchlist {
  const steps = buildSteps(text, fileName);
  for (;;) { const step = steps.next(); if (step.done) return step.value; }
}

/** The same, a slice at a time, each on its own turn of the event loop (2–4 s of CPU, never in one block). */
export async function buildWatchlistYielding(text: string, fileName: string): Promise<Watchlist> {
  const steps = buildSteps(text, fileName);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const PER_SLICE = 500;

function* buildSteps(text: string, fileName: string): Generator<void, Watchlist> {
  const started = performance.now();
  const entries = yield* parseSdnSteps(text);
  const individuals = entries.filter((e) => e.type === "individual");
  if (individuals.length === 0) throw new WatchlistFormatError("the file lists no individuals");
  const vocabulary = new WordTable();
  const names: IndexedName[] = [];
  const namesByWord: number[][] = [];
  let done = 0;
  for (const entry of individuals) {
    for (const listed of entry.names) {
      const parsed = parseName(listed.text, vocabulary);
      if (realWords(parsed) === 0 || (listed.weak && realWords(parsed) < 2)) continue;
      const at = names.push({ entry, listed, parsed }) - 1;
      for (const { word, real } of parsed.units) {
        if (!real) continue;
        const list = (namesByWord[word.id] ??= []);
        if (list[list.length - 1] !== at) list.push(at);
      }
    }
    if (++done % PER_SLICE === 0) yield;
  }
  const wordsByKey = new Map<number, number | number[]>();
  for (const word of vocabulary.words) {
    if (!namesByWord[word.id]) continue;
    for (const key of new Set(blockingKeys(word).map(keyHash))) {
      const ids = wordsByKey.get(key);
      if (ids === undefined) wordsByKey.set(key, word.id);
      else if (typeof ids === "number") wordsByKey.set(key, [ids, word.id]);
      else ids.push(word.id);
    }
    if (word.id % (PER_SLICE * 4) === 0) yield;
  }
  const sha256 = createHash("sha256").update(text).digest("hex");
  const base = path.basename(fileName);
  const publishedOn = /(\d{4}-\d{2}-\d{2})/.exec(base)?.[1] ?? null;
  return {
    version: { id: `${base.replace(/\.csv$/i, "")}+${sha256.slice(0, 12)}`, source: "OFAC-SDN", fileName: base, publishedOn, sha256 },
    entries, names, vocabulary, wordsByKey, namesByWord,
    stats: { entries: entries.length, individuals: individuals.length, names: names.length, words: vocabulary.words.length, keys: wordsByKey.size, buildMs: Math.round(performance.now() - started) },
    scratch: { hits: new Uint32Array(names.length), seen: new Int32Array(vocabulary.words.length), stamp: 0 },
  };
}

/** Reads, parses and indexes a watchlist file once, yielding to the event loop as it goes (bench/RESULTS.md). */
export async function loadWatchlist(file: string = SHIPPED_WATCHLIST): Promise<Watchlist> {
  return buildWatchlistYielding(await readFile(file, "utf8"), file);
}

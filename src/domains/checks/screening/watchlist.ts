/**
 * A loaded watchlist: the parsed SDN individuals, every one's name and alias, and a two-level
 * blocking index. Level 1, over the vocabulary (the distinct words of every name): key (sound, spelling,
 * spelling less one letter; and for long words, spelling less two letters) → words. Level 2: word →
 * names using it. A screening (retrieval.ts) compares each of the person's words with the few hundred
 * listed words sharing a key, keeps the similar ones, and aligns only the names holding similar words
 * for two of the person's words (parsed again then: a few dozen a screening).
 *
 * Both levels are typed arrays, not Maps of arrays: the list lives as long as the process, and
 * every major GC marks what it holds. As hundreds of thousands of small objects it made every marking
 * of a serving process long, and every request's tail with it, once a screening had loaded the list
 * (docs/performance.md); as a handful of arrays it costs marking next to nothing.
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fromRoot } from "../../../lib/paths.js";
import { parseName, realWords, WordTable, type ParsedName, type Word } from "./name-match.js";
import { parseSdnSteps, WatchlistFormatError, type ListedName, type WatchlistEntry } from "./sdn-parse.js";

/** The list shipped with the project (data/sanctions/). */
export const SHIPPED_WATCHLIST = fromRoot("data", "sanctions", "ofac-sdn-2024-05-03.csv");

interface WatchlistVersion {
  /** `ofac-sdn-2024-05-03+210ca6b4a818`: file date and the first 12 hex digits of its sha256 */
  id: string;
  source: "OFAC-SDN";
  fileName: string;
  /** from the file name `…YYYY-MM-DD….csv`, else null */
  publishedOn: string | null;
  sha256: string;
}

interface IndexedName {
  entry: WatchlistEntry;
  listed: ListedName;
}

/** `ids[starts[k]] … ids[starts[k + 1] - 1]`: the members of group k */
type Groups = { starts: Uint32Array; ids: Uint32Array };

export interface Watchlist {
  version: WatchlistVersion;
  /** the individuals: entities, vessels and aircraft are counted (`stats.entries`) but not screened, so not kept */
  entries: WatchlistEntry[];
  /** individuals' names and aliases that are screened (single-word weak aliases are not: see data/sanctions/README.md) */
  names: IndexedName[];
  vocabulary: WordTable;
  /**
   * Hashes of the blocking keys, sorted, each once; `wordsByKey` group k holds the ids of the real
   * words (not particles, not initials) carrying keys[k]. A hash collision only adds words to
   * compare, and hashing keeps the keys, a few for every word, from costing a string each.
   */
  keys: Uint32Array;
  wordsByKey: Groups;
  /** group w: indices in `names` of the names using word w (alone or as two joined words) */
  namesByWord: Groups;
  stats: { entries: number; individuals: number; names: number; words: number; keys: number; buildMs: number };
  /** 1 for the names holding one word twice (`MUHAMMAD, Muhammad Ali`): one word of theirs can pair two of a person's */
  repeats: Uint8Array;
  /** scratch for one screening (one at a time: screening is synchronous): what retrieval.ts found of each name, the words looked at */
  scratch: { hits: Uint32Array; nearHits: Uint32Array; firstWord: Int32Array; spread: Uint8Array; seen: Int32Array; stamp: number };
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

/** Near keys come from listed words of this many letters on: two slips in a shorter word leave too little to tell names apart. */
const NEAR_FROM = 7;

/**
 * Near keys of a word as written: the spelling whole, less one letter and less two, none shorter than
 * NEAR_FROM - 2, so two words two typing slips apart (`kachanov`/`kcahanocv`) share one. A listed word
 * has them from NEAR_FROM letters on, a person's from NEAR_FROM - 2 (`from`). Apart from the blocking
 * keys: a word that shares only these is a near word, which counts only with more evidence (screen-person.ts).
 */
export function nearKeys(text: string, from = NEAR_FROM): string[] {
  if (text.length < from) return [];
  const keys = new Set([`n:${text}`]);
  for (let i = 0; i < text.length; i++) {
    const less = text.slice(0, i) + text.slice(i + 1);
    if (less.length < NEAR_FROM - 2) break;
    keys.add(`n:${less}`);
    if (less.length > NEAR_FROM - 2) for (let j = i; j < less.length; j++) keys.add(`n:${less.slice(0, j)}${less.slice(j + 1)}`);
  }
  return [...keys];
}

/** The index's key kinds as plain JSON, recorded with every screening result (screen-person.ts MATCHER). */
export const INDEX_CONFIG = {
  sound: { code: "double-metaphone", fromLetters: 4 },
  spelling: { forms: ["written", "folded"] },
  spellingLessOneLetter: { fromLetters: 4 },
  spellingLessTwoLetters: { fromLetters: NEAR_FROM, queryFromLetters: NEAR_FROM - 2, pairs: "near" },
} as const;

/** The ids of the words carrying a blocking key. */
export function wordsWithKey(watchlist: Watchlist, key: string): Uint32Array {
  const { keys, wordsByKey } = watchlist;
  const hash = keyHash(key);
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! < hash) lo = mid + 1;
    else hi = mid;
  }
  return keys[lo] === hash ? group(wordsByKey, lo) : EMPTY;
}

/** The indices in `names` of the names using a word. */
export const namesWithWord = (watchlist: Watchlist, wordId: number) => group(watchlist.namesByWord, wordId);

/** A listed name parsed for alignment, as the index parsed it (its words are the vocabulary's). */
export const parsedName = (watchlist: Watchlist, at: number): ParsedName => parseName(watchlist.names[at]!.listed.text, watchlist.vocabulary);

const EMPTY = new Uint32Array(0);
const group = ({ starts, ids }: Groups, k: number) => ids.subarray(starts[k]!, starts[k + 1]!);

/**
 * Groups from (group, member) pairs, members in the order given: a counting sort. `count` groups;
 * pairs as a flat list `[group, member, group, member, …]`.
 */
function groupPairs(pairs: number[], count: number): Groups {
  const starts = new Uint32Array(count + 1);
  for (let i = 0; i < pairs.length; i += 2) starts[pairs[i]! + 1]! += 1;
  for (let k = 0; k < count; k++) starts[k + 1]! += starts[k]!;
  const ids = new Uint32Array(pairs.length / 2);
  const next = starts.slice(0, count);
  for (let i = 0; i < pairs.length; i += 2) ids[next[pairs[i]!]!++] = pairs[i + 1]!;
  return { starts, ids };
}

/** FNV-1a, 32 bits */
function keyHash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Parses an SDN file's text and indexes it; throws WatchlistFormatError for a file that is not one. */
export function buildWatchlist(text: string, fileName: string): Watchlist {
  const steps = buildSteps(text, fileName);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** The same, a slice at a time, each on its own turn of the event loop (seconds of CPU, never in one block). */
export async function buildWatchlistYielding(text: string, fileName: string): Promise<Watchlist> {
  const steps = buildSteps(text, fileName);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const PER_SLICE = 200;

function* buildSteps(text: string, fileName: string): Generator<void, Watchlist> {
  const started = performance.now();
  const entries = yield* parseSdnSteps(text);
  const individuals = entries.filter((e) => e.type === "individual");
  if (individuals.length === 0) throw new WatchlistFormatError("the file lists no individuals");
  const sha256 = createHash("sha256").update(text).digest("hex");
  const base = path.basename(fileName);
  const publishedOn = /(\d{4}-\d{2}-\d{2})/.exec(base)?.[1] ?? null;
  const version: WatchlistVersion = { id: `${base.replace(/\.csv$/i, "")}+${sha256.slice(0, 12)}`, source: "OFAC-SDN", fileName: base, publishedOn, sha256 };
  return yield* indexSteps(individuals, version, entries.length, started);
}

/**
 * A watchlist of some individuals only, indexed as a whole list is, under `version`: a list update's
 * added and changed entries (watchlist-diff.ts), which a re-screen looks people up in.
 */
export function watchlistOf(individuals: WatchlistEntry[], version: WatchlistVersion): Watchlist {
  const steps = indexSteps(individuals, version, individuals.length, performance.now());
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

function* indexSteps(individuals: WatchlistEntry[], version: WatchlistVersion, entryCount: number, started: number): Generator<void, Watchlist> {
  const vocabulary = new WordTable();
  const names: IndexedName[] = [];
  const nameOfWord: number[] = []; // pairs: word id, name index
  const singles = new Set<number>(); // words that are one word of a name, not two joined: those get near keys
  const repeats = new Set<number>(); // names holding one word twice
  let done = 0;
  for (const entry of individuals) {
    for (const listed of entry.names) {
      const parsed = parseName(listed.text, vocabulary);
      if (realWords(parsed) === 0 || (listed.weak && realWords(parsed) < 2)) continue;
      const at = names.push({ entry, listed }) - 1;
      const seen = new Set<number>();
      for (const { word, real, covers } of parsed.units) {
        if (real && covers.length === 1) singles.add(word.id);
        if (real && seen.has(word.id)) repeats.add(at);
        if (real && !seen.has(word.id)) {
          seen.add(word.id);
          nameOfWord.push(word.id, at);
        }
      }
    }
    if (++done % PER_SLICE === 0) yield;
  }
  const namesByWord = groupPairs(nameOfWord, vocabulary.words.length);
  // (key hash, word id) packed in one number and sorted: 32 bits of hash above the word id's bits,
  // bucketed by the hash's top byte first, so that the sort is 256 small ones between turns of the loop
  const idBits = Math.max(1, Math.ceil(Math.log2(vocabulary.words.length + 1)));
  if (32 + idBits > 53) throw new WatchlistFormatError(`the list has ${vocabulary.words.length} distinct words: too many to index`);
  const shift = 2 ** idBits;
  const buckets: number[][] = Array.from({ length: 256 }, () => []);
  for (const word of vocabulary.words) {
    if (namesByWord.starts[word.id] === namesByWord.starts[word.id + 1]) continue; // a particle or initial only
    const keys = singles.has(word.id) ? [...blockingKeys(word), ...nearKeys(word.text)] : blockingKeys(word);
    for (const hash of new Set(keys.map(keyHash))) buckets[hash >>> 24]!.push(hash * shift + word.id);
    if (word.id % (PER_SLICE * 4) === 0) yield;
  }
  const keyList: number[] = [];
  const keyOfWord: number[] = []; // pairs: key index, word id
  for (let b = 0; b < buckets.length; b++) {
    for (const value of Float64Array.from(buckets[b]!).sort()) {
      const hash = Math.floor(value / shift);
      if (keyList[keyList.length - 1] !== hash) keyList.push(hash);
      keyOfWord.push(keyList.length - 1, value - hash * shift);
    }
    buckets[b] = [];
    if (b % 16 === 15) yield;
  }
  const keys = Uint32Array.from(keyList);
  const wordsByKey = groupPairs(keyOfWord, keys.length);
  yield;
  return {
    version,
    entries: individuals,
    names,
    vocabulary,
    keys,
    wordsByKey,
    namesByWord,
    repeats: Uint8Array.from(names, (_, at) => (repeats.has(at) ? 1 : 0)),
    stats: {
      entries: entryCount,
      individuals: individuals.length,
      names: names.length,
      words: vocabulary.words.length,
      keys: keys.length,
      buildMs: Math.round(performance.now() - started),
    },
    scratch: {
      hits: new Uint32Array(names.length),
      nearHits: new Uint32Array(names.length),
      firstWord: new Int32Array(2 * names.length),
      spread: new Uint8Array(names.length),
      seen: new Int32Array(vocabulary.words.length),
      stamp: 0,
    },
  };
}

/** Reads, parses and indexes a watchlist file once, yielding to the event loop as it goes: requests keep being answered meanwhile. */
export async function loadWatchlist(file: string = SHIPPED_WATCHLIST): Promise<Watchlist> {
  return buildWatchlistYielding(await readFile(file, "utf8"), file);
}

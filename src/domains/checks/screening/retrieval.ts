/**
 * Candidate retrieval: which listed names a screening aligns with the person's (screen-person.ts).
 * Each of the person's words is looked up in the watchlist's index (watchlist.ts) under every key
 * kind. Listed words sharing a blocking key (sound, spelling, spelling less one letter) and similar
 * enough to pair are its close words. Its near words, which pair only when the date of birth is
 * exact, are those one typing slip away but too unlike by Jaro–Winkler (`oatad`/`ostad`: the slip
 * is early in a short word), and long words sharing only a near key, two slips away. A name is a candidate
 * when it holds close or near words for two of the person's words (one, for a one-word name), so a
 * name whose spelling changed every blocking key of one word is still compared.
 */
import { MATCH_FLOOR, realWords, tokenSimilarity, withinEdits, type ParsedName, type Unit } from "./name-match.js";
import { blockingKeys, INDEX_CONFIG, namesWithWord, nearKeys, wordsWithKey, type Watchlist } from "./watchlist.js";

/** For each of the person's words: the listed words it can pair with (word id → similarity). */
export interface Retrieved {
  close: Map<Unit, Map<number, number>>;
  near: Map<Unit, Map<number, number>>;
}

/** A listed name to align: its index in `watchlist.names`, and how many of the person's words have a close word in it, or a close or near one. */
export interface Candidate {
  at: number;
  close: number;
  closeOrNear: number;
}

/** A near pair counts as a loose one: two slips in a long word say less than one in a short word's spelling. */
const NEAR_SIMILARITY = 0.8;

/** One slip leaves a word at least this alike (Jaro–Winkler, less a short word's penalty): edits are counted only from here. */
const ONE_SLIP_FLOOR = 0.7;

export const RETRIEVAL_CONFIG = {
  nearSimilarityAtLeast: NEAR_SIMILARITY,
  nearEdits: { blockingKey: 1, nearKey: 2 },
  oneSlipSimilarityFrom: ONE_SLIP_FLOOR,
} as const;

/** `near`: look for near words too (they count only with the exact date of birth: without one, they are not looked for). */
export function retrieve(query: ParsedName, watchlist: Watchlist, { near: withNear = true }: { near?: boolean } = {}): Retrieved {
  const { vocabulary, scratch } = watchlist;
  const out: Retrieved = { close: new Map(), near: new Map() };
  for (const unit of query.units) {
    if (!unit.real) continue;
    const stamp = ++scratch.stamp;
    const close = new Map<number, number>();
    const near = new Map<number, number>();
    // one word of the person's has near words: two joined ones are already spelt out as two words
    const single = withNear && unit.covers.length === 1;
    for (const key of blockingKeys(unit.word))
      for (const id of wordsWithKey(watchlist, key)) {
        if (scratch.seen[id] === stamp) continue;
        scratch.seen[id] = stamp;
        const word = vocabulary.words[id]!;
        const s = tokenSimilarity(unit.word, word);
        if (s >= MATCH_FLOOR) close.set(id, s);
        else if (single && s >= ONE_SLIP_FLOOR && withinEdits(unit.word.text, word.text, 1)) near.set(id, Math.max(NEAR_SIMILARITY, s));
      }
    if (single) nearWords(unit, watchlist, stamp, near);
    out.close.set(unit, close);
    out.near.set(unit, near);
  }
  return out;
}

/** Adds to `near` the listed words sharing a near key but no blocking key with the person's word (`stamp` marks those seen), at most two slips from it. */
function nearWords(unit: Unit, watchlist: Watchlist, stamp: number, near: Map<number, number>) {
  const { vocabulary, scratch } = watchlist;
  for (const key of nearKeys(unit.word.text, INDEX_CONFIG.spellingLessTwoLetters.queryFromLetters))
    for (const id of wordsWithKey(watchlist, key)) {
      if (scratch.seen[id] === stamp) continue;
      scratch.seen[id] = stamp;
      const word = vocabulary.words[id]!;
      if (withinEdits(unit.word.text, word.text, 2)) near.set(id, Math.max(NEAR_SIMILARITY, tokenSimilarity(unit.word, word)));
    }
}

/**
 * The names holding close or near words for at least two of the person's words (one, for a one-word
 * name), in at least two of their own words: two of the person's words alike (`Mohammed Mohammed`)
 * that find the one listed `Muhammad` of a name can pair only one of them.
 */
export function candidates(query: ParsedName, retrieved: Retrieved, watchlist: Watchlist): Candidate[] {
  const { hits, nearHits, firstWord, spread } = watchlist.scratch;
  const touched: number[] = [];
  // firstWord[2 at] / [2 at + 1]: the first listed word a close / any word of the person's found in name `at`;
  // spread[at] bit 1 / 2: a second listed word was found (close / any), or one word of the person's pair of joined ones
  const note = (at: number, slot: number, flag: number, id: number, wide: boolean) => {
    if (wide || (firstWord[slot] !== 0 && firstWord[slot] !== id + 1)) spread[at]! |= flag;
    else firstWord[slot] = id + 1;
  };
  const mark = (found: Map<Unit, Map<number, number>>, into: Uint32Array, near: boolean) => {
    for (const [unit, words] of found) {
      let bits = 0;
      for (const i of unit.covers) if (query.real[i]) bits |= 1 << Math.min(i, 30);
      const wide = popcount(bits) > 1;
      for (const id of words.keys())
        for (const at of namesWithWord(watchlist, id)) {
          if (hits[at] === 0 && nearHits[at] === 0) touched.push(at);
          into[at]! |= bits;
          if (!near) note(at, 2 * at, 1, id, wide);
          note(at, 2 * at + 1, 2, id, wide);
        }
    }
  };
  mark(retrieved.close, hits, false);
  mark(retrieved.near, nearHits, true);
  const need = Math.min(2, realWords(query));
  const out: Candidate[] = [];
  for (const at of touched) {
    const spreadOver = need < 2 || watchlist.repeats[at] ? 3 : spread[at]!;
    const closeOrNear = counted(hits[at]! | nearHits[at]!, spreadOver & 2);
    if (closeOrNear >= need) out.push({ at, close: counted(hits[at]!, spreadOver & 1), closeOrNear });
    hits[at] = nearHits[at] = spread[at] = firstWord[2 * at] = firstWord[2 * at + 1] = 0;
  }
  return out;
}

/** How many of the person's words a name holds words for: one at most, unless they are two of its own (`spreadOver`) */
const counted = (bits: number, spreadOver: number) => (spreadOver ? popcount(bits) : Math.min(1, popcount(bits)));

const popcount = (n: number) => {
  let c = 0;
  for (; n; n &= n - 1) c++;
  return c;
};

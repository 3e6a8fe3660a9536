/**
 * A least-recently-used map bounded in bytes, not only in entries. A count alone bounds nothing when
 * a caller chooses how large each key or value is (a query text as long as the body limit, a
 * document of thousands of tokens): each entry is weighed when it is set, one heavier than
 * `maxEntryBytes` is never kept, and the least recently used go while the total is over `maxBytes`.
 * A key longer than an entry may weigh is not even looked up (hashing it costs its length).
 */
export type WeighedCacheOptions<V> = {
  /** all entries together */
  maxBytes: number;
  /** one entry at most, key and value together @default maxBytes / 16 */
  maxEntryBytes?: number;
  /** how many entries, whatever they weigh @default unbounded */
  maxEntries?: number;
  /** an entry's bytes, its key included; an estimate, on the heavy side */
  weigh: (key: string, value: V) => number;
};

export function createWeighedCache<V>({ maxBytes, maxEntryBytes = maxBytes / 16, maxEntries = Infinity, weigh }: WeighedCacheOptions<V>) {
  const entries = new Map<string, { value: V; bytes: number }>();
  let total = 0;

  const remove = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    total -= entry.bytes;
  };

  return {
    get(key: string): V | undefined {
      if (key.length > maxEntryBytes) return undefined;
      const entry = entries.get(key);
      if (!entry) return undefined;
      // most recently used last: the map's order is the eviction order
      entries.delete(key);
      entries.set(key, entry);
      return entry.value;
    },
    /** keeps the value unless it weighs more than one entry may; evicts the least recently used to make room */
    set(key: string, value: V) {
      if (key.length > maxEntryBytes) return;
      remove(key);
      const bytes = weigh(key, value);
      if (bytes > maxEntryBytes) return;
      entries.set(key, { value, bytes });
      total += bytes;
      while (total > maxBytes || entries.size > maxEntries) remove(entries.keys().next().value!);
    },
    delete: remove,
    clear() {
      entries.clear();
      total = 0;
    },
    get size() {
      return entries.size;
    },
    /** what the entries weigh together */
    get bytes() {
      return total;
    },
  };
}

/** Bytes a parsed token weighs in a graphql-js document with locations (its node, token and location: about 520 measured). */
const TOKEN_BYTES = 600;

/** A parse error's weight beside its text: the error, its location and message. */
const ERROR_BYTES = 2048;

/**
 * What a query text and what it parsed to weigh: the text at two bytes a character (V8 may hold it
 * so), plus each token of the document (or a parse error). A text of whitespace is light once
 * parsed; a dense one weighs far more parsed than as text, so counting characters alone would let
 * small texts fill the cache. A document without locations counts as dense as its text could be.
 */
export function parsedBytes(text: string, parsed: unknown) {
  const start = (parsed as { loc?: { startToken?: Token } } | null)?.loc?.startToken;
  if (parsed instanceof Error || !parsed) return 2 * text.length + ERROR_BYTES;
  let tokens = start ? 0 : Math.ceil(text.length / 2);
  for (let token: Token | null | undefined = start; token; token = token.next) tokens++;
  return 2 * text.length + tokens * TOKEN_BYTES;
}

type Token = { next: Token | null };

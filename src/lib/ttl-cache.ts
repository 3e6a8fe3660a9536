import { createWeighedCache } from "./weighed-cache.js";

/**
 * Values kept in memory for a while (resolved API keys, shared lookup answers), for the hot read
 * path. Two rules that a plain map with expiry times gets wrong under load:
 * - requests that miss one key together share the first one's computation: when a busy key's entry
 *   expired, every request until the first refill ended ran its own (a stampede every TTL);
 * - `clear()` (a revoked key, a changed reference row) wins over a computation already under way:
 *   what it returns is answered to those who asked, never kept, so the old value cannot come back.
 * It holds `maxEntries` at most, the least recently used going first; where a caller chooses how
 * large a key or value is (a URL's query string, an answer), `weigh` bounds it in bytes too.
 */
export function createTtlCache<V>(
  maxEntries: number,
  { maxBytes = Infinity, weigh = () => 0 }: { maxBytes?: number; weigh?: (key: string, value: V) => number } = {},
) {
  const entries = createWeighedCache<{ value: V; until: number }>({ maxBytes, maxEntries, weigh: (key, entry) => weigh(key, entry.value) });
  const filling = new Map<string, Promise<V>>();
  let generation = 0;
  const FAILED = Symbol("failed");

  /** the value kept for `key`, or undefined (a kept value may itself be null) */
  const get = (key: string): V | undefined => {
    const hit = entries.get(key);
    if (hit && hit.until > Date.now()) return hit.value;
    if (hit) entries.delete(key);
    return undefined;
  };

  /**
   * `compute`'s value for a key that missed, kept for `ttlMs` when `keep` allows. A request that finds
   * the key being computed waits for that value; if it failed or is not one to keep (an error answer
   * names its own request), the request computes its own.
   */
  async function fill(key: string, ttlMs: number, compute: () => Promise<V>, keep: (value: V) => boolean = () => true): Promise<V> {
    const under = filling.get(key);
    if (under) {
      const shared = await under.catch(() => FAILED);
      return shared !== FAILED && keep(shared as V) ? (shared as V) : compute();
    }
    const started = generation;
    const computing = compute();
    filling.set(key, computing);
    try {
      const value = await computing;
      if (keep(value) && started === generation) entries.set(key, { value, until: Date.now() + ttlMs });
      return value;
    } finally {
      if (filling.get(key) === computing) filling.delete(key);
    }
  }

  const clear = () => {
    entries.clear();
    filling.clear();
    generation += 1;
  };
  return { get, fill, clear };
}

/**
 * What a list update changed, for a re-screen (checks.rescreen.ts): the individuals added, changed
 * and removed between two loaded lists, by `ent_num`, "changed" meaning a different fingerprint
 * (fingerprints.ts: names, dates of birth, nationalities; a new program or remark changes no
 * identity). Only individuals are screened, so only they are compared: both lists keep no other.
 * Pure: lists in, ids and a small list out.
 */
import { entryFingerprint } from "./fingerprints.js";
import { watchlistOf, type Watchlist } from "./watchlist.js";

export type WatchlistDiff = { added: string[]; changed: string[]; removed: string[] };

/** The individuals of `next` not in `previous`, in both but fingerprinted differently, and in `previous` only; each in `ent_num` order. */
export function diffWatchlists(previous: Watchlist, next: Watchlist): WatchlistDiff {
  const before = new Map(previous.entries.map((entry) => [entry.id, entryFingerprint(entry)]));
  const added: string[] = [];
  const changed: string[] = [];
  for (const entry of next.entries) {
    const was = before.get(entry.id);
    if (was === undefined) added.push(entry.id);
    else if (was !== entryFingerprint(entry)) changed.push(entry.id);
    before.delete(entry.id);
  }
  const byNumber = (a: string, b: string) => a.localeCompare(b, "en", { numeric: true });
  return { added: added.sort(byNumber), changed: changed.sort(byNumber), removed: [...before.keys()].sort(byNumber) };
}

/**
 * The entries of `list` among `ids` (an update's added and changed ones), indexed as a list of their
 * own under `list`'s version: whoever retrieval finds in it could match what the update brought.
 * Ids `list` no longer holds (removed by a later update) are left out.
 */
export function entriesList(list: Watchlist, ids: Iterable<string>): Watchlist {
  const wanted = new Set(ids);
  return watchlistOf(
    list.entries.filter((entry) => wanted.has(entry.id)),
    list.version,
  );
}

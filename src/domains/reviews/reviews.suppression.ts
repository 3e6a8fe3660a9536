/**
 * Decided false positives stay quiet: a hit a reviewer decided FALSE_POSITIVE, in a review whose
 * decision took effect, is suppressed in later screenings of that user while the entry's and the
 * user's fingerprints hold (screen-person.ts marks such a match `suppressed`).
 */
import type { Db } from "../../db/client.js";

const SUPPRESSED = `select h.user_id::text as "userId", h.entry_id || ':' || h.entry_hash || ':' || h.subject_hash as key
  from review_hits h join reviews r on r.id = h.review_id
  where h.user_id = any($1::uuid[]) and h.decision = 'FALSE_POSITIVE' and r.status = 'CLOSED'`;

/** Per user, `entryId:entryHash:subjectHash` of their suppressed hits: one statement for every user. */
export async function suppressedHits(db: Db, userIds: string[]): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  if (!userIds.length) return out;
  for (const { userId, key } of await db.$queryRawUnsafe<{ userId: string; key: string }[]>(SUPPRESSED, userIds)) {
    const keys = out.get(userId) ?? new Set<string>();
    out.set(userId, keys.add(key));
  }
  return out;
}

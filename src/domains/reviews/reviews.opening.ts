/**
 * Opening reviews, inside the write that completed the runs (src/flows/settle-users.ts calls it as it settles
 * users): a run that needs a person opens a review of its type for the user, or adds its net-new hits to
 * the one still waiting for a decision. A hit is net-new when no review of the user has held the same
 * entry with the same fingerprints (the entry's data and the user's screened data): a re-screen that
 * finds the same thing again raises no alert; a changed entry or changed data does. A decision still
 * waiting for its approval was made without the newer finding: the finding withdraws it and the review
 * is open again, so no approval ever takes effect against what its decider never saw.
 */
import { stamps } from "../../db/insert-rows.js";
import type { CheckType } from "../../../generated/prisma/enums.js";
import type { Write } from "../../platform/write.js";
import { hitsOf, needsReview, NOT_CLOSED, reviewRiskOf, type CompletedRun, type RecordedMatch } from "./reviews.rules.js";
import { reviewEvent } from "./reviews.view.js";

const hitKey = (m: Pick<RecordedMatch, "entryId" | "entryHash" | "subjectHash">) => `${m.entryId}:${m.entryHash}:${m.subjectHash}`;

/** The users' data as screened (what the reviewer compares with the list entry), by user id. */
export type Screened = {
  id: string;
  firstName: string | null;
  middleName: string | null;
  lastName: string | null;
  dateOfBirth: string | null;
  nationality: string | null;
};

/** The import whose re-screen alerted: its last alert's time is what /metrics reports. */
const LIST_UPDATE_ALERTED = `update watchlist_imports set last_alert_at = $1::timestamp(3)
  where id = (select id from watchlist_imports order by imported_at desc limit 1)`;

/**
 * Opens or extends the reviews `runs` call for; `statusOf`: each user's status after the settlement;
 * `screenedOf`: the users' data as screened, read only when a review opens.
 */
export async function openReviews(
  write: Write,
  runs: readonly CompletedRun[],
  statusOf: (userId: string) => string,
  screenedOf: (userIds: string[]) => Promise<Screened[]>,
) {
  const needing = runs.filter((run) => needsReview(run, statusOf(run.userId)));
  if (!needing.length) return;
  const { tx } = write;
  const userIds = [...new Set(needing.map((run) => run.userId))];
  const [existing, seenHits] = await Promise.all([
    tx.review.findMany({ where: { userId: { in: userIds }, status: { in: NOT_CLOSED } }, select: { id: true, userId: true, type: true, status: true } }),
    tx.reviewHit.findMany({ where: { userId: { in: userIds } }, select: { reviewId: true, userId: true, entryId: true, entryHash: true, subjectHash: true } }),
  ]);
  const seen = new Set(seenHits.map((h) => `${h.userId}:${hitKey(h)}`));
  const opened: CompletedRun[] = [];
  const now = new Date();
  for (const run of needing) {
    const fresh = hitsOf(run).filter((m) => !seen.has(`${run.userId}:${hitKey(m)}`));
    for (const m of fresh) seen.add(`${run.userId}:${hitKey(m)}`);
    const screening = run.type === "SANCTIONS_SCREENING";
    if (screening && !fresh.length) continue; // nothing a reviewer has not seen
    const waiting = existing.find((r) => r.userId === run.userId && r.type === run.type);
    if (waiting) {
      // an entry the review holds that changed since: its hit is the changed one now, undecided
      const changed = fresh.filter((m) => seenHits.some((h) => h.reviewId === waiting.id && h.entryId === m.entryId)).map((m) => m.entryId);
      if (changed.length) await tx.reviewHit.deleteMany({ where: { reviewId: waiting.id, entryId: { in: changed } } });
      const reopened = waiting.status === "PENDING_APPROVAL";
      await tx.review.update({
        where: { id: waiting.id },
        data: {
          checkRunId: run.id,
          reasons: reasonsOf(run),
          riskScore: reviewRiskOf(run),
          version: { increment: 1 },
          updatedAt: write.now(run.clientId),
          ...(reopened ? await withdrawnDecision(write, waiting.id) : {}),
          hits: { create: fresh.map((m) => hitRow(run, m)) },
        },
      });
      waiting.status = reopened ? "OPEN" : waiting.status;
      write.emit("review.updated", run.clientId, { reviewId: waiting.id, userId: run.userId, change: reopened ? "reopened" : "hits_added" });
      continue;
    }
    opened.push({ ...run, result: { ...(run.result as object), matches: fresh } });
  }
  if (!opened.length) return;
  const screened = await screenedOf([...new Set(opened.map((run) => run.userId))]);
  for (const run of opened) {
    const person = screened.find((s) => s.id === run.userId)!;
    const review = await tx.review.create({
      data: {
        clientId: run.clientId,
        userId: run.userId,
        type: run.type as CheckType,
        checkRunId: run.id,
        riskScore: reviewRiskOf(run),
        reasons: reasonsOf(run),
        screened: { ...person, id: undefined },
        ...stamps(write.now(run.clientId)),
        hits: { create: hitsOf(run).map((m) => hitRow(run, m)) },
      },
      include: { hits: { select: { id: true, entryId: true } } },
    });
    write.audit({ action: "review.opened", targetType: "review", targetId: review.id });
    write.emit("review.opened", run.clientId, reviewEvent(review));
  }
  if (opened.some((run) => run.trigger === "LIST_UPDATE")) await tx.$executeRawUnsafe(LIST_UPDATE_ALERTED, now.toISOString());
}

const reasonsOf = (run: CompletedRun) => ((run.result as { reasons?: string[] } | null)?.reasons ?? []).slice(0, 50);

const hitRow = (run: CompletedRun, m: RecordedMatch) => ({
  clientId: run.clientId,
  userId: run.userId,
  checkRunId: run.id,
  list: m.list,
  listVersion: m.listVersion,
  entryId: m.entryId,
  entryHash: m.entryHash,
  subjectHash: m.subjectHash,
  score: m.score,
  match: m as object,
});

/**
 * A decision waiting for approval, withdrawn: the review's fields that open it again (its hits'
 * decisions cleared, to be made anew). Its note stays until the next decision replaces it; the
 * withdrawal is in the audit trail.
 */
export async function withdrawnDecision(write: Write, reviewId: string) {
  await write.tx.reviewHit.updateMany({ where: { reviewId }, data: { decision: null } });
  write.audit({ action: "review.reopened", targetType: "review", targetId: reviewId, changedFields: ["status", "outcome", "reasonCode", "note", "hits"] });
  return { status: "OPEN", outcome: null, reasonCode: null, decidedById: null, decidedAt: null } as const;
}

/**
 * A reviewer's decision on a review, and a second reviewer's approval: the use case that takes a
 * review from a person's judgement to the user's state. Read top to bottom:
 *
 * 1. The review and its user are locked, user first (reviewUnderLocks), as a settlement locks them.
 * 2. The decision is checked (reviews.rules.ts) and each hit's decision recorded.
 * 3. ESCALATE hands the review on. CLEAR and REJECT take effect at once, unless four eyes are needed
 *    (`needsSecondReviewer`: weighed on the user's risk apart from this check and the levels of what
 *    the review holds); then the review waits in PENDING_APPROVAL.
 * 4. An approval by a different person, unless a newer finding waits (then the decision is withdrawn
 *    and the review reopens), takes effect.
 * 5. Taking effect: the decision becomes a person's completed run of the review's check type
 *    (carriedToUser → settle-users.ts `recordCompletedRun`), which settles the user in the same write.
 */
import type { CheckType } from "../../generated/prisma/enums.js";
import type { RequestContext } from "../context.js";
import { DomainError, invalid } from "../lib/errors.js";
import type { Write } from "../platform/write.js";
import { riskApartFrom, runStatuses, automaticRunStatusesSince } from "../domains/checks/checks.store.js";
import { withdrawnDecision } from "../domains/reviews/reviews.opening.js";
import {
  decidedStatus,
  decisionErrors,
  hitLevel,
  needsSecondReviewer,
  noteErrors,
  samePerson,
  UNDECIDED,
  type DecisionInput,
} from "../domains/reviews/reviews.rules.js";
import { ACTIONS_ON, decidedHits, getReview, lockedReview, reviewerOf, reviewOwner, supersededDecision } from "../domains/reviews/reviews.service.js";
import { reviewEvent } from "../domains/reviews/reviews.view.js";
import { lockUser } from "../domains/users/users.store.js";
import { recordCompletedRun } from "./settle-users.js";

type Selection = Parameters<typeof getReview>[2];

/** The review under its lock, its user's row locked first. */
async function reviewUnderLocks(write: Write, ctx: RequestContext, id: string) {
  const userId = await reviewOwner(write, ctx, id);
  if (userId) await lockUser(write.tx, userId);
  return lockedReview(write, ctx, id);
}

export type Decision = DecisionInput & { reviewId: string };

/**
 * A reviewer's decision. ESCALATE hands the review on; CLEAR and REJECT record each hit's decision and
 * take effect at once, unless four eyes are needed (needsSecondReviewer): then the review waits in
 * PENDING_APPROVAL for a different reviewer's approval.
 */
export async function decideReview(ctx: RequestContext, input: Decision, query?: Selection) {
  const me = reviewerOf(ctx);
  const id = await ctx.transact(ctx, async (write) => {
    const review = await reviewUnderLocks(write, ctx, input.reviewId);
    if (!UNDECIDED.includes(review.status)) throw ACTIONS_ON(review.status, "decided");
    const errors = decisionErrors(
      input,
      review.hits.map((h) => h.id),
    );
    if (errors.length || !input.outcome) throw invalid(errors);
    const outcome = input.outcome;
    // one statement per decision, whatever the number of hits
    for (const decision of ["FALSE_POSITIVE", "TRUE_MATCH"] as const) {
      const ids = (input.hits ?? []).filter((h) => h.decision === decision).map((h) => h.hitId);
      if (ids.length) await write.tx.reviewHit.updateMany({ where: { id: { in: ids }, reviewId: review.id }, data: { decision } });
    }
    const decided = {
      outcome,
      reasonCode: input.reasonCode!,
      note: input.note ?? null,
      decidedById: me.id,
      decidedAt: write.now(),
      updatedAt: write.now(),
      version: { increment: 1 },
    };
    if (outcome === "ESCALATE") {
      await write.tx.review.update({ where: { id: review.id }, data: { ...decided, status: "ESCALATED", assigneeId: null } });
      write.audit({ action: "review.escalated", targetType: "review", targetId: review.id, changedFields: ["status", "outcome", "reasonCode", "note"] });
      write.emit("review.updated", review.clientId, { reviewId: review.id, userId: review.userId, change: "escalated" });
      return review.id;
    }
    const waits = needsSecondReviewer(outcome, { riskApart: await riskApartFrom(write.tx, review.userId, review.type), held: await heldLevels(write, review) });
    const updated = await write.tx.review.update({
      where: { id: review.id },
      data: { ...decided, status: waits ? "PENDING_APPROVAL" : "CLOSED", ...(waits ? {} : await carriedToUser(write, review, outcome, decided.reasonCode)) },
      include: { hits: { select: { id: true, entryId: true } } },
    });
    write.audit({ action: "review.decided", targetType: "review", targetId: review.id, changedFields: ["status", "outcome", "reasonCode", "note", "hits"] });
    write.emit("review.decided", review.clientId, reviewEvent(updated));
    return review.id;
  });
  return getReview(ctx, id, query);
}

/** A second reviewer's approval of a decision waiting in PENDING_APPROVAL: it takes effect now. */
export async function approveReview(ctx: RequestContext, input: { reviewId: string; note?: string | null }, query?: Selection) {
  const me = reviewerOf(ctx);
  const errors = noteErrors(input.note);
  if (errors.length) throw invalid(errors);
  const id = await ctx.transact(ctx, async (write) => {
    const review = await reviewUnderLocks(write, ctx, input.reviewId);
    if (review.status !== "PENDING_APPROVAL") throw ACTIONS_ON(review.status, "approved");
    if (!review.decidedBy || samePerson(review.decidedBy, me))
      throw new DomainError("SECOND_REVIEWER_REQUIRED", "You decided this review: a second, different reviewer must approve it.");
    if (await supersededDecision(write, review)) {
      await write.tx.review.update({
        where: { id: review.id },
        data: { ...(await withdrawnDecision(write, review.id)), version: { increment: 1 }, updatedAt: write.now() },
      });
      write.emit("review.updated", review.clientId, { reviewId: review.id, userId: review.userId, change: "reopened" });
      return null;
    }
    const outcome = review.outcome as "CLEAR" | "REJECT";
    const note = input.note ? [review.note, `Approval: ${input.note}`].filter(Boolean).join("\n") : review.note;
    const updated = await write.tx.review.update({
      where: { id: review.id },
      data: {
        status: "CLOSED",
        approvedById: me.id,
        approvedAt: write.now(),
        updatedAt: write.now(),
        note,
        version: { increment: 1 },
        ...(await carriedToUser(write, review, outcome, review.reasonCode!)),
      },
      include: { hits: { select: { id: true, entryId: true } } },
    });
    write.audit({ action: "review.approved", targetType: "review", targetId: review.id, changedFields: ["status", "approvedById"] });
    write.emit("review.decided", review.clientId, reviewEvent(updated));
    return review.id;
  });
  if (!id)
    throw new DomainError(
      "INVALID_STATE_TRANSITION",
      "A finding newer than this decision waits in another review: the decision is withdrawn and the review is OPEN again.",
    );
  return getReview(ctx, id, query);
}

/**
 * The levels of the findings a review holds, for four eyes: each hit's (the matcher's verdict, or its
 * run's status), or for a review without hits every automatic run of its type since it opened.
 */
async function heldLevels(
  write: Write,
  review: { userId: string; type: CheckType; checkRunId: string; createdAt: Date; hits: { match: unknown; checkRunId: string }[] },
) {
  if (review.hits.length) {
    const statuses = await runStatuses(
      write.tx,
      review.hits.map((h) => h.checkRunId),
    );
    return review.hits.map((h) => hitLevel(h.match, statuses.get(h.checkRunId) ?? "CONSIDER"));
  }
  return automaticRunStatusesSince(write.tx, review);
}

/** The decision as a person's result on the user's checks (it settles the user); the run's id goes on the review. */
async function carriedToUser(
  write: Write,
  review: { id: string; clientId: string; userId: string; type: CheckType },
  outcome: "CLEAR" | "REJECT",
  reasonCode: string,
) {
  const hits = await decidedHits(write, review.id);
  const run = await recordCompletedRun(write, {
    clientId: review.clientId,
    userId: review.userId,
    type: review.type,
    trigger: "REVIEW",
    decidedBy: "OPERATOR",
    outcome: {
      status: decidedStatus(outcome),
      score: outcome === "REJECT" ? 1 : 0,
      reasons: [`review:${review.id}`, `reason:${reasonCode}`],
      matches: hits.map((h) => ({ hitId: h.id, list: h.list, entryId: h.entryId, score: h.score, decision: h.decision })),
      provider: "review",
    },
  });
  return { decisionRunId: run.id };
}

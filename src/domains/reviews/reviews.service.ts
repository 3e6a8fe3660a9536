/**
 * Reviews of a client, worked by its reviewers: the queue, one review, assigning, deciding and the
 * second reviewer's approval. A decision that takes effect reaches the user as a person's result of
 * the review's check type (src/flows/settle-users.ts `recordCompletedRun`), in the same write.
 */
import type { Prisma } from "../../../generated/prisma/client.js";
import type { CheckType, ReviewStatus } from "../../../generated/prisma/enums.js";
import type { RequestContext } from "../../context.js";
import { tenantOf } from "../../context.js";
import { DomainError, invalid } from "../../lib/errors.js";
import { foundOr404 } from "../../lib/found.js";
import { isUuid } from "../../lib/ids.js";
import type { Reviewer } from "../../principal.js";
import type { Write } from "../../platform/write.js";
import { riskApartFrom } from "../checks/checks.store.js";
import { recordCompletedRun } from "../../flows/settle-users.js";
import { withdrawnDecision } from "./reviews.opening.js";
import { decidedStatus, decisionErrors, hitLevel, needsSecondReviewer, noteErrors, samePerson, UNDECIDED, type DecisionInput } from "./reviews.rules.js";
import { reviewEvent } from "./reviews.view.js";

type Selection = { select?: Prisma.ReviewSelect; include?: Prisma.ReviewInclude };

/** The reviewer the caller's key belongs to; only reviewer keys hold compliance:review, so this holds for every review operation. */
export function reviewerOf(ctx: RequestContext): Reviewer {
  const reviewer = ctx.principal.kind === "client" ? ctx.principal.reviewer : null;
  if (!reviewer) throw new DomainError("FORBIDDEN", "Reviews need a reviewer's key (issued by the operator).");
  return reviewer;
}

export type ReviewFilter = { status?: readonly ReviewStatus[] | null; type?: CheckType | null; assignee?: string | null };

function whereOf(ctx: RequestContext, filter: ReviewFilter): Prisma.ReviewWhereInput {
  const { assignee } = filter;
  if (assignee && assignee !== "me" && assignee !== "none" && !isUuid(assignee))
    throw invalid([{ field: "assignee", code: "invalid", message: "assignee must be me, none or a reviewer id." }]);
  return {
    clientId: tenantOf(ctx),
    ...(filter.status?.length ? { status: { in: [...filter.status] } } : {}),
    ...(filter.type ? { type: filter.type } : {}),
    ...(assignee ? { assigneeId: assignee === "me" ? reviewerOf(ctx).id : assignee === "none" ? null : assignee } : {}),
  };
}

/** The queue: highest risk first, then oldest. */
export function findReviews(ctx: RequestContext, filter: ReviewFilter, query?: Selection) {
  reviewerOf(ctx);
  const where = whereOf(ctx, filter);
  return {
    count: () => ctx.db.review.count({ where }),
    page: ({ offset, limit }: { offset: number; limit: number }) =>
      ctx.db.review.findMany({ ...query, where, orderBy: [{ riskScore: "desc" }, { createdAt: "asc" }, { id: "asc" }], skip: offset, take: limit }),
  };
}

export function getReview(ctx: RequestContext, id: string, query?: Selection) {
  reviewerOf(ctx);
  const clientId = tenantOf(ctx);
  return foundOr404("review", id, (id) => ctx.db.review.findFirst({ ...query, where: { id, clientId } }));
}

/** Counts by status and the oldest undecided review's creation: what the console's header shows. */
export async function reviewQueue(ctx: RequestContext) {
  reviewerOf(ctx);
  const clientId = tenantOf(ctx);
  const [counts, oldest] = await Promise.all([
    ctx.db.review.groupBy({ by: ["status"], where: { clientId, status: { not: "CLOSED" } }, _count: { _all: true } }),
    ctx.db.review.findFirst({ where: { clientId, status: { in: UNDECIDED } }, orderBy: { createdAt: "asc" }, select: { createdAt: true } }),
  ]);
  const count = (status: ReviewStatus) => counts.find((c) => c.status === status)?._count._all ?? 0;
  return { open: count("OPEN"), escalated: count("ESCALATED"), pendingApproval: count("PENDING_APPROVAL"), oldestOpenAt: oldest?.createdAt ?? null };
}

/**
 * The review under its row's lock, within the write: two decisions on one review never both pass their
 * checks. Its user's row is locked first, in the order a settlement locks them (user, then the
 * user's reviews), so a decision and a settlement of the same user wait for each other instead of
 * deadlocking.
 */
async function lockedReview(write: Write, ctx: RequestContext, id: string) {
  const clientId = tenantOf(ctx);
  const review = await foundOr404("review", id, async (id) => {
    const [owner] = await write.tx.$queryRawUnsafe<{ id: string }[]>(
      `select id::text from users where id = (select user_id from reviews where id = $1::uuid and client_id = $2::uuid) for update`,
      id,
      clientId,
    );
    if (!owner) return null;
    await write.tx.$queryRawUnsafe(`select id from reviews where id = $1::uuid for update`, id);
    return write.tx.review.findUnique({
      where: { id },
      include: {
        hits: { select: { id: true, entryId: true, match: true, checkRunId: true } },
        decidedBy: { select: { id: true, email: true } },
      },
    });
  });
  return review;
}

const ACTIONS_ON = (status: ReviewStatus, action: string) => new DomainError("INVALID_STATE_TRANSITION", `The review is ${status}: it cannot be ${action}.`);

export async function assignReview(ctx: RequestContext, input: { reviewId: string; assigneeId?: string | null }, query?: Selection) {
  const me = reviewerOf(ctx);
  const clientId = tenantOf(ctx);
  const assigneeId = input.assigneeId ?? me.id;
  const id = await ctx.transact(ctx, async (write) => {
    const review = await lockedReview(write, ctx, input.reviewId);
    if (!UNDECIDED.includes(review.status)) throw ACTIONS_ON(review.status, "assigned");
    const assignee = isUuid(assigneeId) ? await write.tx.reviewer.findFirst({ where: { id: assigneeId, clientId } }) : null;
    if (!assignee) throw invalid([{ field: "assigneeId", code: "invalid", message: "assigneeId must be a reviewer of your client." }]);
    await write.tx.review.update({ where: { id: review.id }, data: { assigneeId, version: { increment: 1 }, updatedAt: write.now() } });
    write.audit({ action: "review.assigned", targetType: "review", targetId: review.id, changedFields: ["assigneeId"] });
    write.emit("review.updated", clientId, { reviewId: review.id, userId: review.userId, change: "assigned" });
    return review.id;
  });
  return getReview(ctx, id, query);
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
    const review = await lockedReview(write, ctx, input.reviewId);
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
    const review = await lockedReview(write, ctx, input.reviewId);
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
 * Whether a finding newer than the decision waits in another review of the user and type: one opened
 * after the decision, or one still undecided beside it. A finding that arrives while a decision waits
 * for approval withdraws it (reviews.opening.ts); this keeps the rule where two reviews of one user and
 * type are open side by side.
 */
async function supersededDecision(write: Write, review: { id: string; userId: string; type: CheckType; decidedAt: Date | null }) {
  const newer = await write.tx.review.count({
    where: {
      userId: review.userId,
      type: review.type,
      id: { not: review.id },
      OR: [{ status: { in: UNDECIDED } }, ...(review.decidedAt ? [{ createdAt: { gt: review.decidedAt } }] : [])],
    },
  });
  return newer > 0;
}

/**
 * The levels of the findings a review holds, for four eyes: each hit's (the matcher's verdict, or its
 * run's status), or for a review without hits every automatic run of its type since it opened.
 */
async function heldLevels(
  write: Write,
  review: { userId: string; type: CheckType; checkRunId: string; createdAt: Date; hits: { match: unknown; checkRunId: string }[] },
) {
  const { tx } = write;
  if (review.hits.length) {
    const runs = await tx.checkRun.findMany({ where: { id: { in: [...new Set(review.hits.map((h) => h.checkRunId))] } }, select: { id: true, status: true } });
    return review.hits.map((h) => hitLevel(h.match, runs.find((r) => r.id === h.checkRunId)?.status ?? "CONSIDER"));
  }
  const runs = await tx.checkRun.findMany({
    where: {
      userId: review.userId,
      type: review.type,
      OR: [{ id: review.checkRunId }, { completedAt: { gte: review.createdAt }, decidedBy: { not: "OPERATOR" } }],
    },
    select: { status: true },
  });
  return runs.map((r) => r.status);
}

/** The decision as a person's result on the user's checks (it settles the user); the run's id goes on the review. */
async function carriedToUser(
  write: Write,
  review: { id: string; clientId: string; userId: string; type: CheckType },
  outcome: "CLEAR" | "REJECT",
  reasonCode: string,
) {
  const hits = await write.tx.reviewHit.findMany({
    where: { reviewId: review.id },
    select: { id: true, entryId: true, list: true, decision: true, score: true },
  });
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

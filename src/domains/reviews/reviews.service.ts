/**
 * Reviews of a client, worked by its reviewers: the queue, one review, assigning, and what a decision
 * needs of the reviews themselves (the review locked, a newer finding). Deciding and approving cross
 * into the user's checks: they are a flow (src/flows/decide-review.ts).
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
import { UNDECIDED } from "./reviews.rules.js";

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

/** The user of a review of the caller's client (null: no such review): a decision locks that user first. */
export async function reviewOwner(write: Write, ctx: RequestContext, id: string) {
  const review = isUuid(id) ? await write.tx.review.findFirst({ where: { id, clientId: tenantOf(ctx) }, select: { userId: true } }) : null;
  return review?.userId ?? null;
}

/**
 * The review under its row's lock, within the write: two decisions on one review never both pass their
 * checks. A write that also settles the user locks the user first (reviewOwner), in the order a
 * settlement locks them (user, then the user's reviews), so the two wait for each other instead of
 * deadlocking.
 */
export async function lockedReview(write: Write, ctx: RequestContext, id: string) {
  const clientId = tenantOf(ctx);
  return foundOr404("review", id, async (id) => {
    const [locked] = await write.tx.$queryRawUnsafe<{ id: string }[]>(
      `select id::text from reviews where id = $1::uuid and client_id = $2::uuid for update`,
      id,
      clientId,
    );
    if (!locked) return null;
    return write.tx.review.findUnique({
      where: { id },
      include: {
        hits: { select: { id: true, entryId: true, match: true, checkRunId: true } },
        decidedBy: { select: { id: true, email: true } },
      },
    });
  });
}

/** A review that cannot take `action` in `status`. */
export const ACTIONS_ON = (status: ReviewStatus, action: string) =>
  new DomainError("INVALID_STATE_TRANSITION", `The review is ${status}: it cannot be ${action}.`);

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

/**
 * Whether a finding newer than the decision waits in another review of the user and type: one opened
 * after the decision, or one still undecided beside it. A finding that arrives while a decision waits
 * for approval withdraws it (reviews.opening.ts); this keeps the rule where two reviews of one user and
 * type are open side by side.
 */
export async function supersededDecision(write: Write, review: { id: string; userId: string; type: CheckType; decidedAt: Date | null }) {
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

/** The review's hits as its decision carries them to the user's checks. */
export const decidedHits = (write: Write, reviewId: string) =>
  write.tx.reviewHit.findMany({ where: { reviewId }, select: { id: true, entryId: true, list: true, decision: true, score: true } });

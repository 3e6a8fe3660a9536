/**
 * Check runs of a client's users, and verification: a user with nothing currently due moves
 * to IN_REVIEW and gets a queued run of each check type (src/flows/run-checks.ts runs them).
 */
import type { Prisma } from "../../../generated/prisma/client.js";
import type { RequestContext } from "../../context.js";
import { tenantOf } from "../../context.js";
import { DomainError, invalid } from "../../lib/errors.js";
import { foundOr404 } from "../../lib/found.js";
import type { CheckType } from "../../../generated/prisma/enums.js";
import { dueAsFieldErrors } from "../compliance/compliance.rules.js";
import { REQUIREMENT_COLUMNS, requirementsOf } from "../compliance/compliance.service.js";
import { checkStatusMove } from "../users/users.rules.js";
import { getUser } from "../users/users.service.js";
import { CHECK_TYPES, reasonsErrors, type CheckOutcome } from "./checks.rules.js";
import { enqueueChecks } from "./checks.store.js";
import { completeRun } from "../../flows/run-checks.js";
import { userStateOf } from "../users/users.store.js";
import { postedMatchesErrors, storedMatches } from "./checks.matches.js";

type Selection = { select?: Prisma.CheckRunSelect; include?: Prisma.CheckRunInclude };

/** A user's runs, newest first; another client's user is 404. */
export function findChecks(ctx: RequestContext, userId: string, query?: Selection) {
  const owned = getUser(ctx, userId, { select: { id: true } });
  owned.catch(() => {}); // awaited below; a list refused for its paging arguments never reaches it
  const where = { userId, clientId: tenantOf(ctx) };
  return {
    count: async () => {
      await owned;
      return ctx.db.checkRun.count({ where });
    },
    page: async ({ offset, limit }: { offset: number; limit: number }) => {
      await owned;
      return ctx.db.checkRun.findMany({ ...query, where, orderBy: [{ createdAt: "desc" }, { id: "desc" }], skip: offset, take: limit });
    },
  };
}

export async function submitVerification(ctx: RequestContext, userId: string) {
  const clientId = tenantOf(ctx);
  const user = await getUser(ctx, userId, { select: { ...REQUIREMENT_COLUMNS, id: true, status: true, version: true } });
  // requirements are read before the transaction: on PGlite a read outside an open transaction would wait for it
  const requirements = await requirementsOf(ctx, user, ctx.now());
  if (requirements.currentlyDue.length)
    throw new DomainError(
      "REQUIREMENTS_DUE",
      `Verification needs what is still due: ${requirements.currentlyDue.join(", ")}.`,
      dueAsFieldErrors(requirements.rules, requirements),
      { currentlyDue: requirements.currentlyDue },
    );
  if (user.status === "IN_REVIEW") throw new DomainError("INVALID_STATE_TRANSITION", "The user is already IN_REVIEW: wait for its checks to complete.");
  checkStatusMove(user.status, "IN_REVIEW", { byCaller: false });
  return ctx.transact(ctx, async (write) => {
    const { tx, audit, emit } = write;
    // the version read above: a change in between (new data, another submission) must be verified afresh
    await tx.user
      .update({ where: { id: user.id, version: user.version }, data: { status: "IN_REVIEW", kycStatus: "PENDING", version: { increment: 1 } } })
      .catch((error: { code?: string }) => {
        if (error?.code === "P2025") throw new DomainError("CONFLICT", "The user changed while verification was being submitted: read it again and retry.");
        throw error;
      });
    const checks = await enqueueChecks(write, { clientId, userId: user.id }, CHECK_TYPES, "VERIFICATION");
    audit({ action: "user.verification_submitted", targetType: "user", targetId: user.id, changedFields: ["status", "kycStatus"] });
    emit("user.status.updated", clientId, { userId: user.id, status: "IN_REVIEW", previousStatus: user.status, user: await userStateOf(tx, user.id) });
    return { userId: user.id, status: "IN_REVIEW" as const, checks };
  });
}

export type PostedResult = {
  checkId: string;
  status?: CheckOutcome["status"] | null;
  decidedBy?: PostedDecider | null;
  score?: number | null;
  reasons?: readonly string[] | null;
  matches?: readonly unknown[] | null;
};
export type PostedDecider = "OPERATOR" | "PROVIDER";

const required = (field: string) => ({ field, code: "required", message: `${field} is required.` });

/**
 * A person's or an upstream provider's result (the operator key): replaces whatever the run
 * holds, in any state, and settles the user. It stands: later automatic runs may raise the user's
 * risk, never lower what it set, until a person (or, for a provider's, that provider) posts again.
 * The run is looked up before the body is judged: an unknown id, or another client's, is 404.
 */
export async function recordCheckResult(ctx: RequestContext, posted: PostedResult) {
  const run = await findRun(ctx, posted.checkId);
  const errors = [
    ...(posted.status ? [] : [required("status")]),
    ...(posted.score != null && !(posted.score >= 0 && posted.score <= 1)
      ? [{ field: "score", code: "out_of_range", message: "score must be from 0 to 1." }]
      : []),
    ...reasonsErrors(posted.reasons),
    ...postedMatchesErrors(posted.matches),
  ];
  if (errors.length || !posted.status) throw invalid(errors);
  const decidedBy = posted.decidedBy ?? "OPERATOR";
  await checkDecisionOrder(ctx, run, decidedBy);
  const outcome: CheckOutcome = {
    status: posted.status,
    score: posted.score ?? UPSTREAM_SCORE[posted.status],
    reasons: [...(posted.reasons ?? [])],
    matches: storedMatches(posted.matches),
    provider: "upstream",
  };
  const done = await completeRun(ctx, run, outcome, {
    requestId: ctx.requestId,
    principal: ctx.principal,
    decidedBy,
    from: ["QUEUED", "RUNNING", "CLEAR", "CONSIDER", "REJECTED", "ERROR"],
  });
  return done!.run;
}
const UPSTREAM_SCORE = { CLEAR: 0, CONSIDER: 0.7, REJECTED: 1, ERROR: 0 } as const;

type DecidedRun = { id: string; clientId: string; userId: string; type: CheckType; createdAt: Date; decidedBy: string | null };

/** A run by id; a client principal (never the operator) sees only its own client's. */
export function findRun(ctx: RequestContext, checkId: string): Promise<DecidedRun> {
  return foundOr404("check", checkId, (id) => {
    const where = ctx.principal.kind === "client" ? { id, clientId: ctx.principal.clientId } : { id };
    return ctx.db.checkRun.findFirst({ where, select: { id: true, clientId: true, userId: true, type: true, createdAt: true, decidedBy: true } });
  });
}

/**
 * A decision goes on the newest run of its type that holds one by the same decider, or a newer run
 * (so the newest decision is the one on the newest run, as the user's reads take it), and a
 * provider never replaces a person's decision.
 */
async function checkDecisionOrder(ctx: RequestContext, run: DecidedRun, decidedBy: PostedDecider) {
  if (decidedBy === "PROVIDER" && run.decidedBy === "OPERATOR")
    throw new DomainError("CONFLICT", "This run holds a person's decision: only a person (decidedBy OPERATOR) changes it.");
  const newer = await ctx.db.checkRun.findFirst({
    where: { userId: run.userId, type: run.type, decidedBy, createdAt: { gt: run.createdAt } },
    orderBy: { createdAt: "desc" },
    select: { id: true },
  });
  if (newer) throw new DomainError("CONFLICT", `A newer ${run.type} run, ${newer.id}, holds a ${decidedBy} decision: post the result on it or on a newer run.`);
}

/**
 * A run asked for by the client (trigger MANUAL), e.g. before a large payout; a queued one is reused.
 * The user is looked up before the body is judged: an unknown id, or another client's, is 404.
 */
export async function requestCheck(ctx: RequestContext, userId: string, type: CheckType | null | undefined) {
  const clientId = tenantOf(ctx);
  await getUser(ctx, userId, { select: { id: true } });
  if (!type) throw invalid([required("type")]);
  return ctx.transact(ctx, async (write) => {
    const [run] = await enqueueChecks(write, { clientId, userId }, [type], "MANUAL");
    write.audit({ action: "check.requested", targetType: "check", targetId: run.id });
    return run;
  });
}

/**
 * Check runs of a client's users: the runs of a user, a run asked for, a posted result judged.
 * Verification and recording a posted result cross into the user's state: they are flows
 * (src/flows/submit-verification.ts, src/flows/post-check-result.ts).
 */
import type { Prisma } from "../../../generated/prisma/client.js";
import type { RequestContext } from "../../context.js";
import { tenantOf } from "../../context.js";
import { DomainError, invalid } from "../../lib/errors.js";
import { foundOr404 } from "../../lib/found.js";
import type { CheckType } from "../../../generated/prisma/enums.js";
import { getUser } from "../users/users.service.js";
import { reasonsErrors, type CheckOutcome } from "./checks.rules.js";
import { enqueueChecks } from "./checks.store.js";
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
 * A person's or an upstream provider's result (the operator key), judged: the run it goes on (looked
 * up before the body is judged: an unknown id, or another client's, is 404), the outcome to record
 * and who decided it. The flow that records it is src/flows/post-check-result.ts.
 */
export async function postedOutcome(ctx: RequestContext, posted: PostedResult) {
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
  return { run, outcome, decidedBy };
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

/** GraphQL for check runs: the CheckRun type, User.checks, checks(userId) and submitVerification. */
import { CheckDecider, CheckStatus, CheckTrigger, CheckType } from "../../../generated/prisma/enums.js";
import { builder } from "../../graphql/builder.js";
import { ownColumns } from "../../graphql/planned-query.js";
import { costs } from "../../graphql/cost.js";
import { listResolver, relationFirst, relationTake, withTotalCount } from "../../graphql/paging.js";
import { User, UserStatusEnum } from "../users/users.schema.js";
import { findChecks, requestCheck } from "./checks.service.js";
import { recordCheckResult } from "../../flows/post-check-result.js";
import { submitVerification } from "../../flows/submit-verification.js";
import { filter, map, pipe, Repeater } from "graphql-yoga";
import type { CheckRun as CheckRunModel } from "../../../generated/prisma/client.js";
import { tenantOf } from "../../context.js";
import { OPERATOR_ONLY } from "../../principal.js";
import { getUser } from "../users/users.service.js";
import type { CheckEvent } from "./checks.topics.js";
import { ASSESSED_CHECKS, assessByType, CHECK_EVENT, CHECK_TYPES } from "./checks.rules.js";
import { MATCH_LIMITS, readResult } from "./checks.matches.js";

export const CheckTypeEnum = builder.enumType(CheckType, { name: "CheckType" });
builder.enumType(CheckStatus, { name: "CheckStatus" });
builder.enumType(CheckTrigger, { name: "CheckTrigger" });
builder.enumType(CheckDecider, {
  name: "CheckDecider",
  description:
    "Who made a run's result: SYSTEM, a provider's automatic run; OPERATOR, a person (a result posted with the operator key); PROVIDER, an upstream provider's own confirmed decision (posted)",
});

type Result = NonNullable<ReturnType<typeof readResult>>;
const CheckResult = builder.objectRef<Result>("CheckResult").implement({
  fields: (t) => ({
    score: t.exposeFloat("score", { nullable: true }),
    reasons: t.exposeStringList("reasons"),
    matches: t.field({
      type: ["JSON"],
      description:
        "Provider matches (e.g. watchlist entries) in the matcher's shape. A match stored before results had that shape shows the fields that have it; one too large to show is {entryId, omitted: oversize}",
      resolve: (r) => r.matches,
    }),
    provider: t.string({
      nullable: true,
      description:
        "Who decided: a built-in provider and its data version (ofac-sdn-2024-05-03+…, rules:SG@v1, fatf@2025-10-24), or upstream for a posted result",
      resolve: (r) => r.provider,
    }),
    matcher: t.field({
      type: "JSON",
      nullable: true,
      description:
        "The built-in sanctions screening's matcher: {version, config} (name-match/2…; its thresholds, weights and key kinds). The same user data screened on the same list version (`provider`) and matcher version gives the same result. Null for other checks and posted results",
      resolve: (r) => r.matcher,
    }),
  }),
});

export const CheckRun = builder.prismaObject("CheckRun", {
  description: "One run of one check on one user; `id` is the REST check_id",
  fields: (t) => ({
    id: t.exposeID("id"),
    userId: t.exposeID("userId"),
    clientId: t.exposeID("clientId"),
    type: t.expose("type", { type: CheckType }),
    status: t.expose("status", { type: CheckStatus }),
    trigger: t.expose("trigger", { type: CheckTrigger }),
    decidedBy: t.expose("decidedBy", {
      type: CheckDecider,
      nullable: true,
      description:
        "Who made the result (null while queued or running). A result by OPERATOR or PROVIDER stands: later automatic runs may raise the user's risk, never lower it",
    }),
    result: t.field({ type: CheckResult, nullable: true, extensions: ownColumns({ result: true }), resolve: (c) => readResult(c.result) }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    completedAt: t.expose("completedAt", { type: "DateTime", nullable: true }),
  }),
});

builder.prismaObjectField(User, "checks", (t) =>
  t.relation("checks", {
    description: "The user's check runs, newest first",
    args: { first: relationFirst(t.arg) },
    query: ({ first }) => ({ orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: relationTake(first) }),
  }),
);

type Assessed = { id: string; type: CheckType; status: CheckStatus; createdAt: Date; completedAt: Date | null; decidedBy: CheckDecider | null };
const StandingDecision = builder.objectRef<Assessed>("StandingDecision").implement({
  description:
    "A check result by a person (OPERATOR) or an upstream provider (PROVIDER) that stands for its type: later automatic runs may raise the user's risk, never lower what it set",
  fields: (t) => ({
    checkId: t.exposeID("id", { description: "The run the decision was posted on" }),
    type: t.field({ type: CheckType, resolve: (d) => d.type }),
    status: t.field({ type: CheckStatus, resolve: (d) => d.status }),
    decidedBy: t.field({ type: CheckDecider, resolve: (d) => d.decidedBy! }),
    decidedAt: t.field({ type: "DateTime", resolve: (d) => d.completedAt! }),
  }),
});

builder.prismaObjectField(User, "standingDecisions", (t) =>
  t.field({
    type: [StandingDecision],
    description: "Why the user's status, kyc_status and risk hold: the decision that stands for each check type that has one",
    extensions: costs({ listSize: CHECK_TYPES.length }), // one a check type at most
    select: { checks: ASSESSED_CHECKS },
    resolve: (u) => [...assessByType(u.checks as Assessed[]).values()].flatMap((a) => (a.standing ? [a.standing] : [])),
  }),
);

builder.queryField("checks", (t) =>
  t.connection(
    {
      type: CheckRun,
      authScopes: { scope: "users:read" },
      description: "A user's check runs, newest first",
      args: { userId: t.arg.id({ required: true }) },
      resolve: listResolver<{ userId: string | number }>("CheckRun", (ctx, args, query) => findChecks(ctx, String(args.userId), query)),
    },
    withTotalCount("CheckRunConnection"),
  ),
);

const SubmitVerificationInput = builder.inputType("SubmitVerificationInput", {
  fields: (t) => ({ userId: t.id({ required: true }) }),
});

const Submission = builder.objectRef<Awaited<ReturnType<typeof submitVerification>>>("VerificationSubmission").implement({
  fields: (t) => ({
    userId: t.exposeID("userId"),
    status: t.field({ type: UserStatusEnum, description: "IN_REVIEW", resolve: (s) => s.status }),
    // one run of each check type
    checks: t.field({ type: [CheckRun], extensions: costs({ listSize: CHECK_TYPES.length }), resolve: (s) => s.checks }),
  }),
});

builder.mutationField("submitVerification", (t) =>
  t.field({
    type: Submission,
    authScopes: { scope: "users:write" },
    description: "Submit a user for verification: 422 REQUIREMENTS_DUE while anything is currently due",
    args: { input: t.arg({ type: SubmitVerificationInput, required: true }) },
    resolve: (_root, { input }, ctx) => submitVerification(ctx, String(input.userId)),
  }),
);

// required by the service, not the input type: the id the input names is looked up first
const REQUIRED_AFTER_LOOKUP = "Required (checked after the id is looked up: an unknown id is NOT_FOUND whatever else is sent)";

builder.mutationField("createCheck", (t) =>
  t.field({
    type: CheckRun,
    authScopes: { scope: "users:write" },
    description: "Queue a check of one type on a user now (trigger MANUAL); a queued run of that type is reused",
    args: {
      input: t.arg({
        type: builder.inputType("CreateCheckInput", {
          fields: (f) => ({ userId: f.id({ required: true }), type: f.field({ type: CheckType, description: REQUIRED_AFTER_LOOKUP }) }),
        }),
        required: true,
      }),
    },
    resolve: (_root, { input }, ctx) => requestCheck(ctx, String(input.userId), input.type),
  }),
);

/** What a posted result's matches may hold (checks.matches.ts), said once for both inputs that take them. */
export const POSTED_MATCHES = `At most ${MATCH_LIMITS.count}, each at most ${MATCH_LIMITS.bytes / 1024} KiB as JSON and ${MATCH_LIMITS.totalBytes / 1024} KiB in all, in the matcher's shape: entryId, list, listVersion, name, matchedName, entryNames (at most ${MATCH_LIMITS.entryNames}), score (0 to 1), status (CONSIDER or REJECTED), reasons, programs, explanation, details (a provider's own fields: at most 20, short values)`;

export const CheckResultStatus = builder.enumType("CheckResultStatus", { values: ["CLEAR", "CONSIDER", "REJECTED", "ERROR"] as const });
const PostedDecider = builder.enumType("PostedDecider", { values: ["OPERATOR", "PROVIDER"] as const });

const RecordCheckResultInput = builder.inputType("RecordCheckResultInput", {
  fields: (t) => ({
    checkId: t.id({ required: true }),
    status: t.field({ type: CheckResultStatus, description: REQUIRED_AFTER_LOOKUP }),
    decidedBy: t.field({
      type: PostedDecider,
      description:
        "Who decided: OPERATOR (a person; the default) or PROVIDER (an upstream provider's confirmed decision). Either stands against later automatic runs; a provider's never replaces a person's",
    }),
    score: t.float({ description: "0 to 1; left out: 1 for REJECTED, 0.7 for CONSIDER, 0 otherwise" }),
    reasons: t.stringList({ description: "At most 50, each at most 200 characters" }),
    matches: t.field({ type: ["JSON"], description: POSTED_MATCHES }),
  }),
});

builder.mutationField("recordCheckResult", (t) =>
  t.field({
    type: CheckRun,
    authScopes: { scope: OPERATOR_ONLY },
    description:
      "A person's or an upstream provider's result for a check (operator key): updates the run, the user's status, kyc_status, risk_level and risk_score; it stands against later automatic runs until a person (or, for a provider's, that provider) posts again",
    args: { input: t.arg({ type: RecordCheckResultInput, required: true }) },
    resolve: (_root, { input }, ctx) => recordCheckResult(ctx, { ...input, checkId: String(input.checkId) }),
  }),
);

/** A run as the event carried it, in the model's shape: subscribers get the state the event announced. */
const runOf = ({ check, userId }: CheckEvent, clientId: string) =>
  ({
    id: check.check_id,
    userId,
    clientId,
    type: check.type,
    status: check.status,
    trigger: check.trigger,
    result: check.result ?? null,
    decidedBy: check.decided_by ?? null,
    createdAt: new Date(check.created_at as string),
    completedAt: check.completed_at ? new Date(check.completed_at as string) : null,
    startedAt: null,
  }) as CheckRunModel;

builder.subscriptionField("checkUpdated", (t) =>
  t.field({
    type: CheckRun,
    authScopes: { scope: "users:read" },
    description: "A user's check runs as they complete (check.kyc.updated, check.sanctions_screening.updated, check.transaction_monitoring.updated)",
    args: { userId: t.arg.id({ required: true }), types: t.arg({ type: [CheckType], required: false, description: "only these check types" }) },
    subscribe: async (_root, { userId, types }, ctx) => {
      await getUser(ctx, String(userId), { select: { id: true } }); // 404 for another client's user
      const clientId = tenantOf(ctx);
      const wanted = types?.length ? types : CHECK_TYPES;
      const streams = wanted.map((type) => ctx.events.subscribe(CHECK_EVENT[type], clientId));
      return pipe(
        Repeater.merge(streams),
        filter((e: CheckEvent) => e.userId === String(userId)),
        map((e: CheckEvent) => runOf(e, clientId)),
      );
    },
    resolve: (run) => run as CheckRunModel,
  }),
);

/** GraphQL for check runs: the CheckRun type, User.checks, checks(userId) and submitVerification. */
import { CheckStatus, CheckTrigger, CheckType } from "../../../generated/prisma/enums.js";
import { builder } from "../../graphql/builder.js";
import { listResolver, withTotalCount } from "../../graphql/paging.js";
import { User, UserStatusEnum } from "../users/users.schema.js";
import { findChecks, submitVerification } from "./checks.service.js";

builder.enumType(CheckType, { name: "CheckType" });
builder.enumType(CheckStatus, { name: "CheckStatus" });
builder.enumType(CheckTrigger, { name: "CheckTrigger" });

type Result = { score?: number | null; reasons?: string[]; matches?: unknown[] };
const CheckResult = builder.objectRef<Result>("CheckResult").implement({
  fields: (t) => ({
    score: t.float({ nullable: true, resolve: (r) => r.score ?? null }),
    reasons: t.stringList({ resolve: (r) => r.reasons ?? [] }),
    matches: t.field({ type: ["JSON"], description: "Provider matches (e.g. watchlist entries), as the provider reports them", resolve: (r) => r.matches ?? [] }),
  }),
});

export const CheckRun = builder.prismaObject("CheckRun", {
  description: "One run of one check on one user (SPEC 7); `id` is the REST check_id",
  fields: (t) => ({
    id: t.exposeID("id"),
    userId: t.exposeID("userId"),
    clientId: t.exposeID("clientId"),
    type: t.expose("type", { type: CheckType }),
    status: t.expose("status", { type: CheckStatus }),
    trigger: t.expose("trigger", { type: CheckTrigger }),
    result: t.field({ type: CheckResult, nullable: true, select: { result: true }, resolve: (c) => (c.result as Result | null) ?? null }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    completedAt: t.expose("completedAt", { type: "DateTime", nullable: true }),
  }),
});

builder.prismaObjectField(User, "checks", (t) => t.relation("checks", {
  description: "The user's check runs, newest first",
  args: { first: t.arg.int({ defaultValue: 20, description: "At most this many (1 to 100)" }) },
  query: ({ first }) => ({ orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: Math.min(Math.max(first ?? 20, 1), 100) }),
}));

builder.queryField("checks", (t) => t.connection({
  type: CheckRun, authScopes: { scope: "users:read" },
  description: "A user's check runs, newest first",
  args: { userId: t.arg.id({ required: true }) },
  resolve: listResolver<{ userId: string | number }>("CheckRun", (ctx, args, query) => findChecks(ctx, String(args.userId), query)),
}, withTotalCount("CheckRunConnection")));

const SubmitVerificationInput = builder.inputType("SubmitVerificationInput", {
  fields: (t) => ({ userId: t.id({ required: true }) }),
});

const Submission = builder.objectRef<Awaited<ReturnType<typeof submitVerification>>>("VerificationSubmission").implement({
  fields: (t) => ({
    userId: t.exposeID("userId"),
    status: t.field({ type: UserStatusEnum, description: "IN_REVIEW", resolve: (s) => s.status }),
    checks: t.field({ type: [CheckRun], resolve: (s) => s.checks }),
  }),
});

builder.mutationField("submitVerification", (t) => t.field({
  type: Submission, authScopes: { scope: "users:write" },
  description: "Submit a user for verification: 422 REQUIREMENTS_DUE while anything is currently due",
  args: { input: t.arg({ type: SubmitVerificationInput, required: true }) },
  resolve: (_root, { input }, ctx) => submitVerification(ctx, String(input.userId)),
}));

/** GraphQL for the sandbox (SANDBOX keys only): simulate a check's result, raise an alert, reset. */
import { builder } from "../../graphql/builder.js";
import { CheckResultStatus, CheckRun, POSTED_MATCHES } from "../checks/checks.schema.js";
import { sandboxClock } from "./sandbox.service.js";
import { advanceClock, resetClock } from "../../flows/sandbox-clock.js";
import { resetSandbox } from "../../flows/sandbox-reset.js";
import { raiseAlert, simulateCheckResult } from "../../flows/sandbox-results.js";

type ClockShape = { now: Date; offsetSeconds: number; movedAt: Date | null; documentsExpired?: number; rescreened?: number };
const SandboxClock = builder.objectRef<ClockShape>("SandboxClock").implement({
  description: "A sandbox client's own clock: the time its requests, checks and deadlines follow",
  fields: (t) => ({
    now: t.expose("now", { type: "DateTime" }),
    offsetSeconds: t.exposeInt("offsetSeconds", { description: "How far it runs ahead of real time" }),
    movedAt: t.expose("movedAt", { type: "DateTime", nullable: true, description: "When it was last moved (real time)" }),
    documentsExpired: t.int({ nullable: true, description: "After an advance: documents that expired in between", resolve: (c) => c.documentsExpired ?? null }),
    rescreened: t.int({
      nullable: true,
      description: "After an advance: users whose periodic re-screening fell due and was queued",
      resolve: (c) => c.rescreened ?? null,
    }),
  }),
});

builder.queryField("sandboxClock", (t) =>
  t.field({
    type: SandboxClock,
    authScopes: { scope: "users:read" },
    description: "Sandbox keys only: the client's clock",
    resolve: (_root, _args, ctx) => sandboxClock(ctx),
  }),
);

const AdvanceSandboxClockInput = builder.inputType("AdvanceSandboxClockInput", {
  fields: (t) => ({ days: t.int({ description: "Whole days, 0 or more" }), hours: t.int({ description: "Whole hours, 0 or more" }) }),
});

const SimulateCheckResultInput = builder.inputType("SimulateCheckResultInput", {
  fields: (t) => ({
    checkId: t.id({ required: true }),
    status: t.field({ type: CheckResultStatus, required: true }),
    score: t.float({ description: "0 to 1; left out: 1 for REJECTED, 0.7 for CONSIDER, 0 otherwise" }),
    reasons: t.stringList({ description: "At most 50, each at most 200 characters" }),
    matches: t.field({ type: ["JSON"], description: `${POSTED_MATCHES}. A sanctions match naming an entryId opens a review as a real one does` }),
  }),
});

const AlertStatus = builder.enumType("SandboxAlertStatus", { values: ["CONSIDER", "REJECTED"] as const });
const RaiseSandboxAlertInput = builder.inputType("RaiseSandboxAlertInput", {
  fields: (t) => ({
    userId: t.id({ required: true }),
    status: t.field({ type: AlertStatus, description: "Left out: CONSIDER" }),
    reasons: t.stringList({ description: "What the alert says; left out: sandbox_alert" }),
  }),
});

const SandboxReset = builder.objectRef<{ deletedUsers: number }>("SandboxReset").implement({
  fields: (t) => ({ deletedUsers: t.exposeInt("deletedUsers") }),
});

builder.mutationFields((t) => ({
  advanceSandboxClock: t.field({
    type: SandboxClock,
    authScopes: { scope: "users:write" },
    description:
      "Sandbox keys only: moves the client's clock ahead and runs what that time causes for its objects alone: documents expire, OTP codes expire, periodic re-screening falls due and runs",
    args: { input: t.arg({ type: AdvanceSandboxClockInput, required: true }) },
    resolve: (_root, { input }, ctx) => advanceClock(ctx, input),
  }),
  resetSandboxClock: t.field({
    type: SandboxClock,
    authScopes: { scope: "users:write" },
    description: "Sandbox keys only: the client's clock back to real time",
    resolve: (_root, _args, ctx) => resetClock(ctx),
  }),
  simulateCheckResult: t.prismaField({
    type: CheckRun,
    authScopes: { scope: "users:write" },
    description: "Sandbox keys only: a check's result as its upstream provider would post it (events, webhooks, the user's status and risk)",
    args: { input: t.arg({ type: SimulateCheckResultInput, required: true }) },
    resolve: (_query, _root, { input }, ctx) => simulateCheckResult(ctx, { ...input, checkId: String(input.checkId) }),
  }),
  raiseSandboxAlert: t.prismaField({
    type: CheckRun,
    authScopes: { scope: "users:write" },
    description: "Sandbox keys only: an upstream transaction-monitoring alert on a user; open until a CLEAR result or a reviewer closes it",
    args: { input: t.arg({ type: RaiseSandboxAlertInput, required: true }) },
    resolve: (_query, _root, { input }, ctx) => raiseAlert(ctx, { ...input, userId: String(input.userId) }),
  }),
  resetSandbox: t.field({
    type: SandboxReset,
    authScopes: { scope: "users:write" },
    description: "Sandbox keys only: deletes the client's users and all they hold, and its events; keys, reviewers and webhook endpoints stay",
    resolve: (_root, _args, ctx) => resetSandbox(ctx),
  }),
}));

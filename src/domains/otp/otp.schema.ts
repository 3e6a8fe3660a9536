/** GraphQL for OTP: triggerOtp, verifyOtp, confirmContactChange, and the sandbox outbox. */
import { builder } from "../../graphql/builder.js";
import { listResolver, withTotalCount } from "../../graphql/paging.js";
import { countSandboxMessages, listSandboxMessages, triggerOtp, verifyOtp } from "./otp.service.js";
import { confirmContactChange } from "../../flows/confirm-contact.js";
import type { Channel } from "./otp.rules.js";

const OtpChannel = builder.enumType("OtpChannel", { values: ["EMAIL", "SMS"] as const });

const OtpChallenge = builder
  .objectRef<{ otpId: string; channel: Channel; destination: string; expiresAt: Date; resendAvailableAt: Date }>("OtpChallenge")
  .implement({
    description: "A code was sent; only a masked destination is shown",
    fields: (t) => ({
      otpId: t.exposeID("otpId"),
      channel: t.expose("channel", { type: OtpChannel }),
      destination: t.exposeString("destination", { description: "Masked, e.g. a*****z@example.com" }),
      expiresAt: t.expose("expiresAt", { type: "DateTime" }),
      resendAvailableAt: t.expose("resendAvailableAt", { type: "DateTime", description: "A new code may be asked for from then on" }),
    }),
  });

const OtpVerification = builder.objectRef<{ userId: string; channel: Channel; verified: boolean; verifiedAt: Date }>("OtpVerification").implement({
  fields: (t) => ({
    userId: t.exposeID("userId"),
    channel: t.expose("channel", { type: OtpChannel }),
    verified: t.exposeBoolean("verified"),
    verifiedAt: t.expose("verifiedAt", { type: "DateTime" }),
  }),
});

const SandboxMessage = builder.prismaObject("SandboxMessage", {
  description: "What a sandbox client's user would have received",
  fields: (t) => ({
    id: t.exposeID("id"),
    userId: t.exposeID("userId"),
    channel: t.expose("channel", { type: OtpChannel }),
    to: t.exposeString("to"),
    body: t.exposeString("body"),
    code: t.exposeString("code"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

const TriggerOtpInput = builder.inputType("TriggerOtpInput", {
  fields: (t) => ({ userId: t.id({ required: true }), channel: t.field({ type: OtpChannel, required: true }) }),
});
const VerifyOtpInput = builder.inputType("VerifyOtpInput", {
  fields: (t) => ({ userId: t.id({ required: true }), channel: t.field({ type: OtpChannel, required: true }), code: t.string({ required: true }) }),
});
const ConfirmContactChangeInput = builder.inputType("ConfirmContactChangeInput", {
  fields: (t) => ({ userId: t.id({ required: true }), channel: t.field({ type: OtpChannel, required: true }), code: t.string({ required: true }) }),
});

builder.queryFields((t) => ({
  sandboxMessages: t.connection(
    {
      type: SandboxMessage,
      authScopes: { scope: "users:read" },
      description: "The sandbox outbox (SANDBOX keys only), newest first",
      args: { userId: t.arg.id(), channel: t.arg({ type: OtpChannel }) },
      resolve: listResolver<{ userId?: string | number | null; channel?: Channel | null }>("SandboxMessage", (ctx, args) => {
        const filters = { userId: args.userId == null ? null : String(args.userId), channel: args.channel };
        return { count: () => countSandboxMessages(ctx, filters), page: (window) => listSandboxMessages(ctx, filters, window) };
      }),
    },
    withTotalCount("SandboxMessageConnection"),
  ),
}));

builder.mutationFields((t) => ({
  triggerOtp: t.field({
    type: OtpChallenge,
    authScopes: { scope: "users:write" },
    description: "Sends a 6-digit code to the pending contact if there is one, else the current one",
    args: { input: t.arg({ type: TriggerOtpInput, required: true }) },
    resolve: (_root, { input }, ctx) => triggerOtp(ctx, { userId: String(input.userId), channel: input.channel }),
  }),
  verifyOtp: t.field({
    type: OtpVerification,
    authScopes: { scope: "users:write" },
    description: "Proves the current email or phone with the code sent to it",
    args: { input: t.arg({ type: VerifyOtpInput, required: true }) },
    resolve: (_root, { input }, ctx) => verifyOtp(ctx, { ...input, userId: String(input.userId) }),
  }),
  confirmContactChange: t.prismaField({
    type: "User",
    authScopes: { scope: "users:write" },
    description: "Applies a pending email or phone change with the code sent to the new contact",
    args: { input: t.arg({ type: ConfirmContactChangeInput, required: true }) },
    resolve: (query, _root, { input }, ctx) => confirmContactChange(ctx, { ...input, userId: String(input.userId) }, query),
  }),
}));

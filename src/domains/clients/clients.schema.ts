/** GraphQL for API clients: the operator key's alone. */
import { OPERATOR_ONLY } from "../../principal.js";
import { builder } from "../../graphql/builder.js";
import { announceKeyChange, createApiClient, createReviewer, revokeApiKey, rotateApiKey, rotateReviewerKey } from "./clients.service.js";

const ClientMode = builder.enumType("ClientMode", { values: ["SANDBOX", "LIVE"] as const });

const ApiClient = builder.prismaObject("ApiClient", {
  fields: (t) => ({
    id: t.exposeID("id"),
    name: t.exposeString("name"),
    mode: t.expose("mode", { type: ClientMode }),
    scopes: t.exposeStringList("scopes"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

builder.prismaObject("ApiKey", {
  fields: (t) => ({
    id: t.exposeID("id"),
    clientId: t.exposeID("clientId"),
    prefix: t.exposeString("prefix", {
      description: "Tells keys apart without any of the key: its mode tag and the first 8 hex digits of its SHA-256, e.g. ogk_live_…3fa92c1d",
    }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    revokedAt: t.expose("revokedAt", { type: "DateTime", nullable: true }),
  }),
});

const IssuedKey = builder
  .objectRef<{ client: { id: string; name: string; mode: "SANDBOX" | "LIVE"; scopes: string[] }; apiKey: string; keyId: string }>("IssuedApiKey")
  .implement({
    description: "A client with a newly issued key. The key is shown only here, once.",
    fields: (t) => ({
      clientId: t.id({ resolve: (p) => p.client.id }),
      name: t.string({ resolve: (p) => p.client.name }),
      mode: t.field({ type: ClientMode, resolve: (p) => p.client.mode }),
      scopes: t.stringList({ resolve: (p) => p.client.scopes }),
      keyId: t.exposeID("keyId"),
      apiKey: t.exposeString("apiKey"),
    }),
  });

const CreateApiClientInput = builder.inputType("CreateApiClientInput", {
  fields: (t) => ({
    name: t.string({ required: true }),
    mode: t.field({ type: ClientMode, required: true }),
    scopes: t.stringList({ description: "Left out: every client scope (operator power is never one)" }),
  }),
});
const RotateApiKeyInput = builder.inputType("RotateApiKeyInput", { fields: (t) => ({ clientId: t.id({ required: true }) }) });
const RevokeApiKeyInput = builder.inputType("RevokeApiKeyInput", { fields: (t) => ({ keyId: t.id({ required: true }) }) });

const IssuedReviewerKey = builder
  .objectRef<{ reviewer: { id: string; clientId: string; name: string; email: string | null }; apiKey: string; keyId: string }>("IssuedReviewerKey")
  .implement({
    description: "A reviewer of a client with their newly issued key (it holds compliance:review). The key is shown only here, once.",
    fields: (t) => ({
      reviewerId: t.id({ resolve: (p) => p.reviewer.id }),
      clientId: t.id({ resolve: (p) => p.reviewer.clientId }),
      name: t.string({ resolve: (p) => p.reviewer.name }),
      email: t.string({ nullable: true, resolve: (p) => p.reviewer.email }),
      keyId: t.exposeID("keyId"),
      apiKey: t.exposeString("apiKey"),
    }),
  });

const CreateReviewerInput = builder.inputType("CreateReviewerInput", {
  fields: (t) => ({
    clientId: t.id({ required: true }),
    name: t.string({ required: true, description: "The person's name, as decisions and the audit trail show it" }),
    email: t.string({ required: true, description: "The person's email: one reviewer per email in a client (four eyes count people)" }),
  }),
});
const RotateReviewerKeyInput = builder.inputType("RotateReviewerKeyInput", {
  fields: (t) => ({ clientId: t.id({ required: true }), reviewerId: t.id({ required: true }) }),
});

builder.mutationFields((t) => ({
  createReviewer: t.field({
    type: IssuedReviewerKey,
    authScopes: { scope: OPERATOR_ONLY },
    description: "A named reviewer of a client and their key (compliance:review); the client must hold compliance:review",
    args: { input: t.arg({ type: CreateReviewerInput, required: true }) },
    resolve: (_root, { input }, ctx) => createReviewer(ctx.transact, ctx, { ...input, clientId: String(input.clientId) }),
  }),
  rotateReviewerKey: t.field({
    type: IssuedReviewerKey,
    authScopes: { scope: OPERATOR_ONLY },
    description: "A new key for a reviewer, their previous keys revoked: the same person, the same identity",
    args: { input: t.arg({ type: RotateReviewerKeyInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const r = await rotateReviewerKey(ctx.transact, ctx, { clientId: String(input.clientId), reviewerId: String(input.reviewerId) });
      announceKeyChange(ctx, r.reviewer.clientId);
      return r;
    },
  }),
  createApiClient: t.field({
    type: IssuedKey,
    authScopes: { scope: OPERATOR_ONLY },
    args: { input: t.arg({ type: CreateApiClientInput, required: true }) },
    resolve: (_root, { input }, ctx) => createApiClient(ctx.transact, ctx, input),
  }),
  rotateApiKey: t.field({
    type: IssuedKey,
    authScopes: { scope: OPERATOR_ONLY },
    args: { input: t.arg({ type: RotateApiKeyInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const r = await rotateApiKey(ctx.transact, ctx, String(input.clientId));
      announceKeyChange(ctx, r.client.id);
      return r;
    },
  }),
  revokeApiKey: t.prismaField({
    type: "ApiKey",
    authScopes: { scope: OPERATOR_ONLY },
    args: { input: t.arg({ type: RevokeApiKeyInput, required: true }) },
    resolve: async (_query, _root, { input }, ctx) => {
      const r = await revokeApiKey(ctx.transact, ctx, String(input.keyId));
      announceKeyChange(ctx, r.clientId);
      return r;
    },
  }),
}));

builder.queryField("apiClients", (t) =>
  t.prismaField({
    type: [ApiClient],
    authScopes: { scope: OPERATOR_ONLY },
    resolve: (query, _r, _a, ctx) => ctx.db.apiClient.findMany({ ...query, orderBy: { createdAt: "asc" } }),
  }),
);

/** GraphQL for webhooks: WebhookEndpoint, WebhookAttempt, their queries and the endpoint mutations (scope webhooks:manage), test events for SANDBOX keys. */
import { WebhookOutcome } from "../../../generated/prisma/enums.js";
import { builder } from "../../graphql/builder.js";
import { listResolver, withTotalCount } from "../../graphql/paging.js";
import { PUBLIC_EVENT_TYPES } from "../../kernel/event-types.js";
import { DEFAULT_TEST_EVENT_TYPE } from "./webhooks.rules.js";
import {
  createEndpoint,
  deleteEndpoint,
  findAttempts,
  findEndpoints,
  getEndpoint,
  redeliver,
  rotateSecret,
  sendTestEvent,
  updateEndpoint,
} from "./webhooks.service.js";

const SCOPE = { scope: "webhooks:manage" } as const;
const EVENT_TYPES_HELP = `Event types to receive: ${PUBLIC_EVENT_TYPES.join(", ")}, or "*" for all`;

builder.enumType(WebhookOutcome, { name: "WebhookOutcome" });

const WebhookEndpoint = builder.prismaObject("WebhookEndpoint", {
  description: "Where the client's events are POSTed, signed the Standard Webhooks way; `id` is the REST webhook_id",
  fields: (t) => ({
    id: t.exposeID("id"),
    url: t.exposeString("url"),
    eventTypes: t.exposeStringList("eventTypes", { description: EVENT_TYPES_HELP }),
    enabled: t.exposeBoolean("enabled"),
    disabledReason: t.exposeString("disabledReason", { nullable: true, description: "Why the gateway disabled it (e.g. failing for 5 days)" }),
    secret: t.string({
      nullable: true,
      description: "The signing secret (whsec_…): only in the answer to create and rotate, never again",
      resolve: (e) => (e as { secret?: string }).secret ?? null,
    }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
  }),
});

const WebhookAttempt = builder.prismaObject("WebhookAttempt", {
  description: "One delivery attempt of one event to one endpoint",
  fields: (t) => ({
    id: t.exposeID("id"),
    endpointId: t.exposeID("endpointId"),
    eventId: t.exposeString("eventId", { description: "Sent as webhook-id, the same on every attempt of the event" }),
    eventType: t.exposeString("eventType"),
    attemptNumber: t.exposeInt("attemptNumber"),
    outcome: t.expose("outcome", { type: WebhookOutcome }),
    statusCode: t.exposeInt("statusCode", { nullable: true }),
    durationMs: t.exposeInt("durationMs"),
    responseSnippet: t.exposeString("responseSnippet", { nullable: true, description: "At most 1 KB of the answer or the network error" }),
    attemptedAt: t.expose("attemptedAt", { type: "DateTime" }),
    nextRetryAt: t.expose("nextRetryAt", { type: "DateTime", nullable: true }),
  }),
});

builder.queryFields((t) => ({
  webhookEndpoint: t.prismaField({
    type: WebhookEndpoint,
    authScopes: SCOPE,
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, { id }, ctx) => getEndpoint(ctx, String(id), query),
  }),
  webhookEndpoints: t.connection(
    {
      type: WebhookEndpoint,
      authScopes: SCOPE,
      description: "The client's webhook endpoints, newest first",
      resolve: listResolver<object>("WebhookEndpoint", (ctx, _args, query) => findEndpoints(ctx, query)),
    },
    withTotalCount("WebhookEndpointConnection"),
  ),
  webhookAttempts: t.connection(
    {
      type: WebhookAttempt,
      authScopes: SCOPE,
      description: "An endpoint's delivery attempts, newest first",
      args: { endpointId: t.arg.id({ required: true }), eventId: t.arg.string({ description: "Only the attempts of this event" }) },
      resolve: listResolver<{ endpointId: string | number; eventId?: string | null }>("WebhookAttempt", (ctx, args, query) =>
        findAttempts(ctx, String(args.endpointId), args.eventId, query),
      ),
    },
    withTotalCount("WebhookAttemptConnection"),
  ),
}));

const CreateWebhookEndpointInput = builder.inputType("CreateWebhookEndpointInput", {
  fields: (t) => ({
    url: t.string({ required: true, description: "https URL (http allowed for SANDBOX clients); must resolve to a public address" }),
    eventTypes: t.stringList({ required: true, description: EVENT_TYPES_HELP }),
  }),
});
const UpdateWebhookEndpointInput = builder.inputType("UpdateWebhookEndpointInput", {
  description: "Partial update: given fields replace, absent ones stay",
  fields: (t) => ({
    id: t.id({ required: true }),
    url: t.string(),
    eventTypes: t.stringList({ description: EVENT_TYPES_HELP }),
    enabled: t.boolean({ description: "true also re-enables an endpoint the gateway disabled" }),
  }),
});
const WebhookEndpointIdInput = (name: string) => builder.inputType(name, { fields: (t) => ({ id: t.id({ required: true }) }) });
const RotateWebhookSecretInput = WebhookEndpointIdInput("RotateWebhookSecretInput");
const DeleteWebhookEndpointInput = WebhookEndpointIdInput("DeleteWebhookEndpointInput");
const RedeliverWebhookEventInput = builder.inputType("RedeliverWebhookEventInput", {
  fields: (t) => ({ endpointId: t.id({ required: true }), eventId: t.string({ required: true }) }),
});

const TestWebhookEndpointInput = builder.inputType("TestWebhookEndpointInput", {
  fields: (t) => ({
    webhookId: t.id({ required: true }),
    type: t.string({ defaultValue: DEFAULT_TEST_EVENT_TYPE, description: `The test event's type: ${PUBLIC_EVENT_TYPES.join(", ")}` }),
  }),
});

builder.mutationFields((t) => ({
  createWebhookEndpoint: t.prismaField({
    type: WebhookEndpoint,
    authScopes: SCOPE,
    description: "Its `secret` is shown in this answer only",
    args: { input: t.arg({ type: CreateWebhookEndpointInput, required: true }) },
    resolve: (query, _root, { input }, ctx) => createEndpoint(ctx, input, query),
  }),
  updateWebhookEndpoint: t.prismaField({
    type: WebhookEndpoint,
    authScopes: SCOPE,
    args: { input: t.arg({ type: UpdateWebhookEndpointInput, required: true }) },
    resolve: (query, _root, { input }, ctx) => updateEndpoint(ctx, { ...input, id: String(input.id) }, query),
  }),
  rotateWebhookSecret: t.prismaField({
    type: WebhookEndpoint,
    authScopes: SCOPE,
    description: "A new secret, shown once; the old one still signs for 24 h",
    args: { input: t.arg({ type: RotateWebhookSecretInput, required: true }) },
    resolve: (query, _root, { input }, ctx) => rotateSecret(ctx, String(input.id), query),
  }),
  deleteWebhookEndpoint: t.prismaField({
    type: WebhookEndpoint,
    authScopes: SCOPE,
    description: "Deletes the endpoint and its attempts; answers with it as it was",
    args: { input: t.arg({ type: DeleteWebhookEndpointInput, required: true }) },
    resolve: (query, _root, { input }, ctx) => deleteEndpoint(ctx, String(input.id), query),
  }),
  redeliverWebhookEvent: t.prismaField({
    type: WebhookAttempt,
    authScopes: SCOPE,
    description: "Sends an event this endpoint was sent before once more, now (same webhook-id)",
    args: { input: t.arg({ type: RedeliverWebhookEventInput, required: true }) },
    resolve: (_query, _root, { input }, ctx) => redeliver(ctx, String(input.endpointId), input.eventId),
  }),
  testWebhookEndpoint: t.prismaField({
    type: WebhookAttempt,
    authScopes: SCOPE,
    description:
      "SANDBOX keys only: sends this endpoint a signed test event of the type, now, with sample data and `test: true` in its envelope; answers the attempt (no retry follows)",
    args: { input: t.arg({ type: TestWebhookEndpointInput, required: true }) },
    resolve: (_query, _root, { input }, ctx) => sendTestEvent(ctx, String(input.webhookId), input.type),
  }),
}));

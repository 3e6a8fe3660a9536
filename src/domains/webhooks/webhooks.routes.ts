/** REST entries for /v2/webhooks (scope webhooks:manage). Each maps a path and body onto a GraphQL operation; no rules here. */
import { bodyInput, queryVariables, restOperation, type PathLookup, type Route } from "../../rest/route.js";
import { getEndpoint } from "./webhooks.service.js";

/** The REST endpoint body; `secret` is non-null only in the answers to create and rotate. */
const WEBHOOK_REST_FIELDS = "webhook_id: id url eventTypes enabled disabledReason secret createdAt updatedAt";
const ATTEMPT_REST_FIELDS =
  "attempt_id: id webhook_id: endpointId eventId eventType attemptNumber outcome statusCode durationMs responseSnippet attemptedAt nextRetryAt";

const BASE = "/v2/webhooks";
const ONE = `${BASE}/{webhook_id}`;
const endpoint: PathLookup = (ctx, params) => getEndpoint(ctx, params.webhook_id, { select: { id: true } });

export const webhooksRoutes: Route[] = [
  {
    method: "POST",
    path: BASE,
    summary: "Create a webhook endpoint (its secret is shown in this answer only)",
    scope: "webhooks:manage",
    status: 201,
    operation: restOperation(
      `mutation CreateWebhookEndpoint($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { ${WEBHOOK_REST_FIELDS} } }`,
    ),
    variables: (req) => ({ input: bodyInput(req) }),
    field: "createWebhookEndpoint",
  },
  {
    method: "GET",
    path: BASE,
    summary: "List the client's webhook endpoints",
    scope: "webhooks:manage",
    list: true,
    operation: restOperation(`query WebhookEndpoints($first: Int, $after: String) {
      webhookEndpoints(first: $first, after: $after) { totalCount edges { node { ${WEBHOOK_REST_FIELDS} } } } }`),
    variables: () => ({}),
    field: "webhookEndpoints",
  },
  {
    method: "GET",
    path: ONE,
    summary: "Read a webhook endpoint",
    scope: "webhooks:manage",
    operation: restOperation(`query WebhookEndpoint($id: ID!) { webhookEndpoint(id: $id) { ${WEBHOOK_REST_FIELDS} } }`),
    lookup: endpoint,
    variables: (req) => ({ id: req.params.webhook_id }),
    field: "webhookEndpoint",
  },
  {
    method: "PUT",
    path: ONE,
    summary: "Update a webhook endpoint (partial: url, event_types, enabled)",
    scope: "webhooks:manage",
    operation: restOperation(
      `mutation UpdateWebhookEndpoint($input: UpdateWebhookEndpointInput!) { updateWebhookEndpoint(input: $input) { ${WEBHOOK_REST_FIELDS} } }`,
    ),
    lookup: endpoint,
    variables: (req) => ({ input: bodyInput(req, { id: req.params.webhook_id }) }),
    field: "updateWebhookEndpoint",
  },
  {
    method: "DELETE",
    path: ONE,
    summary: "Delete a webhook endpoint and its attempts",
    scope: "webhooks:manage",
    status: 204,
    operation: restOperation(`mutation DeleteWebhookEndpoint($input: DeleteWebhookEndpointInput!) { deleteWebhookEndpoint(input: $input) { webhook_id: id } }`),
    lookup: endpoint,
    variables: (req) => ({ input: { id: req.params.webhook_id } }),
    field: "deleteWebhookEndpoint",
  },
  {
    method: "POST",
    path: `${ONE}/rotate-secret`,
    summary: "Issue a new signing secret (shown once); the old one still signs for 24 h",
    scope: "webhooks:manage",
    operation: restOperation(
      `mutation RotateWebhookSecret($input: RotateWebhookSecretInput!) { rotateWebhookSecret(input: $input) { ${WEBHOOK_REST_FIELDS} } }`,
    ),
    lookup: endpoint,
    variables: (req) => ({ input: { id: req.params.webhook_id } }),
    field: "rotateWebhookSecret",
  },
  {
    method: "GET",
    path: `${ONE}/attempts`,
    summary: "An endpoint's delivery attempts, newest first",
    scope: "webhooks:manage",
    list: true,
    queryParams: ["event_id"],
    operation: restOperation(`query WebhookAttempts($endpointId: ID!, $first: Int, $after: String, $eventId: String) {
      webhookAttempts(endpointId: $endpointId, first: $first, after: $after, eventId: $eventId) { totalCount edges { node { ${ATTEMPT_REST_FIELDS} } } } }`),
    lookup: endpoint,
    variables: (req) => ({ endpointId: req.params.webhook_id, ...queryVariables(req, ["event_id"]) }),
    field: "webhookAttempts",
  },
  {
    method: "POST",
    path: `${ONE}/redeliver`,
    summary: "Send an event this endpoint was sent before once more, now (body: event_id)",
    scope: "webhooks:manage",
    status: 201,
    operation: restOperation(
      `mutation RedeliverWebhookEvent($input: RedeliverWebhookEventInput!) { redeliverWebhookEvent(input: $input) { ${ATTEMPT_REST_FIELDS} } }`,
    ),
    lookup: endpoint,
    variables: (req) => ({ input: bodyInput(req, { endpointId: req.params.webhook_id }) }),
    field: "redeliverWebhookEvent",
  },
  {
    method: "POST",
    path: `${ONE}/test`,
    summary: "SANDBOX keys only: send a signed test event of a type (body: type, default user.status.updated) to this endpoint, now",
    scope: "webhooks:manage",
    status: 201,
    operation: restOperation(
      `mutation TestWebhookEndpoint($input: TestWebhookEndpointInput!) { testWebhookEndpoint(input: $input) { ${ATTEMPT_REST_FIELDS} } }`,
    ),
    lookup: endpoint,
    variables: (req) => ({ input: bodyInput(req, { webhookId: req.params.webhook_id }) }),
    field: "testWebhookEndpoint",
  },
];

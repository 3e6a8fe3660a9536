/** REST entries for API clients (operator key only). */
import { OPERATOR_ONLY } from "../../principal.js";
import { bodyInput, restOperation, type PathLookup, type Route } from "../../rest/route.js";
import { findApiClient, findApiKey, findReviewer } from "./clients.service.js";

const client: PathLookup = (ctx, params) => findApiClient(ctx.db, params.client_id);

export const clientsRoutes: Route[] = [
  {
    method: "POST",
    path: "/admin/clients",
    summary: "Create an API client and its first key (shown once)",
    scope: OPERATOR_ONLY,
    status: 201,
    operation: restOperation(`mutation CreateApiClient($input: CreateApiClientInput!) {
      createApiClient(input: $input) { clientId name mode scopes api_key: apiKey key_id: keyId } }`),
    variables: (req) => ({ input: bodyInput(req) }),
    field: "createApiClient",
  },
  {
    method: "POST",
    path: "/admin/clients/{client_id}/keys/rotate",
    summary: "Issue a new key and revoke the client's previous keys",
    scope: OPERATOR_ONLY,
    status: 201,
    operation: restOperation(`mutation RotateApiKey($input: RotateApiKeyInput!) {
      rotateApiKey(input: $input) { clientId name mode scopes api_key: apiKey key_id: keyId } }`),
    lookup: client,
    variables: (req) => ({ input: { clientId: req.params.client_id } }),
    field: "rotateApiKey",
  },
  {
    method: "POST",
    path: "/admin/clients/{client_id}/reviewers",
    summary: "Create a named reviewer of the client and their key (shown once; it holds compliance:review)",
    scope: OPERATOR_ONLY,
    status: 201,
    operation: restOperation(`mutation CreateReviewer($input: CreateReviewerInput!) {
      createReviewer(input: $input) { reviewer_id: reviewerId clientId name email api_key: apiKey key_id: keyId } }`),
    lookup: client,
    variables: (req) => ({ input: bodyInput(req, { clientId: req.params.client_id }) }),
    field: "createReviewer",
  },
  {
    method: "POST",
    path: "/admin/clients/{client_id}/reviewers/{reviewer_id}/keys/rotate",
    summary: "Issue a reviewer a new key and revoke their previous ones (shown once; the same reviewer identity)",
    scope: OPERATOR_ONLY,
    status: 201,
    operation: restOperation(`mutation RotateReviewerKey($input: RotateReviewerKeyInput!) {
      rotateReviewerKey(input: $input) { reviewer_id: reviewerId clientId name email api_key: apiKey key_id: keyId } }`),
    lookup: (ctx, params) => findReviewer(ctx.db, params.client_id, params.reviewer_id),
    variables: (req) => ({ input: { clientId: req.params.client_id, reviewerId: req.params.reviewer_id } }),
    field: "rotateReviewerKey",
  },
  {
    method: "DELETE",
    path: "/admin/keys/{key_id}",
    summary: "Revoke an API key",
    scope: OPERATOR_ONLY,
    operation: restOperation(
      `mutation RevokeApiKey($input: RevokeApiKeyInput!) { revokeApiKey(input: $input) { key_id: id clientId prefix createdAt revokedAt } }`,
    ),
    lookup: (ctx, params) => findApiKey(ctx.db, params.key_id),
    variables: (req) => ({ input: { keyId: req.params.key_id } }),
    field: "revokeApiKey",
  },
];

/** REST entries for check runs and verification: GET /v2/users/{user_id}/checks, POST /v2/users/verify. */
import { OPERATOR_ONLY } from "../../principal.js";
import { bodyInput, restOperation, type Route } from "../../rest/route.js";
import { userInPath } from "../users/users.routes.js";
import { findRun } from "./checks.service.js";

const CHECK_REST_FIELDS = "check_id: id userId clientId type status trigger decidedBy result { score reasons matches provider matcher } createdAt completedAt";

export const checksRoutes: Route[] = [
  {
    method: "POST",
    path: "/v2/users/verify",
    summary: "Submit a user for verification (422 REQUIREMENTS_DUE while anything is due)",
    scope: "users:write",
    status: 202,
    operation: restOperation(
      `mutation SubmitVerification($input: SubmitVerificationInput!) { submitVerification(input: $input) { userId status checks { check_id: id type status } } }`,
    ),
    variables: (req) => ({ input: bodyInput(req) }),
    field: "submitVerification",
  },
  {
    method: "GET",
    path: "/v2/users/{user_id}/checks",
    summary: "A user's check runs, newest first",
    scope: "users:read",
    list: true,
    operation: restOperation(`query Checks($userId: ID!, $first: Int, $after: String) {
      checks(userId: $userId, first: $first, after: $after) { totalCount edges { node { ${CHECK_REST_FIELDS} } } } }`),
    lookup: userInPath,
    variables: (req) => ({ userId: req.params.user_id }),
    field: "checks",
  },

  {
    method: "POST",
    path: "/v2/users/{user_id}/checks",
    summary: "Queue a check of one type on the user now (body: type; trigger MANUAL); a queued run of that type is reused",
    scope: "users:write",
    status: 202,
    operation: restOperation(`mutation CreateCheck($input: CreateCheckInput!) { createCheck(input: $input) { ${CHECK_REST_FIELDS} } }`),
    lookup: userInPath,
    variables: (req) => ({ input: bodyInput(req, { userId: req.params.user_id }) }),
    field: "createCheck",
  },
  {
    method: "POST",
    path: "/v2/checks/{check_id}/result",
    summary:
      "Record a person's or an upstream provider's result for a check (operator key): moves the user's status, kyc_status, risk_level and risk_score, and stands against later automatic runs",
    scope: OPERATOR_ONLY,
    operation: restOperation(`mutation RecordCheckResult($input: RecordCheckResultInput!) { recordCheckResult(input: $input) { ${CHECK_REST_FIELDS} } }`),
    lookup: (ctx, params) => findRun(ctx, params.check_id),
    variables: (req) => ({ input: bodyInput(req, { checkId: req.params.check_id }) }),
    field: "recordCheckResult",
  },
];

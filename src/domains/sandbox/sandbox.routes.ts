/** REST entries for the sandbox (SANDBOX keys only; 404 for a LIVE key). */
import { bodyInput, restOperation, type Route } from "../../rest/route.js";

const RUN = "check_id: id userId type status trigger decidedBy result { score reasons matches provider } createdAt completedAt";

export const sandboxRoutes: Route[] = [
  {
    method: "POST",
    path: "/v2/sandbox/checks/{check_id}/simulate",
    summary: "Sandbox: record a check's result as its upstream provider would (status, reasons, matches, score)",
    scope: "users:write",
    operation: restOperation(`mutation SimulateCheckResult($input: SimulateCheckResultInput!) { simulateCheckResult(input: $input) { ${RUN} } }`),
    variables: (req) => ({ input: bodyInput(req, { checkId: req.params.check_id }) }),
    field: "simulateCheckResult",
  },
  {
    method: "POST",
    path: "/v2/sandbox/users/{user_id}/alerts",
    summary: "Sandbox: raise an upstream transaction-monitoring alert on the user (status CONSIDER or REJECTED, reasons)",
    scope: "users:write",
    status: 201,
    operation: restOperation(`mutation RaiseSandboxAlert($input: RaiseSandboxAlertInput!) { raiseSandboxAlert(input: $input) { ${RUN} } }`),
    variables: (req) => ({ input: bodyInput(req, { userId: req.params.user_id }) }),
    field: "raiseSandboxAlert",
  },
  {
    method: "POST",
    path: "/v2/sandbox/reset",
    summary: "Sandbox: delete the client's users (documents, checks, reviews, wallets, codes, messages) and events",
    scope: "users:write",
    operation: restOperation(`mutation ResetSandbox { resetSandbox { deletedUsers } }`),
    variables: () => ({}),
    field: "resetSandbox",
  },
];

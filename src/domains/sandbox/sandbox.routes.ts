/** REST entries for the sandbox (SANDBOX keys only; 404 for a LIVE key). */
import { bodyInput, restOperation, type PathLookup, type Route } from "../../rest/route.js";
import { findRun } from "../checks/checks.service.js";
import { userInPath } from "../users/users.routes.js";
import { sandboxClient } from "./sandbox.service.js";

/** What a sandbox route's path names: a LIVE key finds no sandbox, whatever the id. */
const inSandbox =
  (lookup: PathLookup): PathLookup =>
  async (ctx, params) => {
    sandboxClient(ctx);
    return lookup(ctx, params);
  };

const CLOCK = "now offsetSeconds movedAt";
const RUN = "check_id: id userId type status trigger decidedBy result { score reasons matches provider matcher } createdAt completedAt";

export const sandboxRoutes: Route[] = [
  {
    method: "GET",
    path: "/v2/sandbox/clock",
    summary: "Sandbox: the client's clock (its time, and how far it runs ahead of real time)",
    scope: "users:read",
    operation: restOperation(`query SandboxClock { sandboxClock { ${CLOCK} } }`),
    variables: () => ({}),
    field: "sandboxClock",
  },
  {
    method: "POST",
    path: "/v2/sandbox/clock/advance",
    summary: "Sandbox: move the client's clock ahead (days, hours) and run what that time causes for its objects: expiries, due re-screening",
    scope: "users:write",
    operation: restOperation(
      `mutation AdvanceSandboxClock($input: AdvanceSandboxClockInput!) { advanceSandboxClock(input: $input) { ${CLOCK} documentsExpired rescreened } }`,
    ),
    variables: (req) => ({ input: bodyInput(req) }),
    field: "advanceSandboxClock",
  },
  {
    method: "POST",
    path: "/v2/sandbox/clock/reset",
    summary: "Sandbox: the client's clock back to real time",
    scope: "users:write",
    operation: restOperation(`mutation ResetSandboxClock { resetSandboxClock { ${CLOCK} } }`),
    variables: () => ({}),
    field: "resetSandboxClock",
  },
  {
    method: "POST",
    path: "/v2/sandbox/checks/{check_id}/simulate",
    summary: "Sandbox: record a check's result as its upstream provider would (status, reasons, matches, score)",
    scope: "users:write",
    operation: restOperation(`mutation SimulateCheckResult($input: SimulateCheckResultInput!) { simulateCheckResult(input: $input) { ${RUN} } }`),
    lookup: inSandbox((ctx, params) => findRun(ctx, params.check_id)),
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
    lookup: inSandbox(userInPath),
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

/** REST entries for OTP and the sandbox outbox. Each maps a path and body onto a GraphQL operation; no rules here. */
import { bodyInput, queryVariables, restOperation, type Route } from "../../rest/route.js";
import { USER_REST_FIELDS } from "../users/users.routes.js";

const CHALLENGE = "otp_id: otpId channel destination expiresAt resendAvailableAt";
const trigger = (channel: "EMAIL" | "SMS"): Route => ({
  method: "POST",
  path: `/v2/users/trigger/otp/${channel.toLowerCase()}`,
  summary: `Send a one-time code by ${channel === "EMAIL" ? "email" : "SMS"}`,
  scope: "users:write",
  status: 202,
  operation: restOperation(`mutation TriggerOtp($input: TriggerOtpInput!) { triggerOtp(input: $input) { ${CHALLENGE} } }`),
  variables: (req) => ({ input: bodyInput(req, { channel }) }),
  field: "triggerOtp",
});

export const otpRoutes: Route[] = [
  trigger("EMAIL"),
  trigger("SMS"),
  {
    method: "POST",
    path: "/v2/users/verify/otp",
    summary: "Verify the current email or phone with a one-time code",
    scope: "users:write",
    operation: restOperation(`mutation VerifyOtp($input: VerifyOtpInput!) { verifyOtp(input: $input) { userId channel verified verifiedAt } }`),
    variables: (req) => ({ input: bodyInput(req) }),
    field: "verifyOtp",
  },
  {
    method: "PUT",
    path: "/v2/users/verify/otp",
    summary: "Confirm a pending email or phone change with a one-time code",
    scope: "users:write",
    etagField: "etag",
    operation: restOperation(
      `mutation ConfirmContactChange($input: ConfirmContactChangeInput!) { confirmContactChange(input: $input) { ${USER_REST_FIELDS} } }`,
    ),
    variables: (req) => ({ input: bodyInput(req) }),
    field: "confirmContactChange",
  },
  {
    method: "GET",
    path: "/v2/sandbox/messages",
    summary: "Messages a sandbox client's users would have received",
    scope: "users:read",
    list: true,
    queryParams: ["user_id", "channel"],
    operation: restOperation(`query SandboxMessages($first: Int, $after: String, $userId: ID, $channel: OtpChannel) {
      sandboxMessages(first: $first, after: $after, userId: $userId, channel: $channel) {
        totalCount edges { node { userId channel to body code createdAt } } } }`),
    variables: (req) => queryVariables(req, ["user_id", "channel"]),
    field: "sandboxMessages",
  },
];

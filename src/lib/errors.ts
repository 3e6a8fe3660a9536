/**
 * The one table of error codes: code → HTTP status + title. Services throw DomainError with a code
 * from here; GraphQL carries the code in `extensions.code`, the REST shim maps it to problem+json,
 * and OpenAPI lists the same table. Adding a domain adds its codes here and nowhere else.
 */
export const ERROR_CODES = {
  VALIDATION_FAILED: { status: 400, title: "The request is not valid" },
  UNAUTHENTICATED: { status: 401, title: "Authentication required" },
  FORBIDDEN: { status: 403, title: "The API key lacks the scope this operation needs" },
  PREFLIGHT_REQUIRED: { status: 403, title: "A form or multipart body needs a header that only a preflighted request carries" },
  NOT_FOUND: { status: 404, title: "Not found" },
  METHOD_NOT_ALLOWED: { status: 405, title: "Method not allowed" },
  NOT_ACCEPTABLE: { status: 406, title: "Not acceptable" },
  CONFLICT: { status: 409, title: "Conflict" },
  IDEMPOTENCY_KEY_IN_USE: { status: 409, title: "A request with this Idempotency-Key is still in flight" },
  INVALID_STATE_TRANSITION: { status: 409, title: "The object's status does not allow this change" },
  NO_PENDING_CHANGE: { status: 409, title: "There is no pending change to confirm" },
  SECOND_REVIEWER_REQUIRED: { status: 409, title: "A second, different reviewer must approve this decision" },
  PRECONDITION_FAILED: { status: 412, title: "The object changed since you read it" },
  PAYLOAD_TOO_LARGE: { status: 413, title: "Payload too large" },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: "Unsupported media type" },
  IDEMPOTENCY_KEY_REUSED: { status: 422, title: "This Idempotency-Key was used with a different request" },
  RESULT_TOO_LARGE: { status: 422, title: "The answer would hold more rows or file bytes than one request may" },
  REQUIREMENTS_DUE: { status: 422, title: "Requirements are still due" },
  OTP_INVALID: { status: 422, title: "The code is not valid" },
  OTP_EXPIRED: { status: 422, title: "The code has expired" },
  OTP_NOT_FOUND: { status: 404, title: "No code was issued" },
  OTP_ATTEMPTS_EXCEEDED: { status: 429, title: "Too many attempts" },
  RATE_LIMITED: { status: 429, title: "Too many requests" },
  INTERNAL: { status: 500, title: "Internal error" },
  DELIVERY_UNAVAILABLE: { status: 503, title: "Delivery is not configured" },
  UNAVAILABLE: { status: 503, title: "Service unavailable" },
  DELIVERY_FAILED: { status: 502, title: "The message could not be delivered" },
  USER_NOT_ACTIVE: { status: 409, title: "The user is not ACTIVE" },
  WALLET_NOT_ACTIVE: { status: 409, title: "The wallet is not ACTIVE" },
  BENEFICIARY_INVALID: { status: 422, title: "The payout does not meet the corridor's requirements" },
  CORRIDOR_INACTIVE: { status: 409, title: "The corridor takes no payouts" },
  CURRENCY_NOT_SUPPORTED: { status: 422, title: "The currency is not an active ISO 4217 currency" },
  V1_GONE: { status: 410, title: "The v1 API is turned off" },
  WEBHOOK_ENDPOINT_DISABLED: { status: 409, title: "The webhook endpoint is disabled" },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** A problem with one input field; `field` is a dotted path in the domain's (camelCase) names. */
export type FieldError = { field: string; code: string; message: string };

/** An error whose message is safe to show the caller. Anything else is masked as INTERNAL. */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly fields?: FieldError[],
    /** extra, safe, machine-readable facts (e.g. attempts_remaining, retry_after) */
    readonly meta?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "DomainError";
  }
}

export const notFound = (what: string) => new DomainError("NOT_FOUND", `No ${what} with that id exists.`);
export const invalid = (fields: FieldError[]) =>
  new DomainError(
    "VALIDATION_FAILED",
    fields.length === 1 ? fields[0].message : `${fields.length} fields are not valid: ${fields.map((f) => f.field).join(", ")}.`,
    fields,
  );
export const statusOf = (code: string) => (ERROR_CODES as Record<string, { status: number }>)[code]?.status ?? 500;

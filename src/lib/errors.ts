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

/**
 * The most problems one answer lists (REST `errors`, GraphQL `extensions.fields`); past it they are
 * only counted, in `errors_omitted` (GraphQL `extensions.errorsOmitted`). One bound for every
 * route, so no body, however built, makes an error answer larger than a few kilobytes.
 */
export const MAX_LISTED_PROBLEMS = 20;
/** Characters of a field path, a field's message and a detail an answer shows: keys and values come from the caller. */
export const SHOWN = { field: 120, message: 500, detail: 2000 };

/** Text cut to `max` characters (a caller's key can be as long as the body), never leaving half a surrogate pair. */
export function clip(text: string, max: number = SHOWN.field) {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  return `${/[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut}…`;
}

/**
 * Problems as a walk finds them: the first MAX_LISTED_PROBLEMS kept, the rest only counted. A walk
 * that checks `full` before it builds a message does no more per problem past the cap than count it.
 */
export class Problems<T> {
  readonly listed: T[] = [];
  omitted = 0;
  get full() {
    return this.listed.length >= MAX_LISTED_PROBLEMS;
  }
  get size() {
    return this.listed.length + this.omitted;
  }
  add(problem: T) {
    if (this.full) this.omitted++;
    else this.listed.push(problem);
  }
  /** `count` problems found past the cap, counted without being built */
  skip(count: number) {
    this.omitted += count;
  }
}

/**
 * The keys of `object` that `known` does not hold, as a walk reports them: `report` is called for each
 * until `problems` is full; the rest are counted from the sizes (all keys less the known ones
 * present), not visited one by one, so a hundred thousand unknown keys cost what the cap costs.
 */
export function reportUnknownKeys(object: object, known: ReadonlySet<string>, problems: Problems<unknown>, report: (key: string) => void) {
  const keys = Object.keys(object);
  let unknown = keys.length;
  for (const key of known) if (Object.hasOwn(object, key)) unknown--;
  for (let i = 0; i < keys.length && unknown > 0 && !problems.full; i++)
    if (!known.has(keys[i]!)) {
      unknown--;
      report(keys[i]!);
    }
  problems.skip(unknown);
}

/** The listed part of a problem list and the meta that counts the rest (`errorsOmitted`), its texts clipped. */
export function listedProblems(fields: readonly FieldError[], meta?: Record<string, unknown>) {
  const before = typeof meta?.errorsOmitted === "number" ? meta.errorsOmitted : 0;
  const omitted = before + Math.max(fields.length - MAX_LISTED_PROBLEMS, 0);
  const listed = fields.slice(0, MAX_LISTED_PROBLEMS).map((f) => ({ ...f, field: clip(f.field), message: clip(f.message, SHOWN.message) }));
  return { fields: listed, meta: omitted ? { ...meta, errorsOmitted: omitted } : meta };
}

/** An error whose message is safe to show the caller. Anything else is masked as INTERNAL. */
export class DomainError extends Error {
  readonly fields?: FieldError[];
  /** extra, safe, machine-readable facts (e.g. attempts_remaining, retry_after, errorsOmitted) */
  readonly meta?: Record<string, unknown>;
  constructor(
    readonly code: ErrorCode,
    message: string,
    fields?: FieldError[],
    meta?: Record<string, unknown>,
  ) {
    super(clip(message, SHOWN.detail));
    this.name = "DomainError";
    const listed = fields ? listedProblems(fields, meta) : { fields, meta };
    this.fields = listed.fields;
    this.meta = listed.meta;
  }
}

export const notFound = (what: string) => new DomainError("NOT_FOUND", `No ${what} with that id exists.`);
/** VALIDATION_FAILED naming each listed field; `omitted` more were found and only counted. */
export const invalid = (fields: FieldError[], omitted = 0) =>
  new DomainError(
    "VALIDATION_FAILED",
    fields.length === 1 && !omitted ? fields[0].message : `${fields.length + omitted} fields are not valid: ${namesOf(fields, omitted)}.`,
    fields,
    omitted ? { errorsOmitted: omitted } : undefined,
  );

/** The first listed fields' names, and how many more there are. */
export function namesOf<T extends { field: string }>(fields: readonly T[], omitted = 0, describe: (f: T) => string = (f) => clip(f.field)) {
  const shown = fields.slice(0, MAX_LISTED_PROBLEMS).map(describe);
  const more = omitted + fields.length - shown.length;
  return more ? `${shown.join(", ")} and ${more} more` : shown.join(", ");
}
export const statusOf = (code: string) => (ERROR_CODES as Record<string, { status: number }>)[code]?.status ?? 500;

/** Errors on HTTP: RFC 9457 problem+json for REST, GraphQL-shaped JSON for /graphql; one code table. */
import { Response } from "../server/fetch-api.js";
import { isGraphQLPath } from "../server/request-state.js";
import type { GraphQLFormattedError } from "graphql";
import { toSnake } from "../lib/case.js";
import { ERROR_CODES, listedProblems, MAX_LISTED_PROBLEMS, statusOf, type ErrorCode, type FieldError } from "../lib/errors.js";
import { restPath, restText } from "./rest-names.js";

/** A failure as the caller will read it; `fields` and `detail` already use the transport's names. */
export type Problem = { code: string; detail: string; fields?: FieldError[]; meta?: Record<string, unknown> };
/** A request refused before it runs (401, 429, 503): what to say and the headers that go with it. */
export type Refusal = { problem: Problem; headers: Record<string, string> };

function problemResponse(problem: Problem, requestId: string, headers: Record<string, string> = {}) {
  const reply = problemReply(problem, requestId, headers);
  return new Response(reply.text, { status: reply.status, headers: reply.headers });
}

export function problemReply(given: Problem, requestId: string, headers: Record<string, string> = {}) {
  const problem = capped(given);
  const status = statusOf(problem.code);
  const title = ERROR_CODES[problem.code as ErrorCode]?.title ?? "Error";
  const body = {
    type: `https://docs.onboarding-gateway.dev/errors/${problem.code.toLowerCase().replaceAll("_", "-")}`,
    title,
    status,
    detail: problem.detail,
    code: problem.code,
    request_id: requestId,
    timestamp: new Date().toISOString(),
    ...(problem.fields?.length ? { errors: problem.fields } : {}),
    ...snakeMeta(problem.meta),
  };
  // a business rule's wait (e.g. the OTP resend cooldown) is a Retry-After header too, as for the request limit
  const retryAfter: Record<string, string> = typeof problem.meta?.retryAfter === "number" ? { "retry-after": String(problem.meta.retryAfter) } : {};
  return { status, headers: { "content-type": "application/problem+json", ...retryAfter, ...headers }, text: JSON.stringify(body) };
}

/** At most MAX_LISTED_PROBLEMS fields, the rest counted in `errorsOmitted`, whoever made the problem. */
const capped = (problem: Problem): Problem => (problem.fields ? { ...problem, ...listedProblems(problem.fields, problem.meta) } : problem);

const snakeMeta = (meta?: Record<string, unknown>) => (meta ? Object.fromEntries(Object.entries(meta).map(([k, v]) => [toSnake(k), v])) : {});

/** A request-level failure on /graphql keeps the GraphQL response shape, with the HTTP status of its code. */
function graphqlErrorResponse(problem: Problem, requestId: string, headers: Record<string, string> = {}) {
  const reply = graphqlErrorReply(problem, requestId, headers);
  return new Response(reply.text, { status: reply.status, headers: reply.headers });
}

export function graphqlErrorReply(given: Problem, requestId: string, headers: Record<string, string> = {}) {
  const problem = capped(given);
  const omitted = problem.meta?.errorsOmitted;
  const extensions = { code: problem.code, requestId, ...(problem.fields ? { fields: problem.fields } : {}), ...(omitted ? { errorsOmitted: omitted } : {}) };
  const body = { errors: [{ message: problem.detail, extensions }] };
  return { status: statusOf(problem.code), headers: { "content-type": "application/json", ...headers }, text: JSON.stringify(body) };
}

/**
 * The first GraphQL error decides the problem; GraphQL's own input errors are VALIDATION_FAILED.
 * Domain messages name fields in GraphQL's camelCase: for REST they are renamed here (`known` is
 * the schema's field and argument names), and a graphql-js message, which would name variables and
 * types, is never shown as it is (the shim's input check makes one unlikely; this is the backstop).
 */
export function problemFromGraphQL(errors: readonly GraphQLFormattedError[], known: ReadonlySet<string>): Problem {
  const first = errors[0];
  const ext = (first.extensions ?? {}) as { code?: string; fields?: FieldError[] } & Record<string, unknown>;
  const { code = "VALIDATION_FAILED", fields: _fields, http: _http, errorId, errorsOmitted: _omitted, ...meta } = ext;
  const rest = (text: string) => (GRAPHQL_WORDING.test(text) ? "The request is not valid for this route." : restText(text, known));
  // each error's list is capped already; together they are capped again, and every omission counted
  let omitted = 0;
  const found: FieldError[] = [];
  for (const e of errors) {
    found.push(...((e.extensions?.fields as FieldError[] | undefined) ?? []).slice(0, MAX_LISTED_PROBLEMS - found.length));
    omitted += (e.extensions?.fields as unknown[] | undefined)?.length ?? 0;
    omitted += Number(e.extensions?.errorsOmitted ?? 0);
  }
  omitted -= found.length;
  const fields = found.map((f) => ({ ...f, field: restPath(f.field), message: rest(f.message) }));
  return {
    code: code in ERROR_CODES ? code : "INTERNAL",
    detail: rest(first.message),
    fields: fields.length ? fields : undefined,
    meta: { ...(errorId ? { errorId } : {}), ...meta, ...(omitted ? { errorsOmitted: omitted } : {}) },
  };
}

const GRAPHQL_WORDING = /Variable "\$|cannot represent|Cannot query field|Unknown argument|\b(?:input type|enum) "|defined by type|Syntax Error/;

/** A request-level error in the shape of the path it was sent to. */
export function errorResponse(request: Request, problem: Problem, requestId: string, headers: Record<string, string> = {}) {
  return isGraphQLPath(new URL(request.url).pathname) ? graphqlErrorResponse(problem, requestId, headers) : problemResponse(problem, requestId, headers);
}

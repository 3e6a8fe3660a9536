/** Errors on HTTP: RFC 9457 problem+json for REST, GraphQL-shaped JSON for /graphql; one code table. */
import { Response } from "../server/fetch-api.js";
import { isGraphQLPath } from "../server/request-state.js";
import type { GraphQLFormattedError } from "graphql";
import { toSnake } from "../lib/case.js";
import { ERROR_CODES, statusOf, type ErrorCode, type FieldError } from "../lib/errors.js";

export type Problem = { code: string; detail: string; fields?: FieldError[]; meta?: Record<string, unknown> };

/** `residentialAddress.postalCode` → `residential_address.postal_code` */
const restField = (field: string) => field.split(".").map(toSnake).join(".");

export function problemResponse(problem: Problem, requestId: string, headers: Record<string, string> = {}) {
  const reply = problemReply(problem, requestId, headers);
  return new Response(reply.text, { status: reply.status, headers: reply.headers });
}

export function problemReply(problem: Problem, requestId: string, headers: Record<string, string> = {}) {
  const status = statusOf(problem.code);
  const title = ERROR_CODES[problem.code as ErrorCode]?.title ?? "Error";
  const body = {
    type: `https://docs.onboarding-gateway.dev/errors/${problem.code.toLowerCase().replaceAll("_", "-")}`,
    title, status, detail: problem.detail, code: problem.code, request_id: requestId, timestamp: new Date().toISOString(),
    ...(problem.fields?.length ? { errors: problem.fields.map((f) => ({ ...f, field: restField(f.field) })) } : {}),
    ...snakeMeta(problem.meta),
  };
  // a business rule's wait (e.g. the OTP resend cooldown) is a Retry-After header too, as for the request limit
  const retryAfter: Record<string, string> = typeof problem.meta?.retryAfter === "number" ? { "retry-after": String(problem.meta.retryAfter) } : {};
  return { status, headers: { "content-type": "application/problem+json", ...retryAfter, ...headers }, text: JSON.stringify(body) };
}

const snakeMeta = (meta?: Record<string, unknown>) => (meta ? Object.fromEntries(Object.entries(meta).map(([k, v]) => [toSnake(k), v])) : {});

/** A request-level failure on /graphql keeps the GraphQL response shape, with the HTTP status of its code. */
export function graphqlErrorResponse(problem: Problem, requestId: string, headers: Record<string, string> = {}) {
  const body = { errors: [{ message: problem.detail, extensions: { code: problem.code, requestId, ...(problem.fields ? { fields: problem.fields } : {}) } }] };
  return new Response(JSON.stringify(body), { status: statusOf(problem.code), headers: { "content-type": "application/json", ...headers } });
}

/** The first GraphQL error decides the problem; GraphQL's own input errors are VALIDATION_FAILED. */
export function problemFromGraphQL(errors: readonly GraphQLFormattedError[]): Problem {
  const first = errors[0];
  const ext = (first.extensions ?? {}) as { code?: string; fields?: FieldError[] } & Record<string, unknown>;
  const { code = "VALIDATION_FAILED", fields, http: _http, errorId, ...meta } = ext;
  const allFields = errors.flatMap((e) => ((e.extensions?.fields as FieldError[] | undefined) ?? []));
  return { code: code in ERROR_CODES ? code : "INTERNAL", detail: first.message, fields: allFields.length ? allFields : fields, meta: errorId ? { errorId, ...meta } : meta };
}

/** A request-level error in the shape of the path it was sent to. */
export function errorResponse(request: Request, problem: Problem, requestId: string, headers: Record<string, string> = {}) {
  return isGraphQLPath(new URL(request.url).pathname) ? graphqlErrorResponse(problem, requestId, headers) : problemResponse(problem, requestId, headers);
}

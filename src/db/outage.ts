/**
 * The one place that tells "the database is unreachable or too slow" from every other error.
 * Such failures are the service's dependency failing, not a bug and not the caller's input: they
 * answer 503 UNAVAILABLE with Retry-After (REST problem+json, GraphQL `extensions.code`), never a
 * 500, and never with driver text. Used by error masking (GraphQL and the REST shim) and by the
 * request-phase plugins that query outside GraphQL (authentication, idempotency).
 */
import { GraphQLError, type ASTNode } from "graphql";

/** seconds a caller is asked to wait: about what a PostgreSQL restart or failover takes */
const RETRY_AFTER_SECONDS = 5;
const UNAVAILABLE_DETAIL = "The database is unavailable; retry shortly.";

/** Prisma's codes for a server it cannot reach or that went away (P1xxx), a pool or transaction wait that ran out, too many connections */
const PRISMA_CODES = new Set(["P1001", "P1002", "P1008", "P1011", "P1017", "P2024", "P2037"]);
/** driver adapter kinds (@prisma/driver-adapter-utils) for the same */
const ADAPTER_KINDS = new Set(["DatabaseNotReachable", "ConnectionClosed", "SocketTimeout", "TooManyConnections", "TlsConnectionError"]);
/**
 * SQLSTATEs: class 08 (connection exception), 57P01–57P03 (admin/crash shutdown, cannot connect
 * now), 57014 (statement timeout), 53300 (too many connections), 58xxx (system I/O error)
 */
const SQLSTATE = /^(08...|57P0[1-3]|57014|53300|53000|58...)$/;
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ECONNABORTED", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN"]);
/** node-postgres says these in plain Errors without a code; Prisma's transaction timeouts (P2028) likewise */
const PG_MESSAGES =
  /Connection terminated|connection error and is not queryable|timeout exceeded when trying to connect|Query read timeout|Unable to start a transaction in the given time|cannot be executed on an expired transaction/i;

type Loose = {
  code?: unknown;
  name?: unknown;
  message?: unknown;
  cause?: unknown;
  originalError?: unknown;
  meta?: { driverAdapterError?: unknown };
  errors?: unknown;
};

/** true when `error` (or what it wraps) says the database could not be reached or answered too late */
export function isOutage(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== "object" || depth > 6) return false;
  const e = error as Loose;
  const code = typeof e.code === "string" ? e.code : undefined;
  if (code && (PRISMA_CODES.has(code) || SQLSTATE.test(code) || SOCKET_CODES.has(code))) return true;
  if (e.name === "DriverAdapterError" && e.cause && typeof e.cause === "object") {
    const cause = e.cause as { kind?: string; code?: string; originalCode?: string };
    if (ADAPTER_KINDS.has(cause.kind ?? "")) return true;
    if (SQLSTATE.test(cause.originalCode ?? cause.code ?? "")) return true;
  }
  // Prisma wraps a driver error whose SQLSTATE it has no code for as P2039/P2010
  if ((code === "P2039" || code === "P2010" || code === "P2028") && isOutage(e.meta?.driverAdapterError, depth + 1)) return true;
  if (typeof e.message === "string" && PG_MESSAGES.test(e.message)) return true;
  if (Array.isArray(e.errors) && e.errors.some((inner) => isOutage(inner, depth + 1))) return true;
  return isOutage(e.originalError, depth + 1) || isOutage(e.cause, depth + 1);
}

/** The GraphQL error an outage becomes: 503 on /graphql (yoga reads `http`), UNAVAILABLE in the REST shim. */
export function outageGraphQLError(wrapper?: { nodes?: readonly ASTNode[] | ASTNode; path?: readonly (string | number)[] }) {
  return new GraphQLError(UNAVAILABLE_DETAIL, {
    nodes: wrapper?.nodes,
    path: wrapper?.path,
    extensions: { code: "UNAVAILABLE", retryAfter: RETRY_AFTER_SECONDS, http: { status: 503, headers: { "retry-after": String(RETRY_AFTER_SECONDS) } } },
  });
}

export const outageProblem = { code: "UNAVAILABLE", detail: UNAVAILABLE_DETAIL, meta: { retryAfter: RETRY_AFTER_SECONDS } };
export const outageHeaders = { "retry-after": String(RETRY_AFTER_SECONDS) };

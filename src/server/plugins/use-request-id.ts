/** Honour or issue x-request-id, echo it, and log + measure each request once it is answered. */
import { randomUUID } from "node:crypto";
import { getOperationAST } from "graphql";
import type { Plugin } from "graphql-yoga";
import type { Logger } from "../../lib/logger.js";
import type { Metrics } from "../../lib/metrics.js";
import { templateOf, type CompiledRoute } from "../../rest/routes.js";
import { stateOf } from "../request-state.js";

const SAFE_ID = /^[\w.:-]{1,128}$/;

/** The caller's x-request-id when it is safe to log and echo, else a new one. */
export const requestIdFrom = (given: string | null) => (given && SAFE_ID.test(given) ? given : randomUUID());

/** Paths served in front of the route table, each its own label ("/docs" with its assets). */
const SERVED_PATHS = new Set(["/", "/graphql", "/healthz", "/readyz", "/metrics", "/openapi.json", "/docs", "/favicon.ico"]);

/** A path's label in metrics and logs: a served path, else its route's template, else "unmatched" (every made-up path shares it). */
export const routeLabels = (table: CompiledRoute[]) => (pathname: string) =>
  SERVED_PATHS.has(pathname) ? pathname : pathname.startsWith("/docs/") ? "/docs" : (templateOf(table, pathname) ?? "unmatched");

export type Answered = {
  method: string;
  pathname: string;
  route?: string;
  status: number;
  started: number;
  requestId: string /** a read whatever its method (a GraphQL query) */;
  read?: boolean;
};

/** One answered request: its metric and its log line (yoga's onResponse and the lanes alike). */
export function recordRequest({ logger, metrics }: { logger: Logger; metrics: Metrics }, answered: Answered) {
  const { method, status, requestId } = answered;
  const seconds = (performance.now() - answered.started) / 1000;
  const route = answered.route ?? metrics.routeOf(answered.pathname);
  metrics.observe(method, route, status, seconds);
  // successful reads (a GET, a GraphQL query) are the hot path: keep them at debug so logging stays off it
  const level = status >= 500 ? "error" : status >= 400 || !(answered.read ?? method === "GET") ? "info" : "debug";
  logger[level]({ request_id: requestId, method, route, status, ms: Math.round(seconds * 1000) }, "request");
}

export function useRequestId(deps: { logger: Logger; metrics: Metrics }): Plugin {
  return {
    onRequest({ request }) {
      stateOf(request).requestId = requestIdFrom(request.headers.get("x-request-id"));
    },
    onExecute({ args }) {
      const request = (args.contextValue as { request?: Request }).request;
      if (request) stateOf(request).read = getOperationAST(args.document, args.operationName)?.operation === "query";
    },
    onResponse({ request, response }) {
      const state = stateOf(request);
      state.requestId ||= randomUUID(); // a response ended before our onRequest (CORS preflight)
      response.headers.set("x-request-id", state.requestId);
      recordRequest(deps, {
        method: request.method,
        pathname: new URL(request.url).pathname,
        route: state.route,
        status: response.status,
        started: state.started,
        requestId: state.requestId,
        read: state.read,
      });
    },
  };
}

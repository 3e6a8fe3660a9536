/** Honour or issue x-request-id, echo it, and log + measure each request once it is answered. */
import { randomUUID } from "node:crypto";
import type { Plugin } from "graphql-yoga";
import type { Logger } from "../../lib/logger.js";
import type { Metrics } from "../../lib/metrics.js";
import { stateOf } from "../request-state.js";

const SAFE_ID = /^[\w.:-]{1,128}$/;

export function useRequestId({ logger, metrics }: { logger: Logger; metrics: Metrics }): Plugin {
  return {
    onRequest({ request }) {
      const given = request.headers.get("x-request-id");
      stateOf(request).requestId = given && SAFE_ID.test(given) ? given : randomUUID();
    },
    onResponse({ request, response }) {
      const state = stateOf(request);
      state.requestId ||= randomUUID(); // a response ended before our onRequest (CORS preflight)
      response.headers.set("x-request-id", state.requestId);
      const seconds = (performance.now() - state.started) / 1000;
      const route = state.route ?? new URL(request.url).pathname.split("/").slice(0, 3).join("/");
      metrics.observe(request.method, route, response.status, seconds);
      // successful reads are the hot path: keep them at debug so logging stays off it
      const level = response.status >= 500 ? "error" : response.status >= 400 || request.method !== "GET" ? "info" : "debug";
      logger[level]({ request_id: state.requestId, method: request.method, route, status: response.status, ms: Math.round(seconds * 1000) }, "request");
    },
  };
}

/**
 * The last line for a throw nobody expected (a bug, a driver failure) in any request-phase plugin,
 * present or future: it is logged with an errorId beside the original, and the caller gets the
 * errorId in problem+json (or GraphQL's shape on /graphql), never a message, stack or SQL.
 * whatwg-node would otherwise answer 500 with `error.stack` as the body.
 */
import { randomUUID } from "node:crypto";
import type { Plugin } from "graphql-yoga";
import type { Logger } from "../lib/logger.js";
import { isOutage, outageHeaders, outageProblem } from "../db/outage.js";
import { errorResponse, type Refusal } from "../rest/problem.js";
import { stateOf } from "./request-state.js";

/** What a caller is told of a throw nobody expected: 503 for an outage, else INTERNAL with an errorId that is logged. */
export function unexpectedProblem(logger: Logger, requestId: string, error: unknown): Refusal {
  // the database unreachable or too slow is the dependency failing, not a bug (db/outage.ts)
  if (isOutage(error)) return { problem: outageProblem, headers: outageHeaders };
  const errorId = randomUUID();
  logger.error({ errorId, err: error, request_id: requestId }, "unexpected error");
  return { problem: { code: "INTERNAL", detail: `An unexpected error occurred; quote errorId ${errorId} to support.`, meta: { errorId } }, headers: {} };
}

function unexpectedErrorResponse(logger: Logger, request: Request, error: unknown) {
  const requestId = stateOf(request).requestId;
  const { problem, headers } = unexpectedProblem(logger, requestId, error);
  return errorResponse(request, problem, requestId, headers);
}

/** Wraps a plugin's request and response hooks so nothing thrown there reaches whatwg-node's default answer. */
export function withErrorBoundary(plugin: Plugin, logger: Logger): Plugin {
  const { onRequest, onResponse } = plugin;
  return {
    ...plugin,
    ...(onRequest
      ? {
          async onRequest(payload) {
            try {
              await onRequest.call(plugin, payload);
            } catch (error) {
              payload.endResponse(unexpectedErrorResponse(logger, payload.request, error));
            }
          },
        }
      : {}),
    ...(onResponse
      ? {
          async onResponse(payload) {
            // the answer is already made: a failing after-step is logged, the caller still gets it
            try {
              await onResponse.call(plugin, payload as never);
            } catch (error) {
              logger.error({ err: error, request_id: stateOf(payload.request).requestId }, "response hook failed");
            }
          },
        }
      : {}),
  } as Plugin;
}

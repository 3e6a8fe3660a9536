/**
 * Lean lanes in front of yoga: the hot reads are answered from node's request handler without
 * whatwg Request/Response objects or yoga's plugin pipeline, work that costs a small read a large
 * share of its CPU (docs/performance.md). Only the transport is bypassed, never a rule: a lane calls the very
 * functions yoga's plugins call (request id, authentication, rate limit, the REST answer, input
 * guard and error mask, unexpected errors, metrics and logs). Whatever a lane does not know goes
 * to yoga unchanged.
 *
 * REST lane: GET on a route of the table, no body, no Origin (CORS is yoga's), not a v1 route
 * (its deprecation headers are the shim's); and a write (POST, PUT, PATCH) on such a route whose
 * JSON body declares a length within MAX_BODY_BYTES (no upload slot is due) and that carries no
 * Idempotency-Key (the replay store is yoga's plugin). Everything else (DELETE, HEAD, probes, a
 * chunked or larger body, forms, unknown paths) is yoga's.
 *
 * /graphql lane: a POST of JSON whose query text yoga has already validated once
 * (plugins/use-validated-documents.ts: armour and all) with a valid key; it is run from the
 * compiled cache (graphql/compiled.ts). A refused key goes to yoga before the body is read; with a
 * valid one the body is read, and whatever the lane then declines (an unknown text, `extensions`,
 * odd variables) goes to yoga with the bytes read.
 *
 * Both lanes know the caller before they read a body: one without a valid key is refused (or left
 * to yoga, which refuses it the same way) with its body unread.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ExecutionResult } from "graphql";
import { processRegularResult } from "graphql-yoga";
import { withRequestContext, type Services } from "../context.js";
import type { CompiledExecutor } from "../graphql/compiled.js";
import type { Metrics } from "../lib/metrics.js";
import type { Principal } from "../principal.js";
import type { RouteAnswerer } from "../rest/answer-route.js";
import { graphqlErrorReply, problemReply } from "../rest/problem.js";
import { bodyOf } from "../rest/request-body.js";
import type { Reply } from "../rest/shared-cache.js";
import { matchRoute, type CompiledRoute, type Match } from "../rest/routes.js";
import { identify } from "./plugins/use-authentication.js";
import type { RateLimiter } from "./plugins/use-rate-limit.js";
import { documentKey, type ValidatedDocuments } from "./plugins/use-validated-documents.js";
import { recordRequest, requestIdFrom } from "./plugins/use-request-id.js";
import { isGraphQLPath, nodeHeaders, type HeaderSource } from "./request-state.js";
import { unexpectedProblem } from "./unexpected-error.js";
import { peerOf } from "./peer.js";
import { securityHeaders } from "./security-headers.js";

export type LaneDeps = {
  services: Services;
  metrics: Metrics;
  table: CompiledRoute[];
  answerRoute: RouteAnswerer;
  rateLimiter: RateLimiter;
  compiled: CompiledExecutor;
  /** /graphql lane: texts yoga validated, its fetch API (error results are shaped by yoga's own processor), the body limit */
  validated: ValidatedDocuments;
  fetchAPI: FetchAPI;
  maxBodyBytes: number;
  /** TRUST_PROXY: how many proxies' X-Forwarded-* to believe (peer.ts) */
  trustProxy: number;
};

type FetchAPI = Parameters<typeof processRegularResult>[1];
/** yoga's regular result processor answers these, with this content type (graphql-yoga use-result-processor.ts) */
const ACCEPTED: Record<string, string> = {
  "": "application/json",
  "*/*": "application/json",
  "application/json": "application/json",
  "application/graphql-response+json": "application/graphql-response+json",
};

const WRITES = new Set(["POST", "PUT", "PATCH"]);
const hasBody = (req: IncomingMessage) =>
  (req.headers["content-length"] !== undefined && req.headers["content-length"] !== "0") || req.headers["transfer-encoding"] !== undefined;

/** Returns a handler that answers what a lane knows and returns false for everything else (yoga's). */
export function createLanes(deps: LaneDeps) {
  const { services, metrics, table, answerRoute, rateLimiter, compiled } = deps;
  const log = { logger: services.logger, metrics };

  /**
   * A JSON body of declared length within MAX_BODY_BYTES and no Idempotency-Key: what both lanes
   * take (a chunked or larger body needs yoga's limits and upload slots, a replay yoga's store).
   */
  const jsonBodyWithinLimit = (req: IncomingMessage) => {
    if (req.headers["idempotency-key"] !== undefined || req.headers["transfer-encoding"] !== undefined) return false;
    if (!/^application\/json\s*(;\s*charset=utf-8\s*)?$/i.test(req.headers["content-type"] ?? "")) return false;
    const length = Number(req.headers["content-length"] ?? 0);
    return length > 0 && length <= deps.maxBodyBytes;
  };

  /** the route a lane answers, or null: a path that does not decode, no route, 405 and v1 routes are yoga's */
  const laneRoute = (req: IncomingMessage, pathname: string): Match => {
    if (req.headers.origin !== undefined || isGraphQLPath(pathname)) return null;
    if (req.method === "GET" ? hasBody(req) : !(WRITES.has(req.method ?? "") && jsonBodyWithinLimit(req))) return null;
    try {
      const match = matchRoute(table, req.method!, pathname);
      return match && "route" in match && !match.route.successor ? match : null;
    } catch {
      return null;
    }
  };

  async function restLane(req: IncomingMessage, res: ServerResponse, pathname: string, search: string, match: Match) {
    const method = req.method!;
    const started = performance.now();
    const headers = nodeHeaders(req);
    const requestId = requestIdFrom(headers.get("x-request-id"));
    const peer = peerOf(headers, req.socket, deps.trustProxy);
    let route: string | undefined;
    // the key and its budget before the body: a refused caller's body is never read, let alone held
    const admitted = await admit(headers, peer.address, requestId);
    let reply = "reply" in admitted ? admitted.reply : null;
    // a write's body, whole (within the limit: jsonBodyWithinLimit); one that never arrives ends the call
    const bytes = reply || method === "GET" ? null : await readAll(req);
    if ("principal" in admitted) {
      const { principal } = admitted;
      try {
        reply = await answerRoute(
          {
            method,
            pathname,
            search,
            searchParams: new URLSearchParams(search),
            headers,
            principal,
            requestId,
            match,
            // a read has none (laneRoute); a write's is judged only once the route and scope allow it
            body: async () => (bytes ? bodyOf(bytes, headers.get("content-type")) : { value: {}, form: false }),
            onRoute: (path) => {
              route = path;
            },
          },
          (r, variables) =>
            withRequestContext(services, principal, requestId, (ctx) =>
              compiled.execute(r.operation, variables, ctx, { exactErrors: true, keepDomainErrors: true }),
            ),
        );
      } catch (error) {
        const refusal = unexpectedProblem(services.logger, requestId, error);
        reply = problemReply(refusal.problem, requestId, refusal.headers);
      }
    }
    write(res, reply!, { ...admitted.limitHeaders, "x-request-id": requestId }, peer.tls);
    recordRequest(log, { method, pathname, route, status: reply!.status, started, requestId });
  }

  /** The caller's principal and its budget's headers, or the reply that refuses it (401, 429, 503), from the headers alone. */
  async function admit(
    headers: HeaderSource,
    address: string | null,
    requestId: string,
  ): Promise<{ principal: Principal; limitHeaders: Record<string, string> } | { reply: Reply; limitHeaders?: undefined }> {
    try {
      const who = await identify(services.auth, headers);
      if (!("principal" in who)) {
        const refusal = await rateLimiter.refused(address, who);
        return { reply: problemReply(refusal.problem, requestId, refusal.headers) };
      }
      const limited = await rateLimiter(who.principal);
      if (limited.refusal) return { reply: problemReply(limited.refusal.problem, requestId, limited.refusal.headers) };
      return { principal: who.principal, limitHeaders: limited.headers ?? {} };
    } catch (error) {
      const refusal = unexpectedProblem(services.logger, requestId, error);
      return { reply: problemReply(refusal.problem, requestId, refusal.headers) };
    }
  }

  const isLaneQuery = (req: IncomingMessage, pathname: string) => {
    if (req.method !== "POST" || pathname !== "/graphql" || req.headers.origin !== undefined) return false;
    return jsonBodyWithinLimit(req) && (req.headers.accept ?? "").toLowerCase().replace(/\s/g, "") in ACCEPTED;
  };

  /** false: declined, and `req.body` holds the bytes read for yoga */
  async function graphqlLane(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const started = performance.now();
    const headers = nodeHeaders(req);
    // a refused key, none, an outage: yoga says it, before reading the body (or only a small one: GraphiQL's introspection)
    const who = await identify(services.auth, headers).catch(() => null);
    if (!who || !("principal" in who)) return false;
    const bytes = await readAll(req);
    (req as IncomingMessage & { body?: Buffer }).body = bytes; // whatwg-node's adapter takes a body read already
    let params: { query?: unknown; variables?: unknown; operationName?: unknown; extensions?: unknown };
    try {
      params = JSON.parse(bytes.toString("utf8"));
    } catch {
      return false;
    }
    const { query, variables = null, operationName = null } = params ?? {};
    if (typeof query !== "string" || params.extensions !== undefined || (operationName !== null && typeof operationName !== "string")) return false;
    if (variables !== null && (typeof variables !== "object" || Array.isArray(variables))) return false;
    const document = deps.validated.get(documentKey(query, operationName));
    if (!document || !compiled.accepts(document, (variables ?? {}) as Record<string, unknown>)) return false;
    const requestId = requestIdFrom(headers.get("x-request-id"));
    const principal = who.principal;
    let reply: Reply;
    let limitHeaders: Record<string, string> = {};
    try {
      const limited = await rateLimiter(principal);
      if (limited.refusal) reply = graphqlErrorReply(limited.refusal.problem, requestId, limited.refusal.headers);
      else {
        limitHeaders = limited.headers ?? {};
        const result = await withRequestContext(services, principal, requestId, (ctx) =>
          compiled.execute(document, (variables ?? {}) as Record<string, unknown>, ctx, { exactErrors: true, accepted: true }),
        );
        reply = await graphqlReply(result, ACCEPTED[(headers.get("accept") ?? "").toLowerCase().replace(/\s/g, "")], deps.fetchAPI);
      }
    } catch (error) {
      const refusal = unexpectedProblem(services.logger, requestId, error);
      reply = graphqlErrorReply(refusal.problem, requestId, refusal.headers);
    }
    metrics.countLane("graphql");
    write(res, reply, { ...limitHeaders, "x-request-id": requestId }, peerOf(headers, req.socket, deps.trustProxy).tls);
    recordRequest(log, { method: "POST", pathname: "/graphql", status: reply.status, started, requestId, read: true }); // the lane runs queries only
    return true;
  }

  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const url = req.url ?? "";
    if (!url.startsWith("/")) return false;
    const q = url.indexOf("?");
    const pathname = q < 0 ? url : url.slice(0, q);
    const search = q < 0 ? "" : url.slice(q);
    const match = laneRoute(req, pathname);
    // either lane: a body that never arrives whole (the caller hung up) ends here, there is no one to answer
    if (match) {
      metrics.countLane("rest");
      await restLane(req, res, pathname, search, match).catch(() => res.destroy());
      return true;
    }
    if (isLaneQuery(req, pathname))
      return graphqlLane(req, res).catch(() => {
        res.destroy();
        return true;
      });
    return false;
  };
}

/** A reply on node's response, with the length yoga's adapter would send and the security headers yoga's answers carry. */
function write(res: ServerResponse, reply: Reply, extra: Record<string, string>, tls: boolean) {
  const headers: Record<string, string> = { ...securityHeaders(tls), ...reply.headers, ...extra };
  if (reply.text !== null) headers["content-length"] = String(typeof reply.text === "string" ? Buffer.byteLength(reply.text) : reply.text.byteLength);
  res.writeHead(reply.status, headers);
  res.end(reply.text ?? undefined);
}

/** A result as yoga's regular processor shapes it: a plain `{data}` directly, anything with errors by the processor itself. */
async function graphqlReply(result: ExecutionResult, accepted: string, fetchAPI: FetchAPI): Promise<Reply> {
  if (!result.errors?.length && !result.extensions)
    return { status: 200, headers: { "content-type": `${accepted}; charset=utf-8` }, text: JSON.stringify(result) };
  const response = await processRegularResult(result as never, fetchAPI, accepted);
  return { status: response.status, headers: Object.fromEntries(response.headers), text: await response.text() };
}

/** Only for a body that declared a length within the limit (isLaneQuery): node's parser hands over no more than it declared. */
function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

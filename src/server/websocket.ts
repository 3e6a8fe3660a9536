/**
 * graphql-ws on the same /graphql path, executed through yoga's envelop so subscriptions get the
 * same schema, context, validation (armour, introspection), input guard and masking as HTTP. The
 * key comes in connectionParams: `authorization` (`Bearer <key>` or the bare key) or
 * `x-api-key`, at the top or under `headers` as clients that forward their HTTP headers send it,
 * and is checked by the same function as an HTTP request's. A missing or refused key closes the
 * socket with 4401 Unauthorized and a reason: graphql-ws clients treat 4401 as fatal and report it,
 * where the library's default 4403 makes them reconnect silently for ever. So does a key revoked or
 * rotated while the socket is open (server/live-operations.ts).
 *
 * Each operation counts against its key's rate limit as an HTTP request does. Mutations are refused:
 * they belong on HTTP POST, where Idempotency-Key and the audit's request ids apply.
 */
import { randomUUID } from "node:crypto";
import type { Server } from "node:http";
import { getOperationAST, GraphQLError, type ExecutionArgs } from "graphql";
import { useServer } from "graphql-ws/use/ws";
import type { YogaServerInstance } from "graphql-yoga";
import { WebSocketServer, type WebSocket } from "ws";
import type { RequestContext, Services } from "../context.js";
import type { Principal } from "../principal.js";
import type { Refusal } from "../rest/problem.js";
import { isSlot, slotRefusalError, type LiveOperations } from "./live-operations.js";
import { identify, presentedKey } from "./plugins/use-authentication.js";
import { peerOf } from "./peer.js";
import type { AdmittedContext } from "./plugins/use-live-operations.js";
import type { RateLimiter } from "./plugins/use-rate-limit.js";
import { nodeHeaders, type HeaderSource } from "./request-state.js";

type Connection = { principal: Principal; request: Request; unwatch: () => void };
type Extra = { socket: WebSocket; connection?: Connection };
type Enveloped = { execute: (a: ExecutionArgs) => never; subscribe: (a: ExecutionArgs) => never };
type Yoga = YogaServerInstance<Record<string, unknown>, RequestContext>;

export type WebSocketDeps = {
  yoga: Yoga;
  services: Services;
  rateLimiter: RateLimiter;
  live: LiveOperations;
  /** MAX_BODY_BYTES: a frame is a request body */
  maxPayload: number;
  /** yoga's error mask: a refused operation's `error` message reads as the same refusal over HTTP */
  maskError: (error: unknown) => Error;
  /** TRUST_PROXY: whose address a refused key is counted against (server/peer.ts) */
  trustProxy: number;
};

export function attachWebSocket(server: Server, { yoga, services, rateLimiter, live, maxPayload, maskError, trustProxy }: WebSocketDeps) {
  // ws refuses a larger frame as it arrives (close 1009), before anything buffers or parses it
  const wss = new WebSocketServer({ server, path: yoga.graphqlEndpoint, maxPayload });
  useServer<Record<string, unknown> | undefined, Extra>(
    {
      execute: (args) => (args.rootValue as Enveloped).execute(args),
      subscribe: (args) => (args.rootValue as Enveloped).subscribe(args),
      async onConnect(ctx) {
        const { socket } = ctx.extra;
        const headers = connectionHeaders(ctx.connectionParams ?? {});
        const who = await identify(services.auth, headers);
        if (!("principal" in who)) {
          // a refused key counts against its address as over HTTP: key guessing is as slow on a socket
          const upgrade = ctx.extra.request;
          const counted = await rateLimiter.refused(peerOf(nodeHeaders(upgrade), upgrade.socket, trustProxy).address, who);
          refuseConnection(socket, counted, presentedKey(headers) !== null);
          return false;
        }
        const request = await operationsRequest(yoga);
        if (socket.readyState !== socket.OPEN) return false; // gone while its key was checked: nothing to watch
        const unwatch = live.watch(presentedKey(headers)!, who.principal, () => socket.close(4401, "Unauthorized: the API key has been revoked or rotated"));
        ctx.extra.connection = { principal: who.principal, request, unwatch };
        return true;
      },
      onError: (_ctx, _id, _payload, errors) => errors.map((error) => asSent(maskError(error) as GraphQLError)),
      onClose(ctx) {
        ctx.extra.connection?.unwatch();
        live.releaseSocket(ctx.extra.socket);
      },
      async onSubscribe(ctx, _id, payload) {
        const { principal, request } = ctx.extra.connection!;
        const { refusal } = await rateLimiter(principal);
        if (refusal) return [coded(refusal.problem.detail, "RATE_LIMITED", { retryAfter: Number(refusal.headers["retry-after"]) })];
        // `request` carries the socket through yoga's request phase: plugins that decide per request (introspection) decide alike
        const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({ ...ctx, request, params: payload });
        const document = orThrown(() => parse(payload.query));
        if (Array.isArray(document)) return document;
        const operation = getOperationAST(document, payload.operationName)?.operation;
        if (operation === "mutation")
          return [
            coded(
              "Mutations are not accepted over graphql-ws: send them as an HTTP POST to /graphql, where Idempotency-Key, the audit's request id and the rate limit apply.",
              "METHOD_NOT_ALLOWED",
            ),
          ];
        const errors = orThrown(() => validate(schema, document));
        if (errors.length) return errors;
        const admitted = operation === "subscription" ? live.admit(principal, ctx.extra.socket) : undefined;
        if (admitted && !isSlot(admitted)) return [slotRefusalError(admitted, { http: false })];
        const handover: AdmittedContext = { subscriptionSlot: admitted };
        const contextValue = await contextFactory({ ...handover, principal, requestId: randomUUID() } as never);
        return { schema, document, operationName: payload.operationName, variableValues: payload.variables, contextValue, rootValue: { execute, subscribe } };
      },
    },
    wss,
  );
  return () =>
    new Promise<void>((resolve) => {
      for (const c of wss.clients) c.close(1001, "server shutting down");
      wss.close(() => resolve());
    });
}

const coded = (message: string, code: string, extensions: Record<string, unknown> = {}) => new GraphQLError(message, { extensions: { ...extensions, code } });

/** An error as the socket sends it: without `extensions.http`, the status and headers only an HTTP answer uses (yoga strips it there). */
function asSent(error: GraphQLError) {
  const sent = error.toJSON();
  const { http: _http, ...extensions } = sent.extensions ?? {};
  return { ...sent, extensions };
}

/** What a phase answers, or the GraphQL error it threw (a syntax error, armour's refusal) as the protocol's `error` message, not a socket closed on a throw. */
function orThrown<T>(phase: () => T): T | GraphQLError[] {
  try {
    return phase();
  } catch (error) {
    if (error instanceof GraphQLError) return [error];
    throw error;
  }
}

function refuseConnection(socket: WebSocket, { problem }: Refusal, keyPresented: boolean) {
  // the database away: 1013 Try Again Later, which clients retry, not a refusal of the key
  if (problem.code === "RATE_LIMITED") return socket.close(4429, `Too many requests: ${problem.detail}`.slice(0, 120));
  if (problem.code !== "UNAUTHENTICATED") return socket.close(1013, "Service unavailable: retry shortly");
  socket.close(
    4401,
    keyPresented ? "Unauthorized: the API key is not valid or has been revoked" : "Unauthorized: send your API key as connectionParams.authorization",
  );
}

/**
 * A socket's operations as one POST /graphql seen by yoga's request-parse hooks: the plugins that
 * mark requests there and act on the mark later (useDisableIntrospection) then treat the socket as
 * they treat HTTP, with no copy of their rules here. (POST, not GET: yoga's own refusal of a
 * mutation sent by GET would answer before ours, which says where mutations go.)
 */
async function operationsRequest(yoga: Yoga) {
  const url = new URL(yoga.graphqlEndpoint, "http://graphql-ws");
  const request = new yoga.fetchAPI.Request(url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  await yoga.parseRequest(request, {} as never);
  return request;
}

/** connectionParams read as request headers: names without regard to case, top level first, then `headers`; a bare key is a bearer key. */
function connectionHeaders(params: Record<string, unknown>): HeaderSource {
  const lower = (o: unknown) => Object.fromEntries(Object.entries(o && typeof o === "object" ? o : {}).map(([k, v]) => [k.toLowerCase(), v]));
  const sources = [lower(params), lower(lower(params).headers)];
  return {
    get(name) {
      for (const source of sources) {
        const value = source[name];
        if (typeof value !== "string" || !value.trim()) continue;
        return name === "authorization" && !value.trim().includes(" ") ? `Bearer ${value.trim()}` : value;
      }
      return null;
    },
  };
}

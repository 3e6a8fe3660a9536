/**
 * Bearer | X-Api-Key | HTTP Basic (key as user name, REST's vendor convention) → principal.
 * Every API path needs a key; probes, /openapi.json and the GraphiQL page do not. While GraphiQL is
 * on (development), an operation that only introspects needs no key either: the schema is public
 * in the repository's schema.graphql anyway, and GraphiQL's first screen then loads its docs and
 * completion before the user has pasted a key; such a request's body is read only up to a few KiB
 * (KEYLESS_BODY_BYTES), any other request without a valid key is refused with its body unread. In
 * production (GraphiQL off) introspection is off.
 */
import { Kind, parse, type OperationDefinitionNode } from "graphql";
import type { Plugin } from "graphql-yoga";
import { isOutage, outageHeaders, outageProblem } from "../../db/outage.js";
import type { Principal } from "../../principal.js";
import type { Authenticator } from "../../domains/clients/clients.service.js";
import { errorResponse, type Refusal } from "../../rest/problem.js";
import { carryState, isGraphQLPath, stateOf, type HeaderSource } from "../request-state.js";
import { peerOf, socketOf } from "../peer.js";
import type { RateLimiter } from "./use-rate-limit.js";

const PUBLIC = new Set(["/healthz", "/readyz", "/metrics", "/openapi.json"]);

export function presentedKey(headers: HeaderSource): string | null {
  const auth = headers.get("authorization");
  if (auth) {
    const [scheme, value = ""] = auth.split(" ", 2);
    if (/^bearer$/i.test(scheme)) return value.trim() || null;
    if (/^basic$/i.test(scheme)) {
      const decoded = Buffer.from(value, "base64").toString("utf8");
      return decoded.split(":")[0] || null;
    }
    return null;
  }
  return headers.get("x-api-key")?.trim() || null;
}

export type AuthenticationOptions = {
  auth: Authenticator;
  /** counts refused keys per client address (the lanes count into the same budget) */
  limiter: RateLimiter;
  /** TRUST_PROXY: whose X-Forwarded-For names the client address (peer.ts) */
  trustProxy: number;
  /** introspection-only operations need no key (GraphiQL's schema fetch) @default false */
  publicIntrospection?: boolean;
};

/**
 * The caller's principal from its key, or why not: 401 for no key or a bad one, 503 when a key not
 * in the cache cannot be checked because the database is away (not 401, and not 500).
 */
export async function identify(auth: Authenticator, headers: HeaderSource): Promise<{ principal: Principal } | Refusal> {
  const key = presentedKey(headers);
  let principal;
  try {
    principal = key ? await auth.authenticate(key) : null;
  } catch (error) {
    if (!isOutage(error)) throw error;
    return { problem: outageProblem, headers: outageHeaders };
  }
  if (principal) return { principal };
  return {
    problem: { code: "UNAUTHENTICATED", detail: key ? "The API key is not valid or has been revoked." : "Send your API key as Authorization: Bearer <key>." },
    headers: { "www-authenticate": 'Bearer realm="onboarding-gateway", Basic realm="onboarding-gateway"' },
  };
}

export function useAuthentication({ auth, limiter, trustProxy, publicIntrospection = false }: AuthenticationOptions): Plugin {
  return {
    async onRequest({ request, url, serverContext, fetchAPI, setRequest, endResponse }) {
      if (PUBLIC.has(url.pathname)) return;
      const graphql = isGraphQLPath(url.pathname);
      const who = await identify(auth, request.headers);
      if ("principal" in who) {
        stateOf(request).principal = who.principal;
        return;
      }
      // also with GraphiQL's placeholder key in the headers pane: the schema is the same for everyone
      if (who.problem.code === "UNAUTHENTICATED" && graphql && publicIntrospection) {
        const body = request.method === "POST" ? await smallBody(request, KEYLESS_BODY_BYTES) : "";
        if (body !== null && isIntrospectionOnly(operationParams(request, url, body))) {
          // the body was read here: yoga's parser gets it as text
          if (request.method === "POST") setRequest(withBody(request, body, fetchAPI));
          return;
        }
      }
      const refusal = await limiter.refused(peerOf(request.headers, socketOf(serverContext), trustProxy).address, who);
      endResponse(errorResponse(request, refusal.problem, stateOf(request).requestId, refusal.headers));
    },
  };
}

/** The body a request without a key may send while GraphiQL is on: its schema fetch is a few KiB. */
const KEYLESS_BODY_BYTES = 64 * 1024;

/**
 * The body's text if it is at most `max` bytes, else null: a larger declared length is not read at
 * all, and a body without one is read no further than `max`. null too for a body that never arrives
 * whole (the caller hung up). The request's body is used up: `withBody` makes one that carries it.
 */
async function smallBody(request: Request, max: number): Promise<string | null> {
  const declared = request.headers.get("content-length");
  if (declared !== null && !(Number(declared) <= max)) return null;
  const reader = request.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (let part = await reader.read(); !part.done; part = await reader.read()) {
      size += part.value.byteLength;
      if (size > max) {
        reader.cancel().catch(() => {});
        return null;
      }
      chunks.push(part.value);
    }
  } catch {
    return null;
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** The request again, with `body` (read from it already) as its body and the same state. */
function withBody(request: Request, body: string, fetchAPI: { Request: typeof Request }) {
  const next = new fetchAPI.Request(request.url, { method: request.method, headers: request.headers, signal: request.signal, body });
  carryState(request, next);
  return next;
}

const INTROSPECTION_FIELDS = new Set(["__schema", "__type", "__typename"]);

type OperationParams = { query?: unknown; operationName?: unknown } | null;

/** What a GraphQL request asks to run: its URL's parameters (GET) or its JSON body (POST). */
function operationParams(request: Request, url: URL, body: string): OperationParams {
  if (request.method === "GET") return { query: url.searchParams.get("query"), operationName: url.searchParams.get("operationName") };
  if (request.method !== "POST") return null;
  try {
    return JSON.parse(body) as OperationParams;
  } catch {
    return null;
  }
}

/** The operation that would run selects nothing but __schema, __type and __typename at its root. */
function isIntrospectionOnly(params: OperationParams): boolean {
  if (typeof params?.query !== "string") return false;
  let operations: OperationDefinitionNode[];
  try {
    operations = parse(params.query).definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  } catch {
    return false;
  }
  const chosen = params.operationName ? operations.filter((o) => o.name?.value === params.operationName) : operations;
  return (
    chosen.length === 1
    && chosen[0].operation === "query"
    && chosen[0].selectionSet.selections.every((s) => s.kind === Kind.FIELD && INTROSPECTION_FIELDS.has(s.name.value))
  );
}

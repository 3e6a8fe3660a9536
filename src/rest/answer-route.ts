/**
 * THE answer of a REST call, whichever transport brought it: yoga's REST shim
 * (server/plugins/use-rest-shim.ts) or the lean GET lane (server/lanes.ts). Match the route table,
 * refuse what the route does not allow (404, 405, 410 for v1 when off, 403 before the input is read,
 * 406), turn path + query + body into variables, run the route's document with the transport's
 * executor, and shape the REST body or problem+json; a refusal waits for the object the path names
 * to be found (404 first). The transports only adapt requests and replies.
 */
import { createHash } from "node:crypto";
import type { ExecutionResult, GraphQLSchema } from "graphql";
import { withRequestContext, type Services } from "../context.js";
import { permits, refusalOf, type Principal } from "../principal.js";
import { DomainError } from "../lib/errors.js";
import type { HeaderSource } from "../server/request-state.js";
import { deprecationHeaders, type LegacyPolicy } from "./deprecation.js";
import { listEnvelope, pagingVariables, readPaging } from "./list-envelope.js";
import { problemFromGraphQL, problemReply } from "./problem.js";
import type { RestBody } from "./request-body.js";
import { readBodyInput, readQueryInput } from "./rest-input.js";
import type { CompiledRoute } from "./routes.js";
import { matchRoute, type Match } from "./routes.js";
import type { Reply, SharedCache } from "./shared-cache.js";

export type RouteAnswerOptions = {
  table: CompiledRoute[];
  schema: GraphQLSchema;
  maxBodyBytes: number;
  cache: SharedCache;
  legacy?: LegacyPolicy;
  /** what a route's lookup reads with (the caller's own request context) */
  services: Services;
};

/** What the answer needs of a request, read by the transport. */
export type RestCall = {
  method: string;
  pathname: string;
  search: string;
  searchParams: URLSearchParams;
  headers: HeaderSource;
  principal: Principal | undefined;
  requestId: string;
  /** the body, read only once the route and scope allow it */
  body(maxBytes: number): Promise<RestBody>;
  /** the matched route's template, for logs and metrics */
  onRoute(path: string): void;
  /** the route table's match, when the transport already made it (the lane, to decide it is its own) */
  match?: Match;
};

/** Runs a route's document with these variables for the call's principal: the transport's executor. */
export type Execute = (route: CompiledRoute, variables: Record<string, unknown>) => Promise<ExecutionResult>;

export type RouteAnswerer = ReturnType<typeof createRouteAnswerer>;

export function createRouteAnswerer({ table, schema, maxBodyBytes, cache, legacy, services }: RouteAnswerOptions) {
  const steps: Steps = { known: schemaFieldNames(schema), maxBodyBytes, services };
  return async (call: RestCall, execute: Execute): Promise<Reply> => {
    const { requestId, principal } = call;
    try {
      const match = call.match !== undefined ? call.match : matchRoute(table, call.method, call.pathname);
      if (!match) return problemReply({ code: "NOT_FOUND", detail: `No route ${call.pathname}; see /openapi.json.` }, requestId);
      if ("allow" in match)
        return problemReply({ code: "METHOD_NOT_ALLOWED", detail: `${call.method} is not allowed here; use ${match.allow.join(", ")}.` }, requestId, {
          allow: match.allow.join(", "),
        });
      const route = match.route;
      call.onRoute(route.path);
      if (route.successor && legacy && !legacy.enabled)
        return problemReply({ code: "V1_GONE", detail: `v1 is turned off; use ${route.successor} (see /openapi.json).` }, requestId);
      // the key's scope is settled before its input is read: a key that may not call a route learns nothing of its shape
      if (principal && !permits(principal, route.scope))
        return problemReply({ code: "FORBIDDEN", detail: refusalOf(route.scope, `${route.method} ${route.path}`) }, requestId);
      if (!acceptsJson(call.headers.get("accept")))
        return problemReply(
          { code: "NOT_ACCEPTABLE", detail: "This route answers application/json (errors: application/problem+json); send an Accept header that allows it." },
          requestId,
        );
      // a shared answer is served only to a key holding the route's scope, as execution would check
      const cacheKey = route.sharedCacheMs && principal && permits(principal, route.scope) ? `${call.pathname}${call.search}` : null;
      const answer = () => run(steps, route, match.params, call, execute);
      const reply = cacheKey ? (cache.get(cacheKey) ?? (await cache.fill(cacheKey, route.sharedCacheMs!, answer))) : await answer();
      return conditional(reply, call);
    } catch (error) {
      return domainProblem(error, requestId);
    }
  };
}

/** A domain's refusal as problem+json; anything else is not the caller's to read (the transport answers it). */
function domainProblem(error: unknown, requestId: string): Reply {
  if (!(error instanceof DomainError)) throw error;
  return problemReply({ code: error.code, detail: error.message, fields: error.fields, meta: error.meta }, requestId);
}

/** Every answer on a deprecated route names its successor, whichever step gave it (401, 429, a replay). */
export function legacyHeaders(table: CompiledRoute[], legacy: LegacyPolicy | undefined, method: string, pathname: string, clientId: string | null | undefined) {
  if (!legacy) return null;
  const route = table.find((r) => r.successor && r.method === method && r.pattern.test(pathname));
  if (!route?.successor) return null;
  legacy.count(`${route.method} ${route.path}`, clientId ?? "none");
  return deprecationHeaders(route.successor, legacy);
}

/** What answering a matched route needs besides the call. */
type Steps = { known: ReadonlySet<string>; maxBodyBytes: number; services: Services };

/**
 * The route's answer, the object its path names deciding first (Route.lookup): a refusal (of the body,
 * the query, or anything else the route judges) is given only once the object is found, so an unknown
 * or another client's id is 404 whatever the request holds. Only a refusal looks the object up: an
 * answer that succeeded has found it, and a valid request pays nothing for the rule.
 */
async function run(steps: Steps, route: CompiledRoute, params: Record<string, string>, call: RestCall, execute: Execute): Promise<Reply> {
  const reply = await answerInput(steps, route, params, call, execute).catch((error: unknown) => domainProblem(error, call.requestId));
  const { lookup } = route;
  if (typeof lookup === "function" && call.principal && reply.status >= 400 && reply.status < 500 && reply.status !== 404)
    await withRequestContext(steps.services, call.principal, call.requestId, (ctx) => lookup(ctx, params));
  return reply;
}

async function answerInput(
  { known, maxBodyBytes }: Steps,
  route: CompiledRoute,
  params: Record<string, string>,
  call: RestCall,
  execute: Execute,
): Promise<Reply> {
  const query = readQueryInput(route.input, call.searchParams, !!route.list);
  const paging = route.list ? readPaging(call.searchParams) : null;
  const raw = await call.body(Math.max(maxBodyBytes, route.maxBodyBytes ?? 0));
  const body = readBodyInput(route.input, raw.value, raw.form, call.headers);
  const variables = { ...route.variables({ params, query, body, headers: call.headers }), ...(paging ? pagingVariables(paging) : {}) };
  const result = await execute(route, variables);
  if (result.errors?.length)
    return problemReply(
      problemFromGraphQL(
        result.errors.map((e) => e.toJSON()),
        known,
      ),
      call.requestId,
    );
  const payload = (result.data as Record<string, unknown>)[route.field] as Record<string, unknown>;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (route.etagField && payload && route.etagField in payload) {
    headers.etag = String(payload[route.etagField]);
    // JSON leaves an undefined value out: neither `delete` (V8's slow dictionary mode) nor a copy of every other key
    payload[route.etagField] = undefined;
  }
  if (route.binary) return binaryReply(payload, route.binary);
  const out = paging ? listEnvelope(payload as never, paging, call) : payload;
  if (route.status === 204) return { status: 204, headers: {}, text: null };
  const text = JSON.stringify(out);
  if (route.cacheControl) {
    headers["cache-control"] = route.cacheControl;
    headers.etag = `W/"${createHash("sha1").update(text).digest("base64url")}"`;
  }
  return { status: route.status ?? 200, headers, text };
}

/** A file: the bytes with their own content type, as an attachment the browser must not sniff. */
function binaryReply(payload: Record<string, unknown>, names: NonNullable<CompiledRoute["binary"]>): Reply {
  const headers: Record<string, string> = { "content-type": String(payload[names.contentType]), "x-content-type-options": "nosniff" };
  const fileName = names.fileName ? String(payload[names.fileName] ?? "") : "";
  if (fileName)
    headers["content-disposition"] =
      `attachment; filename="${fileName.replace(/[^\x20-\x7e]|["\\]/g, "_")}"; filename*=UTF-8''${encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
  return { status: 200, headers, text: Buffer.from(String(payload[names.content]), "base64") };
}

/** A GET whose ETag the caller already holds (If-None-Match) is 304 without a body. */
function conditional(reply: Reply, call: RestCall): Reply {
  const { etag, "cache-control": cacheControl } = reply.headers;
  const held = call.headers.get("if-none-match")?.split(/\s*,\s*/);
  if (etag && reply.status === 200 && (call.method === "GET" || call.method === "HEAD") && (held?.includes(etag) || held?.includes("*")))
    return { status: 304, headers: { etag, ...(cacheControl ? { "cache-control": cacheControl } : {}) }, text: null };
  return reply;
}

/** No Accept, or one that allows JSON or problem+json (any q > 0). */
function acceptsJson(accept: string | null) {
  if (!accept) return true;
  return accept.split(",").some((part) => {
    const [range, ...params] = part
      .trim()
      .toLowerCase()
      .split(";")
      .map((p) => p.trim());
    const q = params.find((p) => p.startsWith("q="));
    if (q && !(Number(q.slice(2)) > 0)) return false;
    return ["*/*", "application/*", "application/json", "application/problem+json"].includes(range) || range.endsWith("+json");
  });
}

/** Every field and argument name of the schema: the words REST renames in domain messages. */
function schemaFieldNames(schema: GraphQLSchema) {
  const names = new Set<string>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!("getFields" in type) || type.name.startsWith("__")) continue;
    for (const field of Object.values(type.getFields())) {
      names.add(field.name);
      for (const arg of "args" in field ? field.args : []) names.add(arg.name);
    }
  }
  return names;
}

/**
 * The REST shim (SPEC 0): match the route table, turn path + query + body into variables, run the
 * route's pre-parsed GraphQL document through yoga's envelop (same context, auth scopes, masking as
 * /graphql), then answer with the REST body or problem+json. Modelled on yoga's sofa plugin.
 */
import { Response } from "../fetch-api.js";
import { createHash } from "node:crypto";
import type { ExecutionResult, GraphQLSchema } from "graphql";
import type { Plugin, YogaServerInstance } from "graphql-yoga";
import { DomainError } from "../../lib/errors.js";
import { listEnvelope, pagingVariables, readPaging } from "../../rest/list-envelope.js";
import { problemFromGraphQL, problemReply, problemResponse } from "../../rest/problem.js";
import type { Reply, SharedCache } from "../../rest/shared-cache.js";
import { readBody } from "../../rest/request-body.js";
import { deprecationHeaders, type LegacyPolicy } from "../../rest/deprecation.js";
import { readBodyInput, readQueryInput } from "../../rest/rest-input.js";
import type { CompiledRoute } from "../../rest/routes.js";
import { matchRoute } from "../../rest/routes.js";
import { isGraphQLPath, stateOf } from "../request-state.js";

type Enveloped = YogaServerInstance<Record<string, unknown>, Record<string, unknown>>["getEnveloped"];

export type RestShimOptions = { table: CompiledRoute[]; schema: GraphQLSchema; maxBodyBytes: number; cache: SharedCache; legacy?: LegacyPolicy };

export function useRestShim({ table, schema, maxBodyBytes, cache, legacy }: RestShimOptions): Plugin {
  let getEnveloped: Enveloped;
  const known = schemaFieldNames(schema);
  return {
    onYogaInit({ yoga }) { getEnveloped = yoga.getEnveloped as unknown as Enveloped; },
    async onRequest({ request, url, endResponse, serverContext }) {
      if (isGraphQLPath(url.pathname)) return;
      const state = stateOf(request);
      try {
        const match = matchRoute(table, request.method, url.pathname);
        if (!match) return endResponse(problemResponse({ code: "NOT_FOUND", detail: `No route ${url.pathname}; see /openapi.json.` }, state.requestId));
        if ("allow" in match)
          return endResponse(problemResponse({ code: "METHOD_NOT_ALLOWED", detail: `${request.method} is not allowed here; use ${match.allow.join(", ")}.` }, state.requestId, { allow: match.allow.join(", ") }));
        const route = match.route;
        state.route = route.path;
        if (route.successor && legacy && !legacy.enabled)
          return endResponse(problemResponse({ code: "V1_GONE", detail: `v1 is turned off; use ${route.successor} (see /openapi.json).` }, state.requestId));
        // the key's scope is settled before its input is read: a key that may not call a route learns nothing of its shape
        if (state.principal && !state.principal.scopes.has(route.scope))
          return endResponse(problemResponse({ code: "FORBIDDEN", detail: `The API key lacks the scope ${route.scope} needed for ${route.method} ${route.path}.` }, state.requestId));
        if (!acceptsJson(request.headers.get("accept")))
          return endResponse(problemResponse({ code: "NOT_ACCEPTABLE", detail: "This route answers application/json (errors: application/problem+json); send an Accept header that allows it." }, state.requestId));
        // a shared answer is served only to a key holding the route's scope, as execution would check
        const cacheKey = route.sharedCacheMs && state.principal?.scopes.has(route.scope) ? `${url.pathname}${url.search}` : null;
        let reply = cacheKey ? cache.get(cacheKey) : null;
        if (!reply) {
          reply = await run({ getEnveloped, known, maxBodyBytes }, route, match.params, request, url, serverContext as object);
          if (cacheKey && reply.status === 200) cache.set(cacheKey, reply, route.sharedCacheMs!);
        }
        endResponse(send(reply, request));
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        endResponse(problemResponse({ code: error.code, detail: error.message, fields: error.fields, meta: error.meta }, state.requestId));
      }
    },
    // every answer on a deprecated route names its successor, whichever plugin gave it (401, 429, a replay)
    onResponse({ request, response }) {
      if (!legacy) return;
      const pathname = new URL(request.url).pathname;
      const route = table.find((r) => r.successor && r.method === request.method && r.pattern.test(pathname));
      if (!route?.successor) return;
      legacy.count(`${route.method} ${route.path}`, stateOf(request).principal?.clientId ?? "none");
      for (const [name, value] of Object.entries(deprecationHeaders(route.successor, legacy))) response.headers.set(name, value);
    },
  };
}

type Runner = { getEnveloped: Enveloped; known: ReadonlySet<string>; maxBodyBytes: number };

async function run({ getEnveloped, known, maxBodyBytes }: Runner, route: CompiledRoute, params: Record<string, string>, request: Request, url: URL, serverContext: object): Promise<Reply> {
  const query = readQueryInput(route.input, url.searchParams, !!route.list);
  const paging = route.list ? readPaging(url.searchParams) : null;
  const raw = await readBody(request, Math.max(maxBodyBytes, route.maxBodyBytes ?? 0));
  const body = readBodyInput(route.input, raw.value, raw.form, request.headers);
  const variables = { ...route.variables({ params, query, body, headers: request.headers }), ...(paging ? pagingVariables(paging) : {}) };
  const initial = { request, params: { query: "", variables }, ...serverContext };
  const enveloped = getEnveloped(initial);
  const contextValue = await enveloped.contextFactory(initial);
  const result = (await enveloped.execute({ schema: enveloped.schema, document: route.operation, variableValues: variables, contextValue })) as ExecutionResult;
  if (result.errors?.length) return problemReply(problemFromGraphQL(result.errors.map((e) => e.toJSON()), known), stateOf(request).requestId);
  let payload = (result.data as Record<string, unknown>)[route.field] as Record<string, unknown>;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (route.etagField && payload && route.etagField in payload) {
    headers.etag = String(payload[route.etagField]);
    payload = { ...payload };
    delete payload[route.etagField];
  }
  if (route.binary) return binaryReply(payload, route.binary);
  const out = paging ? listEnvelope(payload as never, paging, url) : payload;
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
  if (fileName) headers["content-disposition"] = `attachment; filename="${fileName.replace(/[^\x20-\x7e]|["\\]/g, "_")}"; filename*=UTF-8''${encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
  return { status: 200, headers, text: Buffer.from(String(payload[names.content]), "base64") };
}

/** A reply as a Response; a GET whose ETag the caller already holds (If-None-Match) is 304 without a body. */
function send(reply: Reply, request: Request) {
  const { etag, "cache-control": cacheControl } = reply.headers;
  const held = request.headers.get("if-none-match")?.split(/\s*,\s*/);
  if (etag && reply.status === 200 && (request.method === "GET" || request.method === "HEAD") && (held?.includes(etag) || held?.includes("*")))
    return new Response(null, { status: 304, headers: { etag, ...(cacheControl ? { "cache-control": cacheControl } : {}) } });
  return new Response(reply.text, { status: reply.status, headers: reply.headers });
}

/** No Accept, or one that allows JSON or problem+json (any q > 0). */
export function acceptsJson(accept: string | null) {
  if (!accept) return true;
  return accept.split(",").some((part) => {
    const [range, ...params] = part.trim().toLowerCase().split(";").map((p) => p.trim());
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
      for (const arg of ("args" in field ? field.args : [])) names.add(arg.name);
    }
  }
  return names;
}

/**
 * The REST shim (SPEC 0): match the route table, turn path + query + body into variables, run the
 * route's pre-parsed GraphQL document through yoga's envelop (same context, auth scopes, masking as
 * /graphql), then answer with the REST body or problem+json. Modelled on yoga's sofa plugin.
 */
import { Response } from "../fetch-api.js";
import { createHash } from "node:crypto";
import type { ExecutionResult } from "graphql";
import type { Plugin, YogaServerInstance } from "graphql-yoga";
import { DomainError } from "../../lib/errors.js";
import { listEnvelope, pagingVariables, readPaging } from "../../rest/list-envelope.js";
import { problemFromGraphQL, problemReply, problemResponse } from "../../rest/problem.js";
import type { Reply, SharedCache } from "../../rest/shared-cache.js";
import { readBody } from "../../rest/request-body.js";
import type { CompiledRoute } from "../../rest/routes.js";
import { matchRoute } from "../../rest/routes.js";
import { isGraphQLPath, stateOf } from "../request-state.js";

type Enveloped = YogaServerInstance<Record<string, unknown>, Record<string, unknown>>["getEnveloped"];

export function useRestShim({ table, maxBodyBytes, cache }: { table: CompiledRoute[]; maxBodyBytes: number; cache: SharedCache }): Plugin {
  let getEnveloped: Enveloped;
  return {
    onYogaInit({ yoga }) { getEnveloped = yoga.getEnveloped as unknown as Enveloped; },
    async onRequest({ request, url, endResponse, serverContext }) {
      if (isGraphQLPath(url.pathname)) return;
      const state = stateOf(request);
      const match = matchRoute(table, request.method, url.pathname);
      if (!match) return endResponse(problemResponse({ code: "NOT_FOUND", detail: `No route ${url.pathname}; see /openapi.json.` }, state.requestId));
      if ("allow" in match)
        return endResponse(problemResponse({ code: "METHOD_NOT_ALLOWED", detail: `${request.method} is not allowed here; use ${match.allow.join(", ")}.` }, state.requestId, { allow: match.allow.join(", ") }));
      const route = match.route;
      state.route = route.path;
      // a shared answer is served only to a key holding the route's scope, as execution would check
      const cacheKey = route.sharedCacheMs && state.principal?.scopes.has(route.scope) ? `${url.pathname}${url.search}` : null;
      try {
        let reply = cacheKey ? cache.get(cacheKey) : null;
        if (!reply) {
          reply = await run(getEnveloped, route, match.params, request, url, serverContext as object, maxBodyBytes);
          if (cacheKey && reply.status === 200) cache.set(cacheKey, reply, route.sharedCacheMs!);
        }
        endResponse(send(reply, request));
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        endResponse(problemResponse({ code: error.code, detail: error.message, fields: error.fields, meta: error.meta }, state.requestId));
      }
    },
  };
}

async function run(getEnveloped: Enveloped, route: CompiledRoute, params: Record<string, string>, request: Request, url: URL, serverContext: object, maxBodyBytes: number): Promise<Reply> {
  const body = await readBody(request, Math.max(maxBodyBytes, route.maxBodyBytes ?? 0));
  const paging = route.list ? readPaging(url.searchParams) : null;
  const variables = { ...route.variables({ params, query: url.searchParams, body, headers: request.headers }), ...(paging ? pagingVariables(paging) : {}) };
  const initial = { request, params: { query: "", variables }, ...serverContext };
  const enveloped = getEnveloped(initial);
  const contextValue = await enveloped.contextFactory(initial);
  const result = (await enveloped.execute({ schema: enveloped.schema, document: route.operation, variableValues: variables, contextValue })) as ExecutionResult;
  if (result.errors?.length) return problemReply(problemFromGraphQL(result.errors.map((e) => e.toJSON())), stateOf(request).requestId);
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

/** A reply as a Response; a cacheable one the caller already holds (If-None-Match) is 304 without a body. */
function send(reply: Reply, request: Request) {
  const { etag, "cache-control": cacheControl } = reply.headers;
  if (cacheControl && etag && request.headers.get("if-none-match")?.split(/\s*,\s*/).includes(etag))
    return new Response(null, { status: 304, headers: { etag, "cache-control": cacheControl } });
  return new Response(reply.text, { status: reply.status, headers: reply.headers });
}

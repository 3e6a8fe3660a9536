/**
 * The REST shim on yoga: rest/answer-route.ts answers the call, running the route's
 * pre-parsed GraphQL document through yoga's envelop (same context, auth scopes, masking as
 * /graphql). Modelled on yoga's sofa plugin. The lean GET lane (server/lanes.ts) is the other adapter.
 */
import { Response } from "../fetch-api.js";
import type { ExecutionResult } from "graphql";
import type { Plugin, YogaServerInstance } from "graphql-yoga";
import { legacyHeaders, type RestCall, type RouteAnswerer } from "../../rest/answer-route.js";
import type { LegacyPolicy } from "../../rest/deprecation.js";
import { readBody } from "../../rest/request-body.js";
import type { CompiledRoute } from "../../rest/routes.js";
import { isGraphQLPath, stateOf } from "../request-state.js";

type Enveloped = YogaServerInstance<Record<string, unknown>, Record<string, unknown>>["getEnveloped"];

export type RestShimOptions = { answer: RouteAnswerer; table: CompiledRoute[]; legacy?: LegacyPolicy };

export function useRestShim({ answer, table, legacy }: RestShimOptions): Plugin {
  let getEnveloped: Enveloped;
  return {
    onYogaInit({ yoga }) {
      getEnveloped = yoga.getEnveloped as unknown as Enveloped;
    },
    async onRequest({ request, url, endResponse, serverContext }) {
      if (isGraphQLPath(url.pathname)) return;
      const state = stateOf(request);
      const call: RestCall = {
        method: request.method,
        pathname: url.pathname,
        search: url.search,
        searchParams: url.searchParams,
        headers: request.headers,
        principal: state.principal,
        requestId: state.requestId,
        body: (maxBytes) => readBody(request, maxBytes),
        onRoute: (path) => {
          state.route = path;
        },
      };
      const reply = await answer(call, async (route, variables) => {
        const initial = { request, params: { query: "", variables }, ...(serverContext as object) };
        const enveloped = getEnveloped(initial);
        const contextValue = await enveloped.contextFactory(initial);
        return (await enveloped.execute({ schema: enveloped.schema, document: route.operation, variableValues: variables, contextValue })) as ExecutionResult;
      });
      // a copy: whatwg-node's Response writes its headers (content-length, then x-request-id and the
      // rest of onResponse) into the object it is given, and a shared lookup's reply is served to many
      endResponse(new Response(reply.text, { status: reply.status, headers: { ...reply.headers } }));
    },
    onResponse({ request, response }) {
      const headers = legacyHeaders(table, legacy, request.method, new URL(request.url).pathname, stateOf(request).principal?.clientId);
      if (headers) for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
    },
  };
}

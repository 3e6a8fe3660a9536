/** createYoga with the plugins in pipeline order; each comment says why a plugin sits where it does. */
import { EnvelopArmorPlugin } from "@escape.tech/graphql-armor";
import { useDisableIntrospection } from "@graphql-yoga/plugin-disable-introspection";
import { renderGraphiQL } from "@graphql-yoga/render-graphiql";
import type { GraphQLSchema } from "graphql";
import { createYoga, type Plugin } from "graphql-yoga";
import type { Redis } from "ioredis";
import type { Config } from "../config.js";
import type { RequestContext, Services } from "../context.js";
import { createMaskError } from "../graphql/mask-error.js";
import type { Metrics } from "../lib/metrics.js";
import { errorResponse } from "../rest/problem.js";
import type { CompiledRoute } from "../rest/routes.js";
import type { SharedCache } from "../rest/shared-cache.js";
import { Response } from "./fetch-api.js";
import { useAuthentication } from "./plugins/use-authentication.js";
import { useIdempotency } from "./plugins/use-idempotency.js";
import { useInputGuard } from "./plugins/use-input-guard.js";
import { useProbes, type ReadinessCheck } from "./plugins/use-probes.js";
import { useRateLimit } from "./plugins/use-rate-limit.js";
import { useRequestId } from "./plugins/use-request-id.js";
import { useRestShim } from "./plugins/use-rest-shim.js";
import { useRetryAfter } from "./plugins/use-retry-after.js";
import { stateOf } from "./request-state.js";

export type YogaDeps = {
  config: Config; schema: GraphQLSchema; services: Services; metrics: Metrics; readiness: ReadinessCheck[];
  table: CompiledRoute[]; openApi: unknown; redis: Redis | null; sharedCache: SharedCache;
};

export function buildYoga({ config, schema, services, metrics, readiness, table, openApi, redis, sharedCache }: YogaDeps) {
  const plugins: Plugin[] = [
    // first: every later log line, error and response carries the request id
    useRequestId({ logger: services.logger, metrics }),
    // a 503 UNAVAILABLE from any later layer leaves with Retry-After
    useRetryAfter(),
    // probes and the API description answer before authentication: load balancers hold no key
    useProbes({ checks: readiness, metrics }),
    usePublicDocument("/openapi.json", openApi),
    // a body too large is refused before anything reads it
    useBodyLimit(config.maxBodyBytes),
    useAuthentication({ auth: services.auth }),
    // counted per key, so after authentication; before idempotency so a replay storm is limited too
    useRateLimit({ limit: config.rateLimitPerMinute, redis }),
    // after authentication (keys are per client), before execution (a replay must not run again)
    useIdempotency({ db: services.db }),
    // last of the request phase: REST paths are executed here and never reach /graphql's handler
    useRestShim({ table, maxBodyBytes: config.maxBodyBytes, cache: sharedCache }),
    // armour runs in the validation phase: one deep, wide or alias-heavy query cannot exhaust the server
    EnvelopArmorPlugin({
      maxDepth: { n: 12 }, maxAliases: { n: 15 }, maxDirectives: { n: 20 }, maxTokens: { n: 3000 },
      costLimit: { maxCost: 5000 }, blockFieldSuggestion: { enabled: !config.graphiql },
    }) as Plugin,
    ...(config.graphiql ? [] : [useDisableIntrospection() as Plugin]),
    // before any resolver: inputs PostgreSQL cannot store are the caller's error, not a 500
    useInputGuard(),
    // after yoga's own validation plugin: its GRAPHQL_* codes become the contract's VALIDATION_FAILED
    useContractErrorCodes(),
  ];
  return createYoga<Record<string, unknown>, RequestContext>({
    schema,
    graphqlEndpoint: "/graphql",
    graphiql: config.graphiql ? {
      title: "Onboarding Gateway", subscriptionsProtocol: "WS",
      // a placeholder to replace, never a real key: the page is public
      headers: JSON.stringify({ Authorization: "Bearer <your API key, e.g. from .data/bootstrap.json>" }, null, 2),
      defaultQuery: "# Put your API key in the Headers tab below, then run:\n{\n  users(first: 5) {\n    totalCount\n    edges { node { id email status requirements { currentlyDue } } }\n  }\n}\n",
    } : false,
    // GraphiQL's assets served from the package, not a CDN: it works on a machine with no internet
    renderGraphiQL,
    landingPage: false,
    // browser apps may call from any origin with their key in a header; never with ambient
    // credentials (cookies, a browser-remembered Basic login), so a third-party page cannot ride them
    cors: { credentials: false },
    logging: false,
    maskedErrors: { maskError: createMaskError(services.logger) },
    // HTTP requests carry their principal in the request state; graphql-ws passes it in directly
    context: (initial: { request?: Request; principal?: RequestContext["principal"]; requestId?: string }): RequestContext => {
      const state = initial.principal ? { principal: initial.principal, requestId: initial.requestId ?? "" } : stateOf(initial.request!);
      return { ...services, principal: state.principal!, requestId: state.requestId };
    },
    plugins,
  });
}

function usePublicDocument(path: string, document: unknown): Plugin {
  const text = JSON.stringify(document);
  return { onRequest({ url, endResponse }) { if (url.pathname === path) endResponse(new Response(text, { headers: { "content-type": "application/json" } })); } };
}

function useBodyLimit(maxBytes: number): Plugin {
  return {
    onRequest({ request, endResponse }) {
      const length = Number(request.headers.get("content-length") ?? 0);
      if (length > maxBytes)
        endResponse(errorResponse(request, { code: "PAYLOAD_TOO_LARGE", detail: `The body is larger than ${maxBytes} bytes.` }, stateOf(request).requestId, { connection: "close" }));
    },
  };
}

/** A query that does not parse or validate is the caller's input error: SPEC 11 calls it VALIDATION_FAILED. */
function useContractErrorCodes(): Plugin {
  const recode = (error: { extensions?: Record<string, unknown> }) => {
    const ext = error.extensions as Record<string, unknown> | undefined;
    if (ext && (ext.code === "GRAPHQL_VALIDATION_FAILED" || ext.code === "GRAPHQL_PARSE_FAILED" || !ext.code)) ext.code = "VALIDATION_FAILED";
  };
  return {
    onParse: () => ({ result }) => { if (result instanceof Error) recode(result as never); },
    onValidate: () => ({ valid, result }) => { if (!valid) result.forEach((e) => recode(e as never)); },
  };
}

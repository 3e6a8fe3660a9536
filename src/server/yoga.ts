/** createYoga with the plugins in pipeline order; each comment says why a plugin sits where it does. */
import { EnvelopArmorPlugin } from "@escape.tech/graphql-armor";
import { useDisableIntrospection } from "@graphql-yoga/plugin-disable-introspection";
import type { DocumentNode, GraphQLSchema } from "graphql";
import { createYoga, type Plugin } from "graphql-yoga";
import type { Config } from "../config.js";
import { createWeighedCache, parsedBytes } from "../lib/weighed-cache.js";
import { requestContext, type RequestContext, type Services } from "../context.js";
import type { Metrics } from "../lib/metrics.js";
import type { CompiledRoute } from "../rest/routes.js";
import type { RouteAnswerer } from "../rest/answer-route.js";
import type { LegacyPolicy } from "../rest/deprecation.js";
import { useConsole } from "./console.js";
import { useApiDocs } from "./plugins/use-api-docs.js";
import { useAuthentication } from "./plugins/use-authentication.js";
import { bodyLimits, useBodyLimit } from "./plugins/use-body-limit.js";
import { useContractErrorCodes } from "./plugins/use-contract-error-codes.js";
import { useGraphiQLPage } from "./plugins/use-graphiql-page.js";
import { useGraphQLContentType } from "./plugins/use-graphql-content-type.js";
import { useIdempotency } from "./plugins/use-idempotency.js";
import { useInputGuard } from "./plugins/use-input-guard.js";
import { useLiveOperations } from "./plugins/use-live-operations.js";
import type { LiveOperations } from "./live-operations.js";
import { useProbes, type ReadinessCheck } from "./plugins/use-probes.js";
import { apiIndex, usePublicDocument } from "./plugins/use-public-document.js";
import { useRateLimit, type RateLimiter } from "./plugins/use-rate-limit.js";
import { useRequestCachesReleased } from "./plugins/use-request-caches-released.js";
import { useRequestId } from "./plugins/use-request-id.js";
import { useRestShim } from "./plugins/use-rest-shim.js";
import { useSecurityHeaders } from "./plugins/use-security-headers.js";
import { createUploadSlots, useUploadSlots } from "./plugins/use-upload-slots.js";
import type { ValidatedDocuments } from "./plugins/use-validated-documents.js";
import { corsPolicy } from "./cors.js";
import { stateOf } from "./request-state.js";
import { withErrorBoundary } from "./unexpected-error.js";

export type YogaDeps = {
  config: Config;
  schema: GraphQLSchema;
  services: Services;
  metrics: Metrics;
  readiness: ReadinessCheck[];
  table: CompiledRoute[];
  openApi: unknown;
  /** every event type with its envelope's JSON Schema, served at /docs/events */
  eventCatalogue: unknown;
  /** the REST answer and v1 policy, shared with the GET lane */
  answerRoute: RouteAnswerer;
  legacy: LegacyPolicy;
  /** shared with the lanes (src/server/lanes.ts): one budget per key whichever way a request comes */
  rateLimiter: RateLimiter;
  /** the one error mask of GraphQL results (yoga's and the lanes') */
  maskError: (error: unknown) => Error;
  /** the query texts yoga validated, for the /graphql lane */
  validated: ValidatedDocuments;
  /** subscription caps and open streams' key re-checks, shared with graphql-ws (src/server/websocket.ts) */
  live: LiveOperations;
};

/**
 * yoga's parse cache, bounded in bytes: its own keeps 1024 texts whatever their length, and a text
 * as long as the body limit, or dense with tokens, then holds megabytes. The validation cache is
 * keyed by the parsed document, so it lets go of what this one lets go of.
 */
function parserAndValidationCache(maxBytes: number) {
  return {
    documentCache: createWeighedCache<DocumentNode>({ maxBytes, weigh: parsedBytes }),
    errorCache: createWeighedCache<unknown>({ maxBytes: maxBytes / 4, weigh: parsedBytes }),
    validationCache: true,
  };
}

export function buildYoga({
  config,
  schema,
  services,
  metrics,
  readiness,
  table,
  openApi,
  eventCatalogue,
  answerRoute,
  legacy,
  rateLimiter,
  maskError,
  validated,
  live,
}: YogaDeps) {
  const plugins: Plugin[] = [
    // first: every later log line, error and response carries the request id
    useRequestId({ logger: services.logger, metrics }),
    // every answer, the early ones too (probes, preflights, refusals), carries them
    useSecurityHeaders(config.trustProxy),
    // before any plugin can read a body: each reader after it gets at most the limit
    useBodyLimit(config.maxBodyBytes, bodyLimits(config.maxBodyBytes, table)),
    // probes and the API description answer before authentication: load balancers hold no key
    useProbes({ checks: readiness, metrics, scrape: { auth: services.auth, open: config.metricsPublic, ownPort: config.metricsPort !== undefined } }),
    usePublicDocument("/openapi.json", openApi),
    usePublicDocument("/", apiIndex(config)),
    usePublicDocument("/docs/events", eventCatalogue),
    useApiDocs(),
    useConsole(),
    ...(config.graphiql ? [useGraphiQLPage("/graphql")] : []),
    useAuthentication({ auth: services.auth, limiter: rateLimiter, trustProxy: config.trustProxy, publicIntrospection: config.graphiql }),
    // counted per key, so after authentication; before idempotency so a replay storm is limited too
    useRateLimit(rateLimiter),
    // a body /graphql does not read, or a cross-site form, is refused before idempotency claims its key
    useGraphQLContentType(),
    // per key, so after authentication; before idempotency, the shim and yoga's parser, which read the body
    useUploadSlots(createUploadSlots({ perKey: config.maxConcurrentUploadsPerKey, total: config.maxConcurrentUploads }), table, config.maxBodyBytes),
    // after authentication (keys are per client), before execution (a replay must not run again)
    useIdempotency({ db: services.db, cipher: services.cipher }),
    // last of the request phase: REST paths are executed here and never reach /graphql's handler
    useRestShim({ answer: answerRoute, table, legacy }),
    // armour runs in the validation phase: one deep, wide or alias-heavy query cannot exhaust the server
    EnvelopArmorPlugin({
      maxDepth: { n: 12 },
      maxAliases: { n: 15 },
      maxDirectives: { n: 20 },
      maxTokens: { n: 3000 },
      // the cost is priced at execution, with the variables' page sizes (graphql/cost.ts, useInputGuard)
      costLimit: { enabled: false },
      blockFieldSuggestion: { enabled: !config.graphiql },
    }) as Plugin,
    ...(config.graphiql ? [] : [useDisableIntrospection() as Plugin]),
    // before the input guard: a subscription it stops still gives back the slot taken here
    useLiveOperations(live),
    // before any resolver: inputs PostgreSQL cannot store are the caller's error, not a 500
    useInputGuard(),
    // after yoga's own validation plugin: its GRAPHQL_* codes become the contract's VALIDATION_FAILED
    useContractErrorCodes(),
    // last: a query document that reaches execution has passed every validation above
    validated.plugin(),
    useRequestCachesReleased(),
  ];
  return createYoga<Record<string, unknown>, RequestContext>({
    schema,
    graphqlEndpoint: "/graphql",
    // the page is served by useGraphiQLPage (compressed); introspection follows config.graphiql
    graphiql: false,
    landingPage: false,
    // browser apps call from the origins CORS_ORIGINS names, with their key in a header (cors.ts)
    cors: corsPolicy(config.corsOrigins),
    logging: false,
    maskedErrors: { maskError },
    parserAndValidationCache: parserAndValidationCache(config.queryCacheBytes),
    // HTTP requests carry their principal in the request state; graphql-ws passes it in directly
    context: (initial: { request?: Request; principal?: RequestContext["principal"]; requestId?: string }): RequestContext => {
      const state = initial.principal ? { principal: initial.principal, requestId: initial.requestId ?? "" } : stateOf(initial.request!);
      return requestContext(services, state.principal!, state.requestId);
    },
    // every plugin behind one boundary: whatever one of them throws is answered without a stack
    plugins: plugins.map((plugin) => withErrorBoundary(plugin, services.logger)),
  });
}

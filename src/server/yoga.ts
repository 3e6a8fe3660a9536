/** createYoga with the plugins in pipeline order; each comment says why a plugin sits where it does. */
import { EnvelopArmorPlugin } from "@escape.tech/graphql-armor";
import { useDisableIntrospection } from "@graphql-yoga/plugin-disable-introspection";
import { createHash } from "node:crypto";
import { promisify } from "node:util";
import zlib from "node:zlib";
import type { GraphQLSchema } from "graphql";
import { createYoga, isAsyncIterable, type Plugin } from "graphql-yoga";
import type { Config } from "../config.js";
import { releaseRequestCaches, requestContext, type RequestContext, type Services } from "../context.js";
import type { Metrics } from "../lib/metrics.js";
import { type CompiledRoute } from "../rest/routes.js";
import type { RouteAnswerer } from "../rest/answer-route.js";
import type { LegacyPolicy } from "../rest/deprecation.js";
import { Response } from "./fetch-api.js";
import { useAuthentication } from "./plugins/use-authentication.js";
import { useBodyLimit } from "./plugins/use-body-limit.js";
import { useGraphQLContentType } from "./plugins/use-graphql-content-type.js";
import { useIdempotency } from "./plugins/use-idempotency.js";
import { useInputGuard } from "./plugins/use-input-guard.js";
import { useLiveOperations } from "./plugins/use-live-operations.js";
import type { LiveOperations } from "./live-operations.js";
import { useProbes, type ReadinessCheck } from "./plugins/use-probes.js";
import { useRateLimit, type RateLimiter } from "./plugins/use-rate-limit.js";
import { useRequestId } from "./plugins/use-request-id.js";
import { useRestShim } from "./plugins/use-rest-shim.js";
import { useSecurityHeaders } from "./plugins/use-security-headers.js";
import { createUploadSlots, useUploadSlots } from "./plugins/use-upload-slots.js";
import type { ValidatedDocuments } from "./plugins/use-validated-documents.js";
import { corsPolicy } from "./cors.js";
import { stateOf } from "./request-state.js";
import { pagePolicy } from "./security-headers.js";
import { withErrorBoundary } from "./unexpected-error.js";
import { API_VERSION } from "../rest/openapi.js";

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);
import { useApiDocs } from "./plugins/use-api-docs.js";

export type YogaDeps = {
  config: Config; schema: GraphQLSchema; services: Services; metrics: Metrics; readiness: ReadinessCheck[];
  table: CompiledRoute[]; openApi: unknown;
  /** the REST answer and v1 policy, shared with the GET lane */
  answerRoute: RouteAnswerer; legacy: LegacyPolicy;
  /** shared with the lanes (src/server/lanes.ts): one budget per key whichever way a request comes */
  rateLimiter: RateLimiter;
  /** the one error mask of GraphQL results (yoga's and the lanes') */
  maskError: (error: unknown) => Error;
  /** the query texts yoga validated, for the /graphql lane */
  validated: ValidatedDocuments;
  /** subscription caps and open streams' key re-checks, shared with graphql-ws (src/server/websocket.ts) */
  live: LiveOperations;
};

export function buildYoga({ config, schema, services, metrics, readiness, table, openApi, answerRoute, legacy, rateLimiter, maskError, validated, live }: YogaDeps) {
  const plugins: Plugin[] = [
    // first: every later log line, error and response carries the request id
    useRequestId({ logger: services.logger, metrics }),
    // every answer, the early ones too (probes, preflights, refusals), carries them
    useSecurityHeaders(config.trustProxy),
    // before any plugin can read a body: each reader after it gets at most the limit
    useBodyLimit(config.maxBodyBytes, table),
    // probes and the API description answer before authentication: load balancers hold no key
    useProbes({ checks: readiness, metrics, scrape: { auth: services.auth, open: config.metricsPublic, ownPort: config.metricsPort !== undefined } }),
    usePublicDocument("/openapi.json", openApi),
    usePublicDocument("/", apiIndex(config)),
    useApiDocs(),
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
      maxDepth: { n: 12 }, maxAliases: { n: 15 }, maxDirectives: { n: 20 }, maxTokens: { n: 3000 },
      // the cost is priced at execution, with the variables' page sizes (graphql/cost.ts, useInputGuard)
      costLimit: { enabled: false }, blockFieldSuggestion: { enabled: !config.graphiql },
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
    // HTTP requests carry their principal in the request state; graphql-ws passes it in directly
    context: (initial: { request?: Request; principal?: RequestContext["principal"]; requestId?: string }): RequestContext => {
      const state = initial.principal ? { principal: initial.principal, requestId: initial.requestId ?? "" } : stateOf(initial.request!);
      return requestContext(services, state.principal!, state.requestId);
    },
    // every plugin behind one boundary: whatever one of them throws is answered without a stack
    plugins: plugins.map((plugin) => withErrorBoundary(plugin, services.logger)),
  });
}

/**
 * GraphiQL as yoga renders it from the installed package (no CDN: it works offline), rendered and
 * compressed once per encoding on first use (9 MB of HTML → 2.1 MB brotli, 2.4 MB gzip; ~0.7 s of
 * CPU each, off the event loop) and kept: the page never changes while the process runs. Not at
 * start: most starts (tests, production with GraphiQL off) never serve it.
 */
function useGraphiQLPage(endpoint: string): Plugin {
  const options = {
    title: "Onboarding Gateway", endpoint,
    // SSE, not graphql-ws: every operation, subscriptions too, is an HTTP request that carries the
    // headers pane (graphql-ws would send only a fixed connection_init), and a refused key comes back
    // as a readable 401 error instead of a socket that closes and silently reconnects
    subscriptionsProtocol: "SSE",
    // a placeholder to replace, never a real key: the page is public
    headers: JSON.stringify({ Authorization: "Bearer <your API key, e.g. from .data/bootstrap.json>" }, null, 2),
    defaultQuery: "# Put your API key in the Headers tab below, then run:\n{\n  users(first: 5) {\n    totalCount\n    edges { node { id email status requirements { currentlyDue } } }\n  }\n}\n",
  } as const;
  // the page's bundle (9 MB of script, ~40 MB of RSS once loaded) is imported on the first visit, not at start
  let html: Promise<Uint8Array<ArrayBuffer>> | null = null;
  let policy = "";
  const page = () => (html ??= import("@graphql-yoga/render-graphiql").then(({ renderGraphiQL }) => {
    const text = renderGraphiQL(options);
    policy = graphiqlPolicy(text);
    return new Uint8Array(Buffer.from(text));
  }));
  const encoded = new Map<string, Promise<Uint8Array<ArrayBuffer>>>();
  const encode = (encoding: "br" | "gzip") => {
    let body = encoded.get(encoding);
    if (!body) {
      const compressed = page().then((source) => encoding === "br"
        ? brotli(source, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: source.length } })
        : gzip(source, { level: 6 }));
      body = compressed.then((b) => new Uint8Array(b));
      encoded.set(encoding, body);
    }
    return body;
  };
  return {
    async onRequest({ request, url, endResponse }) {
      if (url.pathname !== endpoint || request.method !== "GET" || !(request.headers.get("accept") ?? "").includes("text/html")) return;
      const encoding = preferredEncoding(request.headers.get("accept-encoding"));
      const source = await page();
      const headers: Record<string, string> = { "content-type": "text/html; charset=utf-8", vary: "accept-encoding", "cache-control": "no-cache", "content-security-policy": policy };
      if (!encoding) return endResponse(new Response(source, { headers }));
      endResponse(new Response(await encode(encoding), { headers: { ...headers, "content-encoding": encoding } }));
    },
  };
}

/**
 * GraphiQL's page runs its two inline scripts (allowed by their hashes, nothing else inline), Monaco's
 * editor workers from blob: URLs, inline styles and data: fonts; it talks to this origin only.
 */
function graphiqlPolicy(html: string) {
  const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => `'sha256-${createHash("sha256").update(m[1]).digest("base64")}'`);
  return pagePolicy(`script-src 'self' ${scripts.join(" ")}; worker-src 'self' blob:; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'`);
}

/** br before gzip when both are accepted; `q=0` refuses. */
function preferredEncoding(header: string | null): "br" | "gzip" | null {
  const accepted = new Set((header ?? "").split(",").map((part) => part.trim().toLowerCase())
    .filter((part) => !/;\s*q=0(\.0*)?$/.test(part)).map((part) => part.split(";")[0].trim()));
  return accepted.has("br") ? "br" : accepted.has("gzip") || accepted.has("*") ? "gzip" : null;
}

function usePublicDocument(path: string, document: unknown): Plugin {
  const text = JSON.stringify(document);
  return {
    onRequest({ request, url, endResponse }) {
      if (url.pathname === path && (request.method === "GET" || request.method === "HEAD")) endResponse(new Response(text, { headers: { "content-type": "application/json" } }));
    },
  };
}

/** `GET /`: where a newcomer starts, answered without a key. */
const apiIndex = (config: Config) => ({
  name: "Onboarding Gateway", version: API_VERSION,
  links: { graphql: "/graphql", openapi: "/openapi.json", docs: "/docs", health: "/healthz", ...(config.graphiql ? { graphiql: "/graphql" } : {}) },
});

/**
 * A query's or mutation's Pothos caches let go of once its result is made, a streamed result's at
 * its end, as the lanes do (context.ts `withRequestContext`). Subscriptions run through `subscribe`,
 * not here: their context lives as long as they do.
 */
export function useRequestCachesReleased(): Plugin {
  return {
    onExecute: () => ({
      onExecuteDone: ({ args, result }) => {
        if (!isAsyncIterable(result)) return releaseRequestCaches(args.contextValue as object);
        return { onEnd: () => releaseRequestCaches(args.contextValue as object) };
      },
    }),
  };
}

/** A query that does not parse or validate is the caller's input error: docs/api.md calls it VALIDATION_FAILED. */
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

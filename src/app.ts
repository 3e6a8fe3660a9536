/**
 * buildApp(config) wires everything once: database (migrated), services, schema, yoga, HTTP and
 * WebSocket servers. `fetch` serves requests without a socket (tests); start/stop own the sockets.
 */
import { randomBytes } from "node:crypto";
import { chmod, readFile, writeFile } from "node:fs/promises";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import path from "node:path";
import { validate } from "graphql";
import type { Config } from "./config.js";
import { decodeKey, V1_DEPRECATED_AT } from "./config.js";
import type { Services } from "./context.js";
import { createDb, isMemoryDir, type Database } from "./db/client.js";
import { bootstrapDemoClient, createAuthenticator, forgetOnKeyChanges } from "./domains/clients/clients.service.js";
import { schema } from "./graphql/schema.js";
import { createCipher } from "./lib/crypto.js";
import { createLogger } from "./lib/logger.js";
import { createMetrics } from "./lib/metrics.js";
import { buildOpenApi } from "./rest/openapi.js";
import { eventCatalogue } from "./domains/events/events.catalogue.js";
import { compileRoutes, routes } from "./rest/routes.js";
import { createSharedCache } from "./rest/shared-cache.js";
import { createRouteAnswerer } from "./rest/answer-route.js";
import { serveControlSocket } from "./cli/control-socket.js";
import { attachWebSocket } from "./server/websocket.js";
import { createLiveOperations } from "./server/live-operations.js";
import { buildYoga } from "./server/yoga.js";
import { createHttpServer } from "./server/http-server.js";
import { bodyLimits } from "./server/plugins/use-body-limit.js";
import { createLanes } from "./server/lanes.js";
import { createValidatedDocuments } from "./server/plugins/use-validated-documents.js";
import { createCompiledExecutor } from "./graphql/compiled.js";
import { createMaskError } from "./graphql/mask-error.js";
import { createRateLimiter } from "./server/plugins/use-rate-limit.js";
import { defineIdempotencyPurge } from "./server/plugins/use-idempotency.js";
import { routeLabels } from "./server/plugins/use-request-id.js";
import { listenForScrapes } from "./server/plugins/use-probes.js";
import { createRedis } from "./lib/redis.js";
import { redisPrefix } from "./db/deployment.js";
import { createEventBus } from "./platform/bus.js";
import { loadShippedReferenceData } from "./domains/remittance/remittance.import.js";
import { createDelivery } from "./domains/otp/otp.sender.js";
import { loadShippedRuleSets } from "./domains/compliance/compliance.import.js";
import { createRuleBook } from "./domains/compliance/compliance.service.js";
import { createPayoutCatalogue } from "./domains/remittance/remittance.catalogue.js";
import { createDocumentStore } from "./domains/documents/documents.storage.js";
import { MAX_FILE_BYTES_PER_REQUEST } from "./domains/documents/documents.rules.js";
import { createBytePool } from "./graphql/work-budget.js";
import { defineEventRelay, outboxLag } from "./platform/outbox.js";
import { createJobs } from "./platform/jobs.js";
import { createWrites } from "./writes.js";
import { defineCardActivation } from "./domains/wallets/wallets.service.js";
import { defineWebhookDelivery } from "./domains/webhooks/webhooks.dispatch.js";
import { defineCheckRunner } from "./flows/run-checks.js";
import { builtInProviders, watchlistSource } from "./domains/checks/checks.providers.js";
import { definePeriodicChecks } from "./domains/checks/checks.periodic.js";
import { defineWatchlistRescreen, newestImportTimes } from "./domains/checks/checks.rescreen.js";

export type App = Awaited<ReturnType<typeof buildApp>>;

/** `work: false` builds the app without working jobs (JOBS=0: a web-only instance beside `cli worker`). */
export async function buildApp(config: Config, { work = config.jobs }: { work?: boolean } = {}) {
  const logger = createLogger(config.logLevel);
  const database = await createDb(config);
  const applied = await database.migrate();
  if (applied.length) logger.info({ applied }, "migrations applied");
  if ((await loadShippedReferenceData(database.prisma)).loaded) logger.info("reference data loaded (ISO countries and currencies, data/remittance)");
  const ruleSets = await loadShippedRuleSets(database.prisma);
  if (ruleSets.loaded.length) logger.info({ loaded: ruleSets.loaded }, "compliance rule sets loaded (data/compliance)");
  if (ruleSets.stale.length)
    logger.warn({ stale: ruleSets.stale }, "data/compliance files differ from the stored version of the same number: bump their version");
  const redis = config.redisUrl ? createRedis(config.redisUrl, logger, await redisPrefix(config.redisPrefix, database.prisma)) : null;
  const events = createEventBus(redis?.pubsub);
  const table = compileRoutes(schema, routes);
  for (const route of table) {
    const errors = validate(schema, route.operation);
    if (errors.length) throw new Error(`REST route ${route.method} ${route.path} does not match the schema: ${errors[0].message}`);
  }
  const metrics = createMetrics({ routeOf: routeLabels(table) });
  const jobs = createJobs(database, logger, { maintenanceIntervalSeconds: config.jobsMaintenanceSeconds, cronCheckSeconds: config.cronCheckSeconds });
  const { outbox, transact } = createWrites(database.prisma, { bus: events, jobs, logger });
  const services: Services = {
    db: database.prisma,
    cipher: createCipher(await encryptionKey(config, database)),
    logger,
    auth: createAuthenticator(database.prisma, config.adminApiKey),
    events,
    delivery: createDelivery(config, database.prisma),
    now: () => new Date(),
    compliance: createRuleBook(database.prisma, events),
    payouts: createPayoutCatalogue(database.prisma, events),
    documentStore: await createDocumentStore(config, { db: database.prisma, transact }, logger),
    webhooks: {
      allowPrivate: config.webhookAllowPrivate,
      countOutcome: metrics.webhookDelivery,
      retrySchedule: config.webhookRetrySchedule,
      timeoutMs: config.webhookTimeoutSeconds * 1000,
    },
    jobs,
    transact,
    workLimits: { rows: config.maxRowsPerRequest, fileBytes: MAX_FILE_BYTES_PER_REQUEST, fileBytesInFlight: createBytePool(config.maxFileBytesInFlight) },
  };
  await defineEventRelay(jobs, outbox);
  await defineCardActivation(jobs, services);
  await defineWebhookDelivery(jobs, services, { expireInSeconds: config.webhookJobExpireSeconds });
  await defineCheckRunner({
    db: database.prisma,
    logger,
    jobs,
    transact,
    expireInSeconds: config.checkJobExpireSeconds,
    providers: builtInProviders({ ...services, dataDir: config.dataDir }),
  });
  await definePeriodicChecks({ db: database.prisma, logger, jobs, transact }, config.periodicChecksCron);
  await defineWatchlistRescreen({ db: database.prisma, logger, jobs, transact, watchlist: watchlistSource(config.dataDir) });
  await defineIdempotencyPurge(jobs, database.prisma, logger);
  await jobs.start({ work });
  // what a crash left unrelayed, or a process without the relay wrote, goes out now, not at the next write
  // not awaited: a long backlog must not hold the start; stop() and tests wait on it
  const startupRelay = work
    ? outbox.relayPending().then(
        () => undefined,
        (err: Error) => logger.warn({ err: err.message }, "outbox relay at start failed; the relay jobs will retry"),
      )
    : Promise.resolve();
  metrics.watchBacklog({ queues: jobs.stats, knownQueues: jobs.queues, outbox: () => outboxLag(database.prisma) });
  metrics.watchListImports(() => newestImportTimes(database.prisma));
  const demo = await bootstrapDemo(config, database, services);
  const sharedCache = createSharedCache(services.events);
  const stopForgetting = forgetOnKeyChanges(services.auth, services.events);
  await redis?.ready(); // the subscriptions above are in place before the first request
  const readiness = [
    { name: "database", check: database.ping },
    ...(redis
      ? [
          {
            name: "redis",
            check: async () => {
              await redis.client.ping();
            },
          },
        ]
      : []),
  ];
  const rateLimiter = createRateLimiter({
    limit: config.rateLimitPerMinute,
    operatorLimit: config.operatorRateLimitPerMinute,
    refusedLimit: config.unauthenticatedRateLimitPerMinute,
    redis: redis?.client ?? null,
  });
  const legacy = { enabled: config.v1Enabled, sunset: config.v1Sunset, deprecatedAt: V1_DEPRECATED_AT, count: metrics.countLegacy };
  const answerRoute = createRouteAnswerer({ table, schema, maxBodyBytes: config.maxBodyBytes, cache: sharedCache, legacy, services });
  const maskError = createMaskError(services.logger);
  const validated = createValidatedDocuments(config.queryCacheBytes);
  const live = createLiveOperations({
    limits: { perKey: config.maxSubscriptionsPerKey, perSocket: config.maxSubscriptionsPerSocket, total: config.maxSubscriptions },
    auth: services.auth,
    events: services.events,
  });
  const yoga = buildYoga({
    config,
    schema,
    services,
    metrics,
    readiness,
    table,
    openApi: buildOpenApi(schema, table, eventCatalogue()),
    eventCatalogue: { events: eventCatalogue() },
    answerRoute,
    legacy,
    rateLimiter,
    maskError,
    validated,
    live,
  });
  const lanes = config.lanes
    ? createLanes({
        services,
        metrics,
        table,
        answerRoute,
        rateLimiter,
        compiled: createCompiledExecutor(schema, maskError),
        validated,
        fetchAPI: yoga.fetchAPI,
        maxBodyBytes: config.maxBodyBytes,
        trustProxy: config.trustProxy,
      })
    : null;

  let server: Server | null = null;
  let inFlight = 0;
  let draining = false;
  // a request whose client hung up still runs to its end; stop() waits for it before closing the database
  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    inFlight++;
    if (draining) res.setHeader("connection", "close"); // the client opens a new connection (elsewhere) next time
    try {
      if (!(await lanes?.(req, res))) await yoga(req, res);
    } finally {
      inFlight--;
    }
  };
  let closeWs: (() => Promise<void>) | null = null;
  let closeControl: (() => Promise<void>) | null = null;
  let closeScrapes: (() => Promise<void>) | null = null;
  return {
    config,
    services,
    database,
    yoga,
    demo,
    redis,
    metrics,
    live,
    outbox,
    startupRelay,
    fetch: (url: string, init: RequestInit = {}) => yoga.fetch(new URL(url, "http://gateway"), init),
    async start(port = config.port, host = config.host) {
      server = createHttpServer(handler, config, bodyLimits(config.maxBodyBytes, table));
      closeWs = attachWebSocket(server, { yoga, services, rateLimiter, live, maxPayload: config.maxBodyBytes, maskError, trustProxy: config.trustProxy });
      await new Promise<void>((resolve) => server!.listen(port, host, resolve));
      if (config.metricsPort !== undefined) closeScrapes = await listenForScrapes(metrics, config.metricsPort, host);
      // the embedded database is this process's alone: the CLI hands its commands to it
      // (`migrate` has nothing to do: this process migrated at start). Without the socket (a DATA_DIR
      // path too long for one) the service still runs; the CLI then needs it stopped, as before.
      if (database.kind === "pglite" && !database.ephemeral)
        closeControl = await serveControlSocket(
          config.dataDir,
          { db: database.prisma, transact, migrate: async () => [], dataDir: config.dataDir, events: services.events, jobs: async () => jobs, logger },
          (err) => logger.error({ err }, "cli command failed"),
        ).catch((err: Error) => {
          logger.warn({ err: err.message }, "no control socket for the CLI in DATA_DIR");
          return null;
        });
      const address = server.address();
      return typeof address === "object" && address ? address.port : port;
    },
    /** Stop accepting, let in-flight requests finish, close sockets, then the database. */
    async stop() {
      await closeControl?.();
      await closeScrapes?.();
      if (server) {
        // Requests a client sent before the signal may still sit unread in socket buffers (the event loop
        // was busy, e.g. in the embedded database): server.close() would count those connections idle and
        // reset them. One pass of the event loop's I/O phase reads them in first.
        draining = true;
        await new Promise((r) => setTimeout(r, 100));
        await closeWs?.();
        await new Promise<void>((resolve) => {
          server!.close(() => resolve());
          server!.closeIdleConnections();
        });
        for (const until = Date.now() + 10_000; inFlight > 0 && Date.now() < until; ) await new Promise((r) => setTimeout(r, 20));
      }
      await startupRelay;
      await jobs.stop();
      await sharedCache.stop();
      await services.compliance.stop();
      await services.payouts.stop();
      await services.documentStore.close();
      await stopForgetting();
      live.stop();
      await yoga.dispose?.();
      redis?.disconnect();
      services.delivery.close();
      await database.close();
    },
  };
}

/** The embedded default generates its key once into DATA_DIR; a server database must be given one. */
async function encryptionKey(config: Config, database: Database): Promise<Buffer> {
  if (config.encryptionKey) return decodeKey(config.encryptionKey)!;
  if (database.ephemeral) return randomBytes(32);
  const file = path.join(config.dataDir, "encryption.key");
  const existing = await readFile(file, "utf8").catch(() => null);
  if (existing) return decodeKey(existing.trim())!;
  const key = randomBytes(32);
  await writeFile(file, key.toString("hex"), { mode: 0o600 });
  return key;
}

async function bootstrapDemo(config: Config, database: Database, services: Services) {
  if (database.kind !== "pglite") return null;
  const demo = await bootstrapDemoClient(services.db, services.transact);
  if (!demo) return null;
  const summary = { client_id: demo.client.id, name: demo.client.name, mode: demo.client.mode, scopes: demo.client.scopes, api_key: demo.apiKey };
  if (!isMemoryDir(config.dataDir)) {
    const file = path.join(config.dataDir, "bootstrap.json");
    await writeFile(file, JSON.stringify(summary, null, 2) + "\n", { mode: 0o600 });
    await chmod(file, 0o600);
  }
  return summary;
}

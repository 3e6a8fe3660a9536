/** What every service receives: who is calling, the database, and request-scoped helpers. Nothing else. */
import { contextCacheSymbol, initContextCache } from "@pothos/core";
import type { Db } from "./db/client.js";
import type { Cipher } from "./lib/crypto.js";
import type { Logger } from "./lib/logger.js";
import type { Authenticator } from "./domains/clients/clients.service.js";
import type { EventBus } from "./platform/bus.js";
import type { Delivery } from "./domains/otp/otp.sender.js";
import type { RuleBook } from "./domains/compliance/compliance.service.js";
import type { PayoutCatalogue } from "./domains/remittance/remittance.catalogue.js";
import type { DocumentStore } from "./domains/documents/documents.storage.js";
import type { WebhookSettings } from "./domains/webhooks/webhooks.delivery.js";
import type { Jobs } from "./platform/jobs.js";
import type { Transact } from "./platform/write.js";
import type { Principal } from "./principal.js";
import { releaseWork, type WorkLimits, type WorkSpent } from "./graphql/work-budget.js";

/** Long-lived pieces built once at start and shared by every request. */
export type Services = {
  db: Db;
  cipher: Cipher;
  logger: Logger;
  auth: Authenticator;
  events: EventBus;
  /** OTP delivery: sandbox outbox, SMTP, SMS webhook */
  delivery: Delivery;
  /** the clock of time-bound rules (OTP expiry, cooldown); tests replace it instead of sleeping */
  now: () => Date;
  /** the country rule sets in force, cached and refreshed on change */
  compliance: RuleBook;
  /** the payout catalogue (corridors, requirements, institutions) held in memory, dropped on change */
  payouts: PayoutCatalogue;
  /** where document bytes live (files under DATA_DIR or a table) */
  documentStore: DocumentStore;
  /** webhook delivery: WEBHOOK_ALLOW_PRIVATE, retry schedule, the deliveries-by-outcome metric */
  webhooks: WebhookSettings;
  /** the job engine (pg-boss): writes enqueue through their `enqueue` */
  jobs: Jobs;
  /** every write: one transaction with its audit entries, events and jobs (platform/write.ts) */
  transact: Transact;
  /** what one operation may read while it runs (graphql/work-budget.ts) */
  workLimits: WorkLimits;
};

export type RequestContext = Services & {
  /** real time, whatever the caller's clock (`now` follows a sandbox clock): what crosses a real network keeps it */
  realNow: () => Date;
  principal: Principal;
  requestId: string;
  /** what this request's operation has read so far, against `workLimits` */
  workSpent: WorkSpent;
};

/**
 * A request's context. Pothos keeps its per-request caches in module-level WeakMaps keyed by the
 * context, and their values point back at it; V8's scavenger keeps such an entry alive while it can
 * reach the key, so every request's caches, and the context with all it reached, outlived minor GCs
 * and were promoted, to be freed only by a mark-compact. With
 * Pothos's `initContextCache` the key is a small object of its own, which `withRequestContext` drops
 * once the execution settles, and yoga's executions do the same (server/plugins/use-request-caches-released.ts
 * `useRequestCachesReleased`): nothing then reaches the key, and the caches die young. (A context
 * that lives on, a subscription's, keeps its key.)
 */
export function requestContext(services: Services, principal: Principal, requestId: string): RequestContext {
  // every key written out, not `...services`: a spread of the services made every read promote more
  // into old space (docs/performance.md). A new service must be added here too (the type says so).
  const { db, cipher, logger, auth, events, delivery, compliance, payouts, documentStore, webhooks, jobs, transact, workLimits } = services;
  // a sandbox client's clock may run ahead: everything its requests compare with "now" follows it
  // (GraphiQL's schema fetch comes without a principal)
  const ahead = principal?.kind === "client" ? (principal.clockAheadMs ?? 0) : 0;
  const now = ahead ? () => new Date(services.now().getTime() + ahead) : services.now;
  return {
    db,
    cipher,
    logger,
    auth,
    events,
    delivery,
    now,
    realNow: services.now,
    compliance,
    payouts,
    documentStore,
    webhooks,
    jobs,
    transact,
    workLimits,
    principal,
    requestId,
    workSpent: { rows: 0, fileBytes: 0 },
    ...initContextCache(),
  };
}

/**
 * Drops the key of the context's Pothos caches: they die young (a later lookup would start afresh).
 * What the execution held of the process's budgets (file bytes being read) is given back too.
 */
export function releaseRequestCaches(ctx: object) {
  (ctx as Record<symbol, unknown>)[contextCacheSymbol] = undefined;
  releaseWork(ctx);
}

/** `fn` with a fresh request context, whose Pothos caches are let go of once it settles (the lanes; yoga's executions: server/plugins/use-request-caches-released.ts). */
export async function withRequestContext<T>(services: Services, principal: Principal, requestId: string, fn: (ctx: RequestContext) => Promise<T>): Promise<T> {
  const ctx = requestContext(services, principal, requestId);
  try {
    return await fn(ctx);
  } finally {
    releaseRequestCaches(ctx);
  }
}

/** The client a tenant-owned operation runs for; an operator key has none. */
export function tenantOf(ctx: RequestContext): string {
  if (ctx.principal.kind !== "client") throw new Error("tenant operation reached without a client principal");
  return ctx.principal.clientId;
}

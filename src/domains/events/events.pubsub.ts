/**
 * Live fan-out for GraphQL subscriptions (graphql-ws and SSE). In memory on one instance; with
 * REDIS_URL over Redis pub/sub so a subscriber on any instance sees a change made on any other.
 * Topics carry the client id, so a subscriber only ever hears its own client's events.
 * (The events domain's outbox will feed this after commit; webhooks read the outbox, not this.)
 */
import { createRedisEventTarget } from "@graphql-yoga/redis-event-target";
import { createPubSub } from "graphql-yoga";
import type { ReviewEvent } from "../reviews/reviews.view.js";
import type { CorridorChange } from "../remittance/remittance.changes.js";

/** `user`: the user's state after the change, in REST's names (webhooks and `GET /v2/events` send it as is). */
type UserStatusEvent = { userId: string; status: string; previousStatus: string; user?: Record<string, unknown> };
type RiskLevelEvent = { userId: string; riskLevel: string | null; previousRiskLevel: string | null; riskScore: number | null; user?: Record<string, unknown> };
/** The webhook payload `{user_id, check, user}`: the run and the user in REST's names. */
export type CheckEvent = { userId: string; check: { check_id: string; type: string } & Record<string, unknown>; user: Record<string, unknown> };

export type Topics = {
  "user.status.updated": [clientId: string, event: UserStatusEvent];
  "user.risk_level.updated": [clientId: string, event: RiskLevelEvent];
  "check.kyc.updated": [clientId: string, event: CheckEvent];
  "check.sanctions_screening.updated": [clientId: string, event: CheckEvent];
  "check.transaction_monitoring.updated": [clientId: string, event: CheckEvent];
  /** a run opened a review (its hits, an alert, KYC to consider) */
  "review.opened": [clientId: string, event: ReviewEvent];
  /** a reviewer's decision was recorded (PENDING_APPROVAL) or took effect (CLOSED) */
  "review.decided": [clientId: string, event: ReviewEvent];
  /** a review was assigned, escalated or given new hits (subscriptions only) */
  "review.updated": [clientId: string, event: { reviewId: string; userId: string; change: string }];
  /** a key was rotated or revoked: every instance drops its cached principals */
  "credentials.changed": [event: { clientId: string }];
  /** a corridor's limits, status or requirements changed (every client hears it: remittance.changes.ts) */
  "reference.corridor.updated": [clientId: string, event: CorridorChange];
  /** reference data (lookups) changed: shared response caches drop what they hold */
  "reference.updated": [event: { kind: string; id: string }];
  /** a compliance rule set was imported: every instance reloads its rule sets */
  "compliance.updated": [event: { country: string; version: number }];
  /** a document was uploaded, changed or deleted (its KYC run is enqueued in the same transaction) */
  "document.changed": [clientId: string, event: { documentId: string; userId: string; change: "uploaded" | "updated" | "deleted" | "expired" }];
  /** a card was activated by its provider or cancelled */
  "card.status.updated": [clientId: string, event: { cardId: string; walletId: string; status: string; previousStatus: string }];
};

type RedisTarget = Parameters<typeof createRedisEventTarget>[0];

/** `redis`: the publish and subscribe sides (lib/redis.ts), which log their failures rather than throw. */
export function createEventBus(redis?: { publish: object; subscribe: object } | null) {
  const eventTarget = redis && createRedisEventTarget({ publishClient: redis.publish, subscribeClient: redis.subscribe } as RedisTarget);
  return createPubSub<Topics>(eventTarget ? { eventTarget } : undefined);
}
export type EventBus = ReturnType<typeof createEventBus>;

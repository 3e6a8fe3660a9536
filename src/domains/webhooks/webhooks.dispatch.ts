/**
 * Webhooks fed by the outbox: a consumer of committed events (platform/outbox.ts). When the relay claims
 * events, this queues one delivery job per enabled endpoint of the event's client that subscribes to
 * its type, in the claim's own transaction: the jobs commit with the claim, so no committed event can
 * miss its webhooks and none is queued twice. Once the claim committed the relaying process wakes its
 * own delivery worker (no polling interval between commit and send); elsewhere the jobs are polled as usual.
 *
 * A delivery job makes one attempt (deliverWebhook). A failed attempt (the receiver's 5xx, timeout, …)
 * is an outcome, not a job failure: the job completes and the next attempt is a new job starting at
 * the schedule's `retryAt`. A job whose worker died (between the send and the attempt's record, say)
 * stays active until its expiry, then pg-boss runs it again: the event goes out again with the same
 * `webhook-id`. pg-boss hands a job to one worker at a time, and job ids are derived from (endpoint,
 * event, attempt number), so an attempt enqueued twice is queued once.
 */
import { createHash } from "node:crypto";
import type { Jobs } from "../../platform/jobs.js";
import type { OutboxConsumer, OutboxEvent } from "../../platform/outbox.js";
import { envelopeData } from "../events/events.service.js";
import { PUBLIC_EVENT_TYPES } from "../../kernel/event-types.js";
import { deliverWebhook, type DeliveryDeps, type WebhookEvent } from "./webhooks.delivery.js";
import { subscribes } from "./webhooks.rules.js";

export const WEBHOOK_DELIVERY_JOB = "webhooks.deliver";
/** Attempts in flight per process: a receiver that takes its full 10 s holds one of them, not the queue. */
const CONCURRENCY = 50;

export type DeliveryJob = { endpointId: string; event: WebhookEvent };

const PUBLIC: ReadonlySet<string> = new Set(PUBLIC_EVENT_TYPES);

/** The job of attempt `attempt` of `eventId` to `endpointId`: a UUID made of the three, so sending it again queues nothing. */
export function deliveryJobId(endpointId: string, eventId: string, attempt: number) {
  const hex = createHash("sha256").update(`${endpointId}|${eventId}|${attempt}`).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** a client's public event: what endpoints may subscribe to */
const isPublic = (event: { type: string; clientId: string | null }) => !!event.clientId && PUBLIC.has(event.type);

/** The outbox consumer: the first attempt of every (subscribing endpoint, public event) pair, queued with the claim. */
export const webhookFanOut = (jobs: Jobs): OutboxConsumer => ({
  writesFor: isPublic,
  consume: async (tx, claimed) => {
    const events = claimed.filter(isPublic);
    if (!events.length) return;
    const endpoints = await tx.webhookEndpoint.findMany({
      where: { clientId: { in: [...new Set(events.map((e) => e.clientId!))] }, enabled: true },
      select: { id: true, clientId: true, eventTypes: true },
    });
    const items = events.flatMap((e) =>
      endpoints
        .filter((ep) => ep.clientId === e.clientId && subscribes(ep.eventTypes, e.type))
        .map((ep) => ({ id: deliveryJobId(ep.id, e.id, 1), data: { endpointId: ep.id, event: webhookEventOf(e) } satisfies DeliveryJob })),
    );
    if (!items.length) return;
    await jobs.sendMany(WEBHOOK_DELIVERY_JOB, items, { tx });
    return () => jobs.notify(WEBHOOK_DELIVERY_JOB);
  },
});

/** The envelope's fields as catch-up (GET /v2/events) shows them: `data` keys in snake_case. */
const webhookEventOf = (row: OutboxEvent): WebhookEvent => ({
  id: row.id,
  type: row.type,
  createdAt: row.createdAt.toISOString(),
  data: envelopeData(row.data),
});

/** The delivery queue and its worker. `expireInSeconds` must exceed the send timeout (config checks it). */
export function defineWebhookDelivery(jobs: Jobs, deps: DeliveryDeps, { expireInSeconds }: { expireInSeconds: number }) {
  return jobs.define<DeliveryJob>({
    name: WEBHOOK_DELIVERY_JOB,
    // retries of the job itself are for crashes and database errors only; the receiver's failures follow the schedule
    queue: { retryLimit: 12, retryDelay: 1, retryBackoff: true, expireInSeconds },
    each: { concurrency: CONCURRENCY, run: (job) => attempt(jobs, deps, job.data) },
    eager: true, // sent at commit, not at the next poll
  });
}

/** One job: one attempt, then the next one scheduled. A throw (database down) fails the job: it runs again. */
async function attempt(jobs: Jobs, deps: DeliveryDeps, job: DeliveryJob) {
  const { endpointId, event } = job;
  const result = await deliverWebhook(deps, endpointId, event);
  if (!("attempt" in result) || !result.retryAt) return;
  await jobs.sendMany(WEBHOOK_DELIVERY_JOB, [
    { id: deliveryJobId(endpointId, event.id, result.attempt.attemptNumber + 1), data: job, startAfter: result.retryAt },
  ]);
  // a retry due within a minute is fetched on time, not up to a poll later
  const wait = result.retryAt.getTime() - Date.now();
  if (wait < 60_000) setTimeout(() => jobs.notify(WEBHOOK_DELIVERY_JOB), Math.max(0, wait) + 10).unref();
}

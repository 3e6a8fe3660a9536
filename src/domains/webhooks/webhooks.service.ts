/**
 * Webhook endpoints of the caller's client: create (secret shown once), read, list, update,
 * rotate the secret, delete, list attempts, redeliver, send a test event (SANDBOX keys). Delivery
 * itself is webhooks.delivery.ts.
 */
import { stamps } from "../../db/insert-rows.js";
import type { Prisma } from "../../../generated/prisma/client.js";
import type { RequestContext } from "../../context.js";
import { tenantOf } from "../../context.js";
import { DomainError, invalid, notFound } from "../../lib/errors.js";
import { foundOr404 } from "../../lib/found.js";
import { deliverWebhook, type DeliveryDeps } from "./webhooks.delivery.js";
import { checkEventType, checkEventTypes, DEFAULT_TEST_EVENT_TYPE, newSecret, ROTATION_GRACE_MS } from "./webhooks.rules.js";
import { testEvent } from "./webhooks.samples.js";
import { resolveTarget, UrlRefused } from "./webhooks.ssrf-guard.js";

type Selection = { select?: Prisma.WebhookEndpointSelect; include?: Prisma.WebhookEndpointInclude };
type AttemptSelection = { select?: Prisma.WebhookAttemptSelect; include?: Prisma.WebhookAttemptInclude };
type Window = { offset: number; limit: number };

export type CreateEndpointInput = { url: string; eventTypes: string[] };
export type UpdateEndpointInput = { id: string; url?: string | null; eventTypes?: string[] | null; enabled?: boolean | null };

/** The URL passes the SSRF guard for this client's mode, or the input is refused naming `url`. */
async function checkUrl(ctx: RequestContext, url: string) {
  const mode = ctx.principal.kind === "client" ? ctx.principal.mode : "LIVE";
  try {
    await resolveTarget(url.trim(), { mode, allowPrivate: ctx.webhooks.allowPrivate, resolve: ctx.webhooks.resolve });
  } catch (error) {
    if (error instanceof UrlRefused) throw invalid([{ field: "url", code: "refused", message: error.reason }]);
    throw error;
  }
  return url.trim();
}

export const getEndpoint = (ctx: RequestContext, id: string, query?: Selection) =>
  foundOr404("webhook endpoint", id, (id) => ctx.db.webhookEndpoint.findFirst({ ...query, where: { id, clientId: tenantOf(ctx) } }));

export function findEndpoints(ctx: RequestContext, query?: Selection) {
  const where = { clientId: tenantOf(ctx) };
  return {
    count: () => ctx.db.webhookEndpoint.count({ where }),
    page: ({ offset, limit }: Window) =>
      ctx.db.webhookEndpoint.findMany({ ...query, where, orderBy: [{ createdAt: "desc" }, { id: "desc" }], skip: offset, take: limit }),
  };
}

export async function createEndpoint(ctx: RequestContext, input: CreateEndpointInput, query?: Selection) {
  const clientId = tenantOf(ctx);
  const eventTypes = checkEventTypes(input.eventTypes);
  const url = await checkUrl(ctx, input.url);
  const secret = newSecret();
  return ctx.transact(ctx, async ({ tx, audit, now }) => {
    const row = await tx.webhookEndpoint.create({
      ...query,
      data: { clientId, url, eventTypes, secretEncrypted: ctx.cipher.encrypt(secret), ...stamps(now()) },
    });
    audit({ action: "webhook_endpoint.created", targetType: "webhook_endpoint", targetId: row.id, changedFields: ["url", "eventTypes", "secret"] });
    // the secret is part of the write's value: a retry answered from the write's record shows this one
    return Object.assign(row, { secret });
  });
}

export async function updateEndpoint(ctx: RequestContext, input: UpdateEndpointInput, query?: Selection) {
  await getEndpoint(ctx, input.id, { select: { id: true } });
  const data: Prisma.WebhookEndpointUpdateInput = {};
  if (input.eventTypes != null) data.eventTypes = checkEventTypes(input.eventTypes);
  if (input.url != null) data.url = await checkUrl(ctx, input.url);
  if (input.enabled != null) {
    data.enabled = input.enabled;
    data.disabledReason = null;
  }
  return ctx.transact(ctx, async ({ tx, audit, now }) => {
    const row = await tx.webhookEndpoint.update({ ...query, where: { id: input.id }, data: { ...data, updatedAt: now() } });
    audit({
      action: "webhook_endpoint.updated",
      targetType: "webhook_endpoint",
      targetId: input.id,
      changedFields: Object.keys(data).filter((f) => f !== "disabledReason"),
    });
    return row;
  });
}

/** A new secret, shown once; the old one keeps signing (as a second signature) for ROTATION_GRACE_MS. */
export async function rotateSecret(ctx: RequestContext, id: string, query?: Selection) {
  const current = await getEndpoint(ctx, id, { select: { id: true, secretEncrypted: true } });
  const secret = newSecret();
  return ctx.transact(ctx, async ({ tx, audit }) => {
    const row = await tx.webhookEndpoint.update({
      ...query,
      where: { id },
      data: {
        secretEncrypted: ctx.cipher.encrypt(secret),
        previousSecretEncrypted: current.secretEncrypted,
        // real time, as signing is: the old secret signs real deliveries for the grace period
        previousSecretExpiresAt: new Date(Date.now() + ROTATION_GRACE_MS),
      },
    });
    audit({ action: "webhook_endpoint.secret_rotated", targetType: "webhook_endpoint", targetId: id, changedFields: ["secret"] });
    return Object.assign(row, { secret });
  });
}

/** Deletes the endpoint and its attempts; answers with the endpoint as it was. */
export async function deleteEndpoint(ctx: RequestContext, id: string, query?: Selection) {
  await getEndpoint(ctx, id, { select: { id: true } });
  return ctx.transact(ctx, async ({ tx, audit }) => {
    const row = await tx.webhookEndpoint.delete({ ...query, where: { id } });
    audit({ action: "webhook_endpoint.deleted", targetType: "webhook_endpoint", targetId: id });
    return row;
  });
}

/** An endpoint's attempts, newest first, optionally of one event; another client's endpoint is 404. */
export function findAttempts(ctx: RequestContext, endpointId: string, eventId: string | null | undefined, query?: AttemptSelection) {
  const owned = getEndpoint(ctx, endpointId, { select: { id: true } });
  owned.catch(() => {}); // awaited below; a list refused for its paging arguments never reaches it
  const where = { endpointId, clientId: tenantOf(ctx), ...(eventId ? { eventId } : {}) };
  return {
    count: async () => {
      await owned;
      return ctx.db.webhookAttempt.count({ where });
    },
    page: async ({ offset, limit }: Window) => {
      await owned;
      return ctx.db.webhookAttempt.findMany({ ...query, where, orderBy: [{ attemptedAt: "desc" }, { attemptNumber: "desc" }], skip: offset, take: limit });
    },
  };
}

/**
 * Sends an event this endpoint was sent before once more, now, as a new attempt with the same
 * `webhook-id`. It runs in the request for now; the job engine may take it over (same call).
 */
export async function redeliver(ctx: RequestContext, endpointId: string, eventId: string) {
  await enabledEndpoint(ctx, endpointId, "redelivering");
  const sent = await ctx.db.webhookAttempt.findFirst({ where: { endpointId, eventId }, orderBy: { attemptedAt: "desc" }, select: { payload: true } });
  if (!sent)
    throw new DomainError("NOT_FOUND", "This endpoint was never sent an event with that id.", [
      { field: "eventId", code: "not_found", message: "No attempt of this event exists for this endpoint." },
    ]);
  const envelope = sent.payload as { id: string; type: string; created_at: string; data: unknown; test?: boolean };
  const result = await deliverWebhook(
    onRealNetwork(ctx),
    endpointId,
    // a redelivered test event is still one: its envelope keeps `test: true`
    { id: envelope.id, type: envelope.type, createdAt: envelope.created_at, data: envelope.data, test: envelope.test },
    { manual: true },
  );
  if ("skipped" in result) throw notFound("webhook endpoint"); // deleted or disabled while it ran
  await ctx.transact(ctx, async ({ audit }) => audit({ action: "webhook_event.redelivered", targetType: "webhook_endpoint", targetId: endpointId }));
  return result.attempt;
}

/**
 * SANDBOX keys only, as Stripe keeps test events to test mode: a LIVE key is told the route has nothing
 * for it (404). Sends one sample event of `type` to this endpoint only, now, whatever it subscribes
 * to, signed and recorded like any attempt; like a redelivery it schedules no retry.
 */
export async function sendTestEvent(ctx: RequestContext, endpointId: string, type: string | null | undefined) {
  if (ctx.principal.mode !== "SANDBOX") throw new DomainError("NOT_FOUND", "Test events exist for sandbox keys only.");
  const eventType = checkEventType(type ?? DEFAULT_TEST_EVENT_TYPE);
  await enabledEndpoint(ctx, endpointId, "sending a test event");
  const result = await deliverWebhook(onRealNetwork(ctx), endpointId, testEvent(eventType, ctx.now()), { manual: true });
  if ("skipped" in result) throw notFound("webhook endpoint"); // deleted or disabled while it ran
  await ctx.transact(ctx, async ({ audit }) => audit({ action: "webhook_event.test_sent", targetType: "webhook_endpoint", targetId: endpointId }));
  return result.attempt;
}

/**
 * What a delivery asked for in a request needs: real time for the attempt and its signature, as the
 * delivery worker's (a receiver checks `webhook-timestamp` against its own clock), whatever the
 * sandbox clock; the event itself keeps the client's time.
 */
const onRealNetwork = (ctx: RequestContext): DeliveryDeps => ({ db: ctx.db, cipher: ctx.cipher, logger: ctx.logger, webhooks: ctx.webhooks, now: ctx.realNow });

/** The caller's endpoint, refused with WEBHOOK_ENDPOINT_DISABLED while disabled: nothing is sent to it then. */
async function enabledEndpoint(ctx: RequestContext, id: string, doing: string) {
  const endpoint = await getEndpoint(ctx, id, { select: { id: true, enabled: true } });
  if (!endpoint.enabled)
    throw new DomainError("WEBHOOK_ENDPOINT_DISABLED", `The endpoint is disabled: enable it (updateWebhookEndpoint, enabled: true) before ${doing}.`);
}

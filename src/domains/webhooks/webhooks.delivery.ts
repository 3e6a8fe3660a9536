/**
 * One delivery attempt of one event to one endpoint: Standard Webhooks signature, the SSRF
 * guard again at send time, a 10 s budget, redirects not followed, the attempt recorded with when to
 * retry. Scheduling the retry is the job engine's: it calls deliverWebhook and, when `retryAt` is
 * set, enqueues the next call for then. A SANDBOX client's /sandbox-fail-3 endpoint has its first
 * attempts answered 500 here, without sending (webhooks.rules.ts `sandboxFailingAttempts`).
 */
import http from "node:http";
import https from "node:https";
import { Webhook } from "standardwebhooks";
import type { Db } from "../../db/client.js";
import type { Cipher } from "../../lib/crypto.js";
import type { Logger } from "../../lib/logger.js";
import type { WebhookOutcome } from "../../../generated/prisma/enums.js";
import {
  DELIVERY_TIMEOUT_MS,
  DEFAULT_RETRY_SCHEDULE_MS,
  failingSince,
  nextRetryAt,
  sandboxFailingAttempts,
  shouldDisable,
  SNIPPET_BYTES,
  subscribes,
} from "./webhooks.rules.js";
import { pinnedLookup, resolveTarget, UrlRefused, type GuardOptions, type Target } from "./webhooks.ssrf-guard.js";

export type WebhookSettings = {
  /** WEBHOOK_ALLOW_PRIVATE=1 */
  allowPrivate: boolean;
  /** @default DEFAULT_RETRY_SCHEDULE_MS (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h) */
  retrySchedule?: readonly number[];
  /** @default 10 000 */
  timeoutMs?: number;
  /** counts each attempt's outcome (the `webhook_deliveries_total` metric) */
  countOutcome?: (outcome: WebhookOutcome) => void;
  /** replaces DNS in tests */
  resolve?: GuardOptions["resolve"];
};

/** What delivery needs of the app's services (a RequestContext or the job engine's services both fit). */
export type DeliveryDeps = { db: Db; cipher: Cipher; logger: Logger; now: () => Date; webhooks: WebhookSettings };

/**
 * An event as the outbox holds it; `id` becomes `webhook-id` and stays the same on every attempt.
 * `test`: a sandbox test event (webhooks.samples.ts), marked `test: true` in its envelope.
 */
export type WebhookEvent = { id: string; type: string; createdAt: Date | string; data: unknown; test?: boolean };

export type DeliveryResult =
  | { attempt: Awaited<ReturnType<Db["webhookAttempt"]["create"]>>; retryAt: Date | null; disabled: boolean }
  | { skipped: "endpoint_deleted" | "endpoint_disabled" | "not_subscribed" };

/** The JSON body: `{id, type, created_at, data}`, and `test: true` for a test event. */
const envelopeOf = (event: WebhookEvent) => ({
  id: event.id,
  type: event.type,
  created_at: new Date(event.createdAt).toISOString(),
  data: event.data,
  ...(event.test ? { test: true } : {}),
});

/**
 * Sends `event` to the endpoint once and records the attempt. `manual` (a redelivery asked for by the
 * client) schedules no retry. Never throws for the receiver's failures: they are the attempt's outcome.
 */
export async function deliverWebhook(deps: DeliveryDeps, endpointId: string, event: WebhookEvent, options: { manual?: boolean } = {}): Promise<DeliveryResult> {
  const endpoint = await deps.db.webhookEndpoint.findUnique({ where: { id: endpointId } });
  if (!endpoint) return { skipped: "endpoint_deleted" };
  if (!endpoint.enabled) return { skipped: "endpoint_disabled" };
  if (!options.manual && !subscribes(endpoint.eventTypes, event.type)) return { skipped: "not_subscribed" };
  const client = await deps.db.apiClient.findUnique({ where: { id: endpoint.clientId }, select: { mode: true } });
  const mode = client?.mode ?? "LIVE";
  const now = deps.now();
  const body = JSON.stringify(envelopeOf(event));
  const secrets = [deps.cipher.decrypt(endpoint.secretEncrypted)];
  if (endpoint.previousSecretEncrypted && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now)
    secrets.push(deps.cipher.decrypt(endpoint.previousSecretEncrypted));
  // every secret in grace signs: Standard Webhooks receivers accept any one of space-separated signatures
  const signatures = secrets.map((secret) => new Webhook(secret).sign(event.id, now, body));
  const headers = {
    "content-type": "application/json",
    "user-agent": "OnboardingGateway-Webhooks/1",
    "webhook-id": event.id,
    "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
    "webhook-signature": signatures.join(" "),
  };

  const started = performance.now();
  const sent = (await sandboxFailure(deps, endpoint, mode, event.id)) ?? (await send(deps, endpoint.url, mode, headers, body));
  const durationMs = Math.round(performance.now() - started);
  const secretTexts = [...secrets, ...secrets.map((s) => s.slice("whsec_".length)), ...signatures.map((s) => s.slice(3))];
  const snippet = sent.snippet === undefined ? null : redact(sent.snippet, secretTexts);

  const previous = await deps.db.webhookAttempt.count({ where: { endpointId, eventId: event.id } });
  const attemptNumber = previous + 1;
  const succeeded = sent.outcome === "SUCCEEDED";
  let retryAt = succeeded || options.manual ? null : nextRetryAt(attemptNumber, now, deps.webhooks.retrySchedule ?? DEFAULT_RETRY_SCHEDULE_MS);
  const attempt = await deps.db.webhookAttempt.create({
    data: {
      endpointId,
      clientId: endpoint.clientId,
      eventId: event.id,
      eventType: event.type,
      payload: JSON.parse(body),
      attemptNumber,
      outcome: sent.outcome,
      statusCode: sent.status ?? null,
      durationMs,
      responseSnippet: snippet,
      attemptedAt: now,
      nextRetryAt: retryAt,
    },
  });
  deps.webhooks.countOutcome?.(sent.outcome);
  deps.logger.info({ endpointId, eventId: event.id, attemptNumber, outcome: sent.outcome, statusCode: sent.status, durationMs }, "webhook attempt");

  const disabled = !succeeded && (await disableIfFailing(deps, endpointId, now));
  if (disabled && retryAt) {
    retryAt = null;
    await deps.db.webhookAttempt.update({ where: { id: attempt.id }, data: { nextRetryAt: null } });
    attempt.nextRetryAt = null;
  }
  return { attempt, retryAt, disabled };
}

/** Turns the endpoint off when its attempts have all failed for 5 days (only the last success and the first failure after it matter). */
async function disableIfFailing(deps: DeliveryDeps, endpointId: string, now: Date) {
  const lastSuccess = await deps.db.webhookAttempt.findFirst({
    where: { endpointId, outcome: "SUCCEEDED" },
    orderBy: { attemptedAt: "desc" },
    select: { attemptedAt: true },
  });
  const firstAfter = await deps.db.webhookAttempt.findFirst({
    where: { endpointId, ...(lastSuccess ? { attemptedAt: { gt: lastSuccess.attemptedAt } } : {}) },
    orderBy: { attemptedAt: "asc" },
    select: { attemptedAt: true, outcome: true },
  });
  const rows = [
    lastSuccess && { attemptedAt: lastSuccess.attemptedAt, succeeded: true },
    firstAfter && { attemptedAt: firstAfter.attemptedAt, succeeded: firstAfter.outcome === "SUCCEEDED" },
    { attemptedAt: now, succeeded: false },
  ];
  const since = failingSince(rows.filter((r) => r !== null));
  if (!shouldDisable(since, now)) return false;
  await deps.db.webhookEndpoint.update({
    where: { id: endpointId },
    data: {
      enabled: false,
      disabledReason: `Every delivery since ${since!.toISOString()} failed: disabled after 5 days. Fix the receiver, then enable the endpoint again.`,
    },
  });
  deps.logger.warn({ endpointId }, "webhook endpoint disabled after 5 days of failures");
  return true;
}

type Sent = { outcome: WebhookOutcome; status?: number; snippet?: string };

/**
 * The sandbox's answer instead of the receiver's, or null to send: a 500 for the first attempts of
 * each event to a SANDBOX /sandbox-fail-3 endpoint, recorded and retried like a real one. Attempts are
 * counted only for such an endpoint, so every other delivery makes no extra query.
 */
async function sandboxFailure(deps: DeliveryDeps, endpoint: { id: string; url: string }, mode: "SANDBOX" | "LIVE", eventId: string): Promise<Sent | null> {
  const failing = sandboxFailingAttempts(mode, endpoint.url);
  if (!failing) return null;
  const previous = await deps.db.webhookAttempt.count({ where: { endpointId: endpoint.id, eventId } });
  if (previous >= failing) return null;
  const snippet = `Simulated by the sandbox, nothing sent: the path ends with /sandbox-fail-3, so attempts 1 to ${failing} of each event answer 500.`;
  return { outcome: "HTTP_ERROR", status: 500, snippet };
}

/** The real send: the SSRF guard again (the name may resolve elsewhere since it was checked), then the POST. */
async function send(deps: DeliveryDeps, url: string, mode: "SANDBOX" | "LIVE", headers: Record<string, string>, body: string): Promise<Sent> {
  try {
    const target = await resolveTarget(url, { mode, allowPrivate: deps.webhooks.allowPrivate, resolve: deps.webhooks.resolve });
    return await post(target, headers, body, deps.webhooks.timeoutMs ?? DELIVERY_TIMEOUT_MS);
  } catch (error) {
    if (!(error instanceof UrlRefused)) throw error;
    return { outcome: error.unresolved ? "NETWORK_ERROR" : "BLOCKED", snippet: error.reason };
  }
}

/** POSTs to the checked address; at most SNIPPET_BYTES of the answer are read, redirects are answers, not hops. */
function post(target: Target, headers: Record<string, string>, body: string, timeoutMs: number): Promise<Sent> {
  return new Promise((resolve) => {
    let timedOut = false;
    const transport = target.url.protocol === "https:" ? https : http;
    const req = transport.request(target.url, {
      method: "POST",
      headers: { ...headers, "content-length": Buffer.byteLength(body) },
      lookup: pinnedLookup(target) as never,
      agent: false,
    });
    const timer = setTimeout(() => {
      timedOut = true;
      req.destroy(new Error("timeout"));
    }, timeoutMs);
    let answered = false;
    req.on("response", (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => {
        clearTimeout(timer);
        const status = res.statusCode ?? 0;
        const outcome: WebhookOutcome = status >= 200 && status < 300 ? "SUCCEEDED" : status >= 300 && status < 400 ? "REDIRECTED" : "HTTP_ERROR";
        resolve({ outcome, status, snippet: Buffer.concat(chunks).subarray(0, SNIPPET_BYTES).toString("utf8") });
      };
      res.on("data", (chunk: Buffer) => {
        if (size < SNIPPET_BYTES) chunks.push(chunk);
        size += chunk.length;
        if (size >= SNIPPET_BYTES) res.destroy(); // the rest is not ours to read
      });
      res.on("end", done);
      res.on("close", done);
      res.on("error", () => {});
    });
    req.on("error", (error: NodeJS.ErrnoException) => {
      if (answered) return; // the status line came in time: the answer decides
      clearTimeout(timer);
      resolve(
        timedOut
          ? { outcome: "TIMEOUT", snippet: `No answer within ${timeoutMs / 1000} s.` }
          : { outcome: "NETWORK_ERROR", snippet: error.code ?? "connection failed" },
      );
    });
    req.end(body);
  });
}

/** A receiver may echo what it was sent: secrets and signatures never reach the stored snippet. */
const redact = (text: string, secrets: string[]) => secrets.filter((s) => s.length >= 8).reduce((out, s) => out.split(s).join("[redacted]"), text);

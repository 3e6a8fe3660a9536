/** Webhook rules, pure: event types, the retry schedule, when a failing endpoint is disabled, what the sandbox simulates. */
import { randomBytes } from "node:crypto";
import { invalid } from "../../lib/errors.js";
import { SANDBOX_INPUTS } from "../../kernel/sandbox-inputs.js";
import { PUBLIC_EVENT_TYPES } from "../../kernel/event-types.js";

/** A client can subscribe to every public event type; `*` is every type, now and later. */
export type WebhookEventType = (typeof PUBLIC_EVENT_TYPES)[number];
const ALL_EVENTS = "*";
/** What a test event is when the caller names no type. */
export const DEFAULT_TEST_EVENT_TYPE: WebhookEventType = "user.status.updated";

/** Delays after the 1st, 2nd, … failed attempt: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; then no more. */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [5, 300, 1800, 7200, 18000, 36000, 36000].map((s) => s * 1000);
/** An endpoint whose attempts have all failed for this long is disabled. */
const DISABLE_AFTER_MS = 5 * 24 * 3600 * 1000;
/** After a rotation the old secret still signs this long, so receivers can switch without losing events. */
export const ROTATION_GRACE_MS = 24 * 3600 * 1000;
/** The delivery timeout: a 2xx later than this is a failure. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** How much of a receiver's answer an attempt keeps. */
export const SNIPPET_BYTES = 1024;

/** Distinct, known event types; `field` names the input for the error. */
export function checkEventTypes(types: readonly string[], field = "eventTypes"): string[] {
  const unique = [...new Set(types.map((t) => t.trim()))];
  if (!unique.length) throw invalid([{ field, code: "required", message: `${field} must name at least one event type (or "*").` }]);
  const unknown = unique.filter((t) => t !== ALL_EVENTS && !(PUBLIC_EVENT_TYPES as readonly string[]).includes(t));
  if (unknown.length)
    throw invalid([
      {
        field,
        code: "invalid_choice",
        message: `Unknown event type ${unknown.map((t) => JSON.stringify(t)).join(", ")}: use ${PUBLIC_EVENT_TYPES.join(", ")} or "*".`,
      },
    ]);
  return unique.includes(ALL_EVENTS) ? [ALL_EVENTS] : unique;
}

/** One known event type (a test event's), or the input is refused naming `field` and every allowed type. */
export function checkEventType(type: string, field = "type"): WebhookEventType {
  const known = PUBLIC_EVENT_TYPES.find((t) => t === type.trim());
  if (known) return known;
  throw invalid([{ field, code: "invalid_choice", message: `Unknown event type ${JSON.stringify(type)}: use one of ${PUBLIC_EVENT_TYPES.join(", ")}.` }]);
}

/** Whether an endpoint subscribed to `eventTypes` receives an event of `type`. */
export const subscribes = (eventTypes: readonly string[], type: string) => eventTypes.includes(ALL_EVENTS) || eventTypes.includes(type);

/** A Standard Webhooks secret: `whsec_` + base64 of 32 random bytes. */
export const newSecret = () => `whsec_${randomBytes(32).toString("base64")}`;

/**
 * When to try again after failed attempt number `attempt` (1-based), or null when the schedule is
 * spent. `schedule` is the list of delays in milliseconds.
 */
export function nextRetryAt(attempt: number, failedAt: Date, schedule: readonly number[] = DEFAULT_RETRY_SCHEDULE_MS): Date | null {
  const delay = schedule[attempt - 1];
  return delay === undefined ? null : new Date(failedAt.getTime() + delay);
}

/**
 * Since when an endpoint has been failing: the first attempt after its last success, when every
 * attempt since has failed; null when its latest attempt succeeded or it has none.
 */
export function failingSince(attempts: readonly { attemptedAt: Date; succeeded: boolean }[]): Date | null {
  const sorted = [...attempts].sort((a, b) => a.attemptedAt.getTime() - b.attemptedAt.getTime());
  let since: Date | null = null;
  for (const a of sorted) since = a.succeeded ? null : (since ?? a.attemptedAt);
  return since;
}

/** An endpoint failing for DISABLE_AFTER_MS (5 days) or longer is disabled. */
export const shouldDisable = (since: Date | null, now: Date, after = DISABLE_AFTER_MS) => since !== null && now.getTime() - since.getTime() >= after;

/**
 * How many attempts of each event the sandbox fails with a simulated 500 before really sending: 3 for
 * a SANDBOX client's endpoint whose URL path ends with /sandbox-fail-3 (any case, as integrators type
 * it), so retries can be watched without a failing receiver; 0 otherwise, and always 0 for LIVE.
 */
export function sandboxFailingAttempts(mode: "SANDBOX" | "LIVE", url: string) {
  const path = URL.parse(url)?.pathname.toLowerCase() ?? "";
  return mode === "SANDBOX" && path.endsWith(SANDBOX_INPUTS.failingWebhookPath) ? 3 : 0;
}

/**
 * The event types a client hears of, through webhooks, subscriptions and `GET /v2/events` alike.
 * Cache-invalidation events have no client and are not among them.
 */
export const PUBLIC_EVENT_TYPES = [
  "user.status.updated",
  "user.risk_level.updated",
  "check.kyc.updated",
  "check.sanctions_screening.updated",
  "check.transaction_monitoring.updated",
  "review.opened",
  "review.decided",
  "reference.corridor.updated",
] as const;

/**
 * The event catalogue: every event type a client can receive, by webhook or from `GET /v2/events`,
 * with the JSON Schema of its envelope `{id, type, created_at, data}` (webhooks.delivery.ts,
 * events.service.ts). Published at /docs/events and as the OpenAPI document's `webhooks`; a test
 * validates the events the service sends against it, so it cannot drift from what is sent.
 */
import {
  CheckDecider,
  CheckStatus,
  CheckTrigger,
  CheckType,
  KycStatus,
  ReviewOutcome,
  ReviewStatus,
  RiskLevel,
  UserStatus,
} from "../../../generated/prisma/enums.js";
import type { PUBLIC_EVENT_TYPES } from "../../kernel/event-types.js";

type Schema = Record<string, unknown>;
const oneOf = (values: Record<string, string>): Schema => ({ type: "string", enum: Object.values(values) });
const orNull = (schema: Schema): Schema => ({ anyOf: [schema, { type: "null" }] });
const object = (properties: Record<string, Schema>): Schema => ({ type: "object", required: Object.keys(properties), properties });
const id = { type: "string", format: "uuid" };
const instant = { type: "string", format: "date-time" };

/** The user's state after the change: what moved, never personal data (read the user for that). */
const USER = object({
  user_id: id,
  external_id: orNull({ type: "string" }),
  status: oneOf(UserStatus),
  kyc_status: oneOf(KycStatus),
  risk_level: orNull(oneOf(RiskLevel)),
  risk_score: orNull({ type: "integer" }),
  updated_at: instant,
});

const CHECK = object({
  check_id: id,
  type: oneOf(CheckType),
  status: oneOf(CheckStatus),
  trigger: oneOf(CheckTrigger),
  result: { description: "What the provider or the person who decided found (a JSON object); null while the run has not completed" },
  decided_by: orNull(oneOf(CheckDecider)),
  created_at: instant,
  completed_at: orNull(instant),
});

const checkEvent = (what: string) => ({
  description: `A ${what} run of the user completed (or a person posted its result)`,
  data: object({ user_id: id, check: CHECK, user: USER }),
});

/** A review as its events carry it (reviews.view.ts): who decided, never the screened personal data. */
const REVIEW = {
  review_id: id,
  user_id: id,
  type: oneOf(CheckType),
  status: oneOf(ReviewStatus),
  risk_score: { type: "integer", minimum: 0, maximum: 100 },
  check_id: { ...id, description: "The newest run the review covers" },
  entry_ids: { type: "array", items: { type: "string" }, description: "The list entries of its hits (a screening review)" },
  outcome: orNull(oneOf(ReviewOutcome)),
  reason_code: orNull({ type: "string" }),
  decided_by: orNull({ ...id, description: "The reviewer who decided" }),
  approved_by: orNull({ ...id, description: "The second reviewer who approved" }),
  decision_check_id: orNull({ ...id, description: "The run that carried the decision to the user (trigger REVIEW)" }),
  created_at: instant,
  updated_at: instant,
};

const EVENTS: Record<(typeof PUBLIC_EVENT_TYPES)[number], { description: string; data: Schema }> = {
  "user.status.updated": {
    description: "The user's status moved (its checks settled, a verification began, or the caller closed it)",
    data: object({ user_id: id, status: oneOf(UserStatus), previous_status: oneOf(UserStatus), user: USER }),
  },
  "user.risk_level.updated": {
    description: "The user's risk level moved when its checks settled",
    data: object({
      user_id: id,
      risk_level: orNull(oneOf(RiskLevel)),
      previous_risk_level: orNull(oneOf(RiskLevel)),
      risk_score: orNull({ type: "integer" }),
      user: USER,
    }),
  },
  "check.kyc.updated": checkEvent("KYC"),
  "check.sanctions_screening.updated": checkEvent("sanctions screening"),
  "check.transaction_monitoring.updated": checkEvent("transaction monitoring"),
  "review.opened": {
    description: "A check run needs a person: a screening with hits, a monitoring alert or KYC to consider opened a review",
    data: object(REVIEW),
  },
  "reference.corridor.updated": {
    description:
      "A payout corridor changed: its limits, status or other facts (change `corridor`, in effect now), or a version of its payout requirements was added or changed (change `requirements`, in effect from effective_at; until then the requirements answer serves it as future_requirements). Every client receives it.",
    data: object({
      corridor_id: { type: "string" },
      change: { type: "string", enum: ["corridor", "requirements"] },
      version: orNull({ type: "integer", minimum: 1 }),
      previous_version: orNull({ type: "integer", minimum: 1, description: "The version the diff starts from; null when it starts from nothing" }),
      effective_at: instant,
      diff: {
        type: "array",
        description:
          "RFC 6902 JSON Patch from the old document to the new: the corridor's facts (min_amount, max_amount, status, …) or the version's {effective_at, source, …spec}",
        items: object({ op: { type: "string", enum: ["add", "remove", "replace", "move", "copy", "test"] }, path: { type: "string" } }),
      },
    }),
  },
  "review.decided": {
    description:
      "A reviewer decided a review (status PENDING_APPROVAL: it waits for a second reviewer) or the decision took effect (CLOSED; approved_by names the second reviewer)",
    data: object(REVIEW),
  },
};

/** Every event type with the JSON Schema of its envelope. */
export function eventCatalogue() {
  return Object.fromEntries(
    Object.entries(EVENTS).map(([type, { description, data }]) => [
      type,
      {
        description,
        schema: object({ id: { ...id, description: "The event's id, also the webhook-id header" }, type: { const: type }, created_at: instant, data }),
      },
    ]),
  );
}

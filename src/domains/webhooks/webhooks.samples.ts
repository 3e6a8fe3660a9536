/**
 * Test events (POST /v2/webhooks/{webhook_id}/test, SANDBOX keys only): one made-up event of a chosen
 * type whose envelope the event catalogue's schema for that type accepts (events.catalogue.ts;
 * webhooks.sandbox.test.ts validates every type). Its ids are fresh UUIDs, none of them the client's
 * objects. It is marked `test: true` beside the envelope's four members: the catalogue's schemas allow
 * extra members, and the mark cannot go in the id, which must stay a UUID and is also the webhook-id.
 */
import { randomUUID } from "node:crypto";
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
import type { WebhookEvent } from "./webhooks.delivery.js";
import type { WebhookEventType } from "./webhooks.rules.js";

/** The user the sample event is about, as events carry it: its state, never personal data. */
const user = (userId: string, at: string) => ({
  user_id: userId,
  external_id: "test-user",
  status: UserStatus.ACTIVE,
  kyc_status: KycStatus.APPROVED,
  risk_level: RiskLevel.LOW,
  risk_score: 10,
  updated_at: at,
});

const checkEvent = (type: CheckType) => (userId: string, at: string) => ({
  user_id: userId,
  check: {
    check_id: randomUUID(),
    type,
    status: CheckStatus.CLEAR,
    trigger: CheckTrigger.VERIFICATION,
    result: { score: 0, reasons: ["test_event"], matches: [] },
    decided_by: CheckDecider.SYSTEM,
    created_at: at,
    completed_at: at,
  },
  user: user(userId, at),
});

/** A screening review, opened (undecided) or closed with a CLEAR decision. */
const review = (decided: boolean) => (userId: string, at: string) => ({
  review_id: randomUUID(),
  user_id: userId,
  type: CheckType.SANCTIONS_SCREENING,
  status: decided ? ReviewStatus.CLOSED : ReviewStatus.OPEN,
  risk_score: 45, // below HIGH: its CLEAR needs no second reviewer, so approved_by stays null
  check_id: randomUUID(),
  entry_ids: ["test-entry"],
  outcome: decided ? ReviewOutcome.CLEAR : null,
  reason_code: decided ? "name_only_match" : null,
  decided_by: decided ? randomUUID() : null,
  approved_by: null,
  decision_check_id: decided ? randomUUID() : null,
  created_at: at,
  updated_at: at,
});

const SAMPLE_DATA: Record<WebhookEventType, (userId: string, at: string) => object> = {
  "user.status.updated": (userId, at) => ({ user_id: userId, status: UserStatus.ACTIVE, previous_status: UserStatus.IN_REVIEW, user: user(userId, at) }),
  "user.risk_level.updated": (userId, at) => ({
    user_id: userId,
    risk_level: RiskLevel.LOW,
    previous_risk_level: RiskLevel.MEDIUM,
    risk_score: 10,
    user: user(userId, at),
  }),
  "check.kyc.updated": checkEvent(CheckType.KYC),
  "check.sanctions_screening.updated": checkEvent(CheckType.SANCTIONS_SCREENING),
  "check.transaction_monitoring.updated": checkEvent(CheckType.TRANSACTION_MONITORING),
  "review.opened": review(false),
  "review.decided": review(true),
  "reference.corridor.updated": (_userId, at) => ({
    corridor_id: "in-inr-bank",
    change: "corridor",
    version: null,
    previous_version: null,
    effective_at: at,
    diff: [{ op: "replace", path: "/max_amount", value: 200000000 }],
  }),
};

/** A new test event of `type`: a fresh id each time, so each is its own event to the receiver. */
export function testEvent(type: WebhookEventType, now: Date): WebhookEvent {
  return { id: randomUUID(), type, createdAt: now, data: SAMPLE_DATA[type](randomUUID(), now.toISOString()), test: true };
}

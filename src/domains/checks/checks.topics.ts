/** The checks module's events: one per completed run, the webhook payload `{user_id, check, user}` (the run and the user in REST's names). */
export type CheckEvent = { userId: string; check: { check_id: string; type: string } & Record<string, unknown>; user: Record<string, unknown> };

declare module "../../platform/bus.js" {
  interface Topics {
    "check.kyc.updated": [clientId: string, event: CheckEvent];
    "check.sanctions_screening.updated": [clientId: string, event: CheckEvent];
    "check.transaction_monitoring.updated": [clientId: string, event: CheckEvent];
  }
}

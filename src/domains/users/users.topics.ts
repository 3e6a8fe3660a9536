/** The users module's events (webhooks and `GET /v2/events` send `user` as is: the user after the change, in REST's names). */
export type UserStatusEvent = { userId: string; status: string; previousStatus: string; user?: Record<string, unknown> };
export type RiskLevelEvent = {
  userId: string;
  riskLevel: string | null;
  previousRiskLevel: string | null;
  riskScore: number | null;
  user?: Record<string, unknown>;
};

declare module "../../platform/bus.js" {
  interface Topics {
    "user.status.updated": [clientId: string, event: UserStatusEvent];
    "user.risk_level.updated": [clientId: string, event: RiskLevelEvent];
  }
}

/** A review as its events carry it: what moved and who moved it, never the screened personal data. */
type ReviewFacts = {
  id: string;
  userId: string;
  type: string;
  status: string;
  riskScore: number;
  checkRunId: string;
  outcome?: string | null;
  reasonCode?: string | null;
  decidedById?: string | null;
  approvedById?: string | null;
  decisionRunId?: string | null;
  createdAt: Date;
  updatedAt?: Date;
  hits?: { id: string; entryId: string }[];
};

/** The event's data (top-level names become snake_case in webhooks and `GET /v2/events`). */
export const reviewEvent = (review: ReviewFacts) => ({
  reviewId: review.id,
  userId: review.userId,
  type: review.type,
  status: review.status,
  riskScore: review.riskScore,
  checkId: review.checkRunId,
  entryIds: (review.hits ?? []).map((h) => h.entryId),
  outcome: review.outcome ?? null,
  reasonCode: review.reasonCode ?? null,
  decidedBy: review.decidedById ?? null,
  approvedBy: review.approvedById ?? null,
  decisionCheckId: review.decisionRunId ?? null,
  createdAt: review.createdAt.toISOString(),
  updatedAt: (review.updatedAt ?? review.createdAt).toISOString(),
});
export type ReviewEvent = ReturnType<typeof reviewEvent>;

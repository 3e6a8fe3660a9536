/** The shapes the console reads from the gateway's schema (schema.graphql: Review and its parts). */

export type ReviewStatus = "OPEN" | "PENDING_APPROVAL" | "ESCALATED" | "CLOSED";
export type ReviewOutcome = "CLEAR" | "REJECT" | "ESCALATE";
export type HitDecision = "FALSE_POSITIVE" | "TRUE_MATCH";
export type CheckType = "KYC" | "SANCTIONS_SCREENING" | "TRANSACTION_MONITORING";

export type Reviewer = { id: string; name: string; email?: string | null };

export type ScreenedPerson = {
  firstName: string;
  middleName: string | null;
  lastName: string;
  dateOfBirth: string | null;
  nationality: string | null;
};

export type NamePair = { given: string; listed: string; similarity: number };
type NameExplanation = { score: number; pairs: NamePair[]; unpairedGiven: string[]; unpairedListed: string[]; reordered: boolean };
export type FeatureComparison = { given: string | null; listed: string[]; verdict: string };
type AliasExplanation = { matched: string; primary: boolean; weak: boolean };
type HitExplanation = { name: NameExplanation; dateOfBirth: FeatureComparison; nationality: FeatureComparison; alias: AliasExplanation };

export type ScreeningHit = {
  id: string;
  list: string;
  listVersion: string;
  entryId: string;
  entryName: string;
  entryNames: string[];
  matchedName: string;
  score: number;
  reasons: string[];
  programs: string[];
  /** null for a hit an upstream provider posted: the matcher did not weigh it */
  explanation: HitExplanation | null;
  decision: HitDecision | null;
};

/** A review as the queue lists it. */
export type ReviewSummary = {
  id: string;
  userId: string;
  type: CheckType;
  status: ReviewStatus;
  riskScore: number;
  createdAt: string;
  updatedAt: string;
  screened: Pick<ScreenedPerson, "firstName" | "middleName" | "lastName">;
  assignee: Reviewer | null;
  hits: { id: string }[];
};

/** A review opened: everything the analyst decides on. */
export type Review = Omit<ReviewSummary, "screened" | "hits"> & {
  checkId: string;
  reasons: string[];
  screened: ScreenedPerson;
  hits: ScreeningHit[];
  outcome: ReviewOutcome | null;
  reasonCode: string | null;
  note: string | null;
  decidedBy: Reviewer | null;
  decidedAt: string | null;
  approvedBy: Reviewer | null;
  approvedAt: string | null;
};

export type ReasonCode = { code: string; label: string; outcomes: ReviewOutcome[] };

export type QueueCounts = { open: number; escalated: number; pendingApproval: number; oldestOpenAt: string | null };

export type ReviewPage = {
  totalCount: number;
  edges: { node: ReviewSummary }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
};

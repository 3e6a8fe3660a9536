/** Every operation the console sends, typed with what it answers (types.ts). */
import { gql, type TypedDocumentNode } from "@urql/preact";
import type { CheckType, HitDecision, QueueCounts, ReasonCode, Review, ReviewOutcome, ReviewPage, Reviewer, ReviewStatus, ReviewSummary } from "./types.ts";

/** What a line of the queue shows. */
const REVIEW_SUMMARY = gql`
  fragment ReviewSummaryFields on Review {
    id userId type status riskScore createdAt updatedAt
    screened { firstName middleName lastName }
    assignee { id name }
    hits { id }
  }
`;

/** What an opened review shows: the screened data, every hit with its explanation, the decision. */
const REVIEW_DETAIL = gql`
  fragment ReviewFields on Review {
    id userId type status riskScore checkId reasons createdAt updatedAt
    screened { firstName middleName lastName dateOfBirth nationality }
    assignee { id name }
    hits {
      id list listVersion entryId entryName entryNames matchedName score reasons programs decision
      explanation {
        name { score reordered unpairedGiven unpairedListed pairs { given listed similarity } }
        dateOfBirth { given listed verdict }
        nationality { given listed verdict }
        alias { matched primary weak }
      }
    }
    outcome reasonCode note
    decidedBy { id name } decidedAt
    approvedBy { id name } approvedAt
  }
`;

export const CURRENT_REVIEWER: TypedDocumentNode<{ currentReviewer: Reviewer }> = gql`
  query ConsoleReviewer {
    currentReviewer { id name email }
  }
`;

export const REASON_CODES: TypedDocumentNode<{ reviewReasonCodes: ReasonCode[] }> = gql`
  query ConsoleReasonCodes {
    reviewReasonCodes { code label outcomes }
  }
`;

export const QUEUE_COUNTS: TypedDocumentNode<{ reviewQueue: QueueCounts }> = gql`
  query ConsoleQueueCounts {
    reviewQueue { open escalated pendingApproval oldestOpenAt }
  }
`;

export type ReviewFilter = { status: ReviewStatus[]; type: CheckType | null; assignee: string | null };

export const REVIEWS: TypedDocumentNode<{ reviews: ReviewPage }, ReviewFilter & { first: number; after: string | null }> = gql`
  query ConsoleReviews($status: [ReviewStatus!], $type: CheckType, $assignee: String, $first: Int, $after: String) {
    reviews(status: $status, type: $type, assignee: $assignee, first: $first, after: $after) {
      totalCount
      edges { node { ...ReviewSummaryFields } }
      pageInfo { hasNextPage endCursor }
    }
  }
  ${REVIEW_SUMMARY}
`;

export const REVIEW: TypedDocumentNode<{ review: Review }, { id: string }> = gql`
  query ConsoleReview($id: ID!) {
    review(id: $id) { ...ReviewFields }
  }
  ${REVIEW_DETAIL}
`;

export const ASSIGN_TO_ME: TypedDocumentNode<{ assignReview: Review }, { reviewId: string }> = gql`
  mutation ConsoleAssignToMe($reviewId: ID!) {
    assignReview(input: { reviewId: $reviewId }) { ...ReviewFields }
  }
  ${REVIEW_DETAIL}
`;

export type DecisionVariables = {
  reviewId: string;
  outcome: ReviewOutcome;
  reasonCode: string;
  note: string | null;
  hits: { hitId: string; decision: HitDecision }[];
};

export const DECIDE_REVIEW: TypedDocumentNode<{ decideReview: Review }, DecisionVariables> = gql`
  mutation ConsoleDecideReview($reviewId: ID!, $outcome: ReviewOutcome!, $reasonCode: String!, $note: String, $hits: [HitDecisionInput!]) {
    decideReview(input: { reviewId: $reviewId, outcome: $outcome, reasonCode: $reasonCode, note: $note, hits: $hits }) { ...ReviewFields }
  }
  ${REVIEW_DETAIL}
`;

export const APPROVE_REVIEW: TypedDocumentNode<{ approveReview: Review }, { reviewId: string; note: string | null }> = gql`
  mutation ConsoleApproveReview($reviewId: ID!, $note: String) {
    approveReview(input: { reviewId: $reviewId, note: $note }) { ...ReviewFields }
  }
  ${REVIEW_DETAIL}
`;

export const REVIEW_UPDATED: TypedDocumentNode<{ reviewUpdated: ReviewSummary }> = gql`
  subscription ConsoleReviewUpdated {
    reviewUpdated { ...ReviewSummaryFields }
  }
  ${REVIEW_SUMMARY}
`;

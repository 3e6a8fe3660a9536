/** REST entries for compliance reviews (a reviewer's key: compliance:review). */
import { REVIEW_SCOPE } from "../../principal.js";
import { bodyInput, queryVariables, restOperation, type PathLookup, type Route } from "../../rest/route.js";
import { getReview } from "./reviews.service.js";

const REVIEWER = "reviewer_id: id name email";
const EXPLANATION = `explanation { name { score pairs { given listed similarity } unpairedGiven unpairedListed reordered }
  dateOfBirth { given listed verdict } nationality { given listed verdict } alias { matched primary weak } }`;
const HIT = `hit_id: id checkId list listVersion entryId entryName entryNames matchedName score status reasons programs ${EXPLANATION} decision`;
const REVIEW = `review_id: id userId type status riskScore checkId reasons screened { firstName middleName lastName dateOfBirth nationality }
  hits { ${HIT} } assignee { ${REVIEWER} } outcome reasonCode note decidedBy { ${REVIEWER} } decidedAt approvedBy { ${REVIEWER} } approvedAt
  decisionCheckId createdAt updatedAt`;
/** A page of the queue: each review with its hits named, not explained (GET one review for that). */
const QUEUED = `review_id: id userId type status riskScore checkId reasons screened { firstName middleName lastName dateOfBirth nationality }
  hits { hit_id: id entryId entryName matchedName score status decision } assignee { ${REVIEWER} } outcome reasonCode decidedBy { ${REVIEWER} } decidedAt
  approvedBy { ${REVIEWER} } approvedAt createdAt updatedAt`;
const REVIEW_QUERY = ["status", "type", "assignee"];
const reviewId = (params: Record<string, string>) => ({ reviewId: params.review_id });
const review: PathLookup = (ctx, params) => getReview(ctx, params.review_id, { select: { id: true } });

export const reviewsRoutes: Route[] = [
  {
    method: "GET",
    path: "/v2/reviews",
    summary: "The client's reviews, highest risk first, then oldest (status: comma-separated; assignee: me, none or a reviewer id)",
    scope: REVIEW_SCOPE,
    list: true,
    queryParams: REVIEW_QUERY,
    operation: restOperation(`query Reviews($first: Int, $after: String, $status: [ReviewStatus!], $type: CheckType, $assignee: String) {
      reviews(first: $first, after: $after, status: $status, type: $type, assignee: $assignee) { totalCount edges { node { ${QUEUED} } } } }`),
    variables: (req) => queryVariables(req, REVIEW_QUERY),
    field: "reviews",
  },
  {
    method: "GET",
    path: "/v2/reviews/reason-codes",
    summary: "The configured reason codes a decision may give, with the outcomes each may be given with",
    scope: REVIEW_SCOPE,
    operation: restOperation(`query ReviewReasonCodes { reviewReasonCodes { code label outcomes } }`),
    variables: () => ({}),
    field: "reviewReasonCodes",
  },
  {
    method: "GET",
    path: "/v2/reviews/{review_id}",
    summary: "One review: its hits with their explanations, the screened data and the list entries",
    scope: REVIEW_SCOPE,
    operation: restOperation(`query Review($id: ID!) { review(id: $id) { ${REVIEW} } }`),
    lookup: review,
    variables: (req) => ({ id: req.params.review_id }),
    field: "review",
  },
  {
    method: "POST",
    path: "/v2/reviews/{review_id}/assign",
    summary: "Assign the review to a reviewer of the client (assignee_id; left out, the caller)",
    scope: REVIEW_SCOPE,
    operation: restOperation(`mutation AssignReview($input: AssignReviewInput!) { assignReview(input: $input) { ${REVIEW} } }`),
    lookup: review,
    variables: (req) => ({ input: bodyInput(req, reviewId(req.params)) }),
    field: "assignReview",
  },
  {
    method: "POST",
    path: "/v2/reviews/{review_id}/decision",
    summary:
      "Decide the review: outcome CLEAR, REJECT or ESCALATE, a configured reason_code, a note and each hit's decision; REJECT and the CLEAR of a HIGH-risk user wait for a second reviewer",
    scope: REVIEW_SCOPE,
    operation: restOperation(`mutation DecideReview($input: DecideReviewInput!) { decideReview(input: $input) { ${REVIEW} } }`),
    lookup: review,
    variables: (req) => ({ input: bodyInput(req, reviewId(req.params)) }),
    field: "decideReview",
  },
  {
    method: "POST",
    path: "/v2/reviews/{review_id}/approve",
    summary: "A second, different reviewer approves a decision waiting in PENDING_APPROVAL: it takes effect",
    scope: REVIEW_SCOPE,
    operation: restOperation(`mutation ApproveReview($input: ApproveReviewInput!) { approveReview(input: $input) { ${REVIEW} } }`),
    lookup: review,
    variables: (req) => ({ input: bodyInput(req, reviewId(req.params)) }),
    field: "approveReview",
  },
];

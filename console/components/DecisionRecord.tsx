import type { Review } from "../graphql/types.ts";
import { dateTime, OUTCOMES } from "../format.ts";
import { useWorkspace } from "../workspace-context.ts";

/** The decision taken on a review, and its approval once given. */
export function DecisionRecord({ review }: { review: Review }) {
  const { reasonCodes } = useWorkspace();
  if (!review.outcome) return null;
  const reason = reasonCodes.find((r) => r.code === review.reasonCode)?.label ?? review.reasonCode;
  return (
    <section class="record" aria-label="The decision">
      <h3>Decision</h3>
      <dl class="facts">
        <dt>Outcome</dt>
        <dd>{OUTCOMES[review.outcome]}</dd>
        <dt>Reason</dt>
        <dd>{reason}</dd>
        {review.note && (
          <>
            <dt>Note</dt>
            <dd>{review.note}</dd>
          </>
        )}
        <dt>Decided by</dt>
        <dd>
          {review.decidedBy?.name ?? "—"}
          {review.decidedAt && `, ${dateTime(review.decidedAt)}`}
        </dd>
        {review.approvedBy && (
          <>
            <dt>Approved by</dt>
            <dd>
              {review.approvedBy.name}
              {review.approvedAt && `, ${dateTime(review.approvedAt)}`}
            </dd>
          </>
        )}
      </dl>
    </section>
  );
}

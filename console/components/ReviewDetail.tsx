import { useMutation, useQuery } from "@urql/preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { type Problem, problemOf } from "../graphql/errors.ts";
import { ASSIGN_TO_ME, REVIEW } from "../graphql/operations.ts";
import type { Review } from "../graphql/types.ts";
import { CHECK_TYPES, dateTime, fullName, HIT_DECISIONS, STATUSES } from "../format.ts";
import { useRefetchOn } from "../hooks/use-refetch-on.ts";
import { useWorkspace } from "../workspace-context.ts";
import { ApprovalForm } from "./ApprovalForm.tsx";
import { RiskBadge, StatusBadge } from "./Badges.tsx";
import { DecisionForm } from "./DecisionForm.tsx";
import { DecisionRecord } from "./DecisionRecord.tsx";
import { ErrorNotice } from "./ErrorNotice.tsx";
import { HitCard } from "./HitCard.tsx";

const UNDECIDED = new Set(["OPEN", "ESCALATED"]);

/** What a decision or an approval did, in words. */
const afterwards = (review: Review) =>
  review.status === "PENDING_APPROVAL"
    ? "Decision recorded. It takes effect once a second reviewer approves it."
    : review.status === "ESCALATED"
      ? "Escalated: any reviewer may now decide it."
      : "Done: the decision has taken effect and the review is closed.";

/** One review, opened: the person screened, each hit beside its list entry, and what can be done next. */
export function ReviewDetail({ id }: { id: string }) {
  const { tick } = useWorkspace();
  const [{ data, error }, reexecute] = useQuery({ query: REVIEW, variables: { id }, requestPolicy: "cache-and-network" });
  useRefetchOn(tick, reexecute);
  const [notice, setNotice] = useState<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const noticeRef = useRef<HTMLParagraphElement>(null);
  const review = data?.review;
  // the reviewer chose it: take them to it (once, when it has loaded)
  const loaded = !!review;
  useEffect(() => {
    if (loaded) heading.current?.focus();
  }, [loaded]);
  useEffect(() => {
    if (notice) noticeRef.current?.focus();
  }, [notice]);

  if (error && !review) return <ErrorNotice title="The review could not be read" problem={problemOf(error)} />;
  if (!review)
    return (
      <p class="placeholder" role="status">
        Loading the review…
      </p>
    );
  const done = (after: Review) => setNotice(afterwards(after));
  return (
    <article class="review" aria-labelledby="review-title">
      <header class="review__header">
        <h2 id="review-title" ref={heading} tabIndex={-1}>
          {fullName(review.screened)}
        </h2>
        <p class="review__tags">
          <RiskBadge score={review.riskScore} /> <StatusBadge status={review.status} /> {CHECK_TYPES[review.type]}
        </p>
      </header>
      {notice && (
        <p class="notice notice--success" role="status" tabIndex={-1} ref={noticeRef}>
          {notice}
        </p>
      )}
      <ReviewFacts review={review} />
      {UNDECIDED.has(review.status) ? (
        <>
          {review.hits.length === 0 && <p class="hint">No list hits: decide on the reasons above.</p>}
          <DecisionForm review={review} onDecided={done} />
        </>
      ) : (
        <>
          {review.hits.map((hit, index) => (
            <HitCard key={hit.id} hit={hit} index={index} screened={review.screened}>
              {hit.decision && <p class="hit__decided">Decided: {HIT_DECISIONS[hit.decision]}</p>}
            </HitCard>
          ))}
          <DecisionRecord review={review} />
          {review.status === "PENDING_APPROVAL" && <ApprovalForm review={review} onApproved={done} />}
        </>
      )}
    </article>
  );
}

/** The review's facts: the person as screened, when it opened, who holds it, why it opened. */
function ReviewFacts({ review }: { review: Review }) {
  const { screened } = review;
  return (
    <section class="review__facts" aria-label="The person screened">
      <dl class="facts">
        <dt>Date of birth</dt>
        <dd>{screened.dateOfBirth ?? "—"}</dd>
        <dt>Nationality</dt>
        <dd>{screened.nationality ?? "—"}</dd>
        <dt>User</dt>
        <dd>
          <code>{review.userId}</code>
        </dd>
        <dt>Opened</dt>
        <dd>{dateTime(review.createdAt)}</dd>
        <dt>Status</dt>
        <dd>{STATUSES[review.status]}</dd>
        <dt>Assigned to</dt>
        <dd>
          <Assignee review={review} />
        </dd>
      </dl>
      {review.reasons.length > 0 && (
        <>
          <h3>Why it opened</h3>
          <ul class="reasons">
            {review.reasons.map((reason) => (
              <li key={reason}>{reason}</li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

function Assignee({ review }: { review: Review }) {
  const { me } = useWorkspace();
  const [{ fetching }, assign] = useMutation(ASSIGN_TO_ME);
  const [problem, setProblem] = useState<Problem | null>(null);
  const mine = review.assignee?.id === me.id;
  const take = async () => {
    const result = await assign({ reviewId: review.id });
    setProblem(result.error ? problemOf(result.error) : null);
  };
  return (
    <>
      {review.assignee ? (mine ? "You" : review.assignee.name) : "Nobody"}
      {!mine && UNDECIDED.has(review.status) && (
        <button type="button" class="button button--small" disabled={fetching} onClick={take}>
          Assign to me
        </button>
      )}
      {problem && <ErrorNotice title="Not assigned" problem={problem} />}
    </>
  );
}

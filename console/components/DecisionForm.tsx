import { useMutation } from "@urql/preact";
import { useId, useState } from "preact/hooks";
import { type Problem, problemOf } from "../graphql/errors.ts";
import { DECIDE_REVIEW } from "../graphql/operations.ts";
import type { HitDecision, Review, ReviewOutcome } from "../graphql/types.ts";
import { HIT_DECISIONS, OUTCOMES } from "../format.ts";
import { useWorkspace } from "../workspace-context.ts";
import { ErrorNotice } from "./ErrorNotice.tsx";
import { HitCard } from "./HitCard.tsx";

type Decisions = Record<string, HitDecision | undefined>;

/** What the rules (docs/reviews.md) ask of a decision before the server is asked; null when it may be sent. */
function ruleProblem(outcome: ReviewOutcome | null, reasonCode: string, review: Review, decisions: Decisions): string | null {
  if (!outcome) return "Choose an outcome.";
  const decided = review.hits.map((hit) => decisions[hit.id]);
  if (outcome === "CLEAR" && decided.some((d) => d !== "FALSE_POSITIVE")) return "To clear the review, mark every hit as a false positive.";
  if (outcome === "REJECT" && review.hits.length > 0) {
    if (decided.includes(undefined)) return "To reject, decide every hit.";
    if (!decided.includes("TRUE_MATCH")) return "To reject, mark at least one hit as a true match.";
  }
  if (!reasonCode) return "Choose a reason.";
  return null;
}

const OUTCOME_HINTS: Record<ReviewOutcome, string> = {
  CLEAR: "Every hit is a false positive. Clearing a high-risk user takes effect once a second reviewer approves.",
  REJECT: "At least one hit is the listed person. A rejection takes effect once a second, different reviewer approves it.",
  ESCALATE: "Hand the review on: any reviewer may then decide it.",
};

function HitDecisionChoice({ hitId, decision, onDecide }: { hitId: string; decision: HitDecision | undefined; onDecide: (d: HitDecision) => void }) {
  return (
    <fieldset class="choice choice--hit">
      <legend>Your decision on this hit</legend>
      {(Object.keys(HIT_DECISIONS) as HitDecision[]).map((d) => (
        <label key={d} class="choice__option">
          <input type="radio" name={`hit-${hitId}`} value={d} checked={decision === d} onChange={() => onDecide(d)} />
          {HIT_DECISIONS[d]}
        </label>
      ))}
    </fieldset>
  );
}

/** The decision on an undecided review: one per hit, the outcome, a configured reason code, a note. */
export function DecisionForm({ review, onDecided }: { review: Review; onDecided: (review: Review) => void }) {
  const { reasonCodes } = useWorkspace();
  const [decisions, setDecisions] = useState<Decisions>(() => Object.fromEntries(review.hits.map((hit) => [hit.id, hit.decision ?? undefined])));
  const [outcome, setOutcome] = useState<ReviewOutcome | null>(null);
  const [reasonCode, setReasonCode] = useState("");
  const [note, setNote] = useState("");
  const [problem, setProblem] = useState<Problem | null>(null);
  const [{ fetching }, decide] = useMutation(DECIDE_REVIEW);
  const ids = { reason: useId(), note: useId(), hint: useId() };
  const reasons = outcome ? reasonCodes.filter((r) => r.outcomes.includes(outcome)) : [];

  const chooseOutcome = (o: ReviewOutcome) => {
    setOutcome(o);
    if (!reasonCodes.some((r) => r.code === reasonCode && r.outcomes.includes(o))) setReasonCode("");
  };
  const submit = async (event: Event) => {
    event.preventDefault();
    const refused = ruleProblem(outcome, reasonCode, review, decisions);
    if (refused) return setProblem({ code: "NOT_READY", message: refused });
    setProblem(null);
    const hits = review.hits.flatMap((hit) => (decisions[hit.id] ? [{ hitId: hit.id, decision: decisions[hit.id]! }] : []));
    const result = await decide({ reviewId: review.id, outcome: outcome!, reasonCode, note: note.trim() || null, hits });
    if (result.error) setProblem(problemOf(result.error));
    else if (result.data) onDecided(result.data.decideReview);
  };

  return (
    <form class="decision" onSubmit={submit} noValidate>
      {review.hits.map((hit, index) => (
        <HitCard key={hit.id} hit={hit} index={index} screened={review.screened}>
          <HitDecisionChoice hitId={hit.id} decision={decisions[hit.id]} onDecide={(d) => setDecisions({ ...decisions, [hit.id]: d })} />
        </HitCard>
      ))}
      <section class="decision__outcome" aria-label="Decision">
        <h3>Decision</h3>
        <fieldset class="choice" aria-describedby={ids.hint}>
          <legend>Outcome</legend>
          {(Object.keys(OUTCOMES) as ReviewOutcome[]).map((o) => (
            <label key={o} class="choice__option">
              <input type="radio" name="outcome" value={o} checked={outcome === o} onChange={() => chooseOutcome(o)} />
              {OUTCOMES[o]}
            </label>
          ))}
        </fieldset>
        <p id={ids.hint} class="hint">
          {outcome ? OUTCOME_HINTS[outcome] : "Decide each hit, then choose an outcome."}
        </p>
        <div class="field">
          <label for={ids.reason}>Reason</label>
          <select id={ids.reason} value={reasonCode} disabled={!outcome} onChange={(event) => setReasonCode(event.currentTarget.value)}>
            <option value="">{outcome ? "Choose a reason" : "Choose an outcome first"}</option>
            {reasons.map((r) => (
              <option key={r.code} value={r.code}>
                {r.label}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for={ids.note}>Note (optional)</label>
          <textarea id={ids.note} rows={3} maxLength={2000} value={note} onInput={(event) => setNote(event.currentTarget.value)} />
        </div>
        {problem && <ErrorNotice title="The decision was not recorded" problem={problem} />}
        <button type="submit" class="button button--primary" disabled={fetching}>
          {fetching ? "Recording…" : "Record decision"}
        </button>
      </section>
    </form>
  );
}

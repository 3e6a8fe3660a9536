import { useMutation } from "@urql/preact";
import { useId, useState } from "preact/hooks";
import { type Problem, problemOf } from "../graphql/errors.ts";
import { APPROVE_REVIEW } from "../graphql/operations.ts";
import type { Review } from "../graphql/types.ts";
import { useWorkspace } from "../workspace-context.ts";
import { ErrorNotice } from "./ErrorNotice.tsx";

/** Four eyes: a second, different reviewer approves a decision awaiting approval. */
export function ApprovalForm({ review, onApproved }: { review: Review; onApproved: (review: Review) => void }) {
  const { me } = useWorkspace();
  const [note, setNote] = useState("");
  const [problem, setProblem] = useState<Problem | null>(null);
  const [{ fetching }, approve] = useMutation(APPROVE_REVIEW);
  const noteId = useId();
  if (review.decidedBy?.id === me.id)
    return <p class="notice notice--info">You decided this review: a different reviewer must approve it before it takes effect.</p>;
  const submit = async (event: Event) => {
    event.preventDefault();
    setProblem(null);
    const result = await approve({ reviewId: review.id, note: note.trim() || null });
    if (result.error) setProblem(problemOf(result.error));
    else if (result.data) onApproved(result.data.approveReview);
  };
  const what = review.outcome === "REJECT" ? "rejection" : "clearance";
  return (
    <form class="approval" onSubmit={submit}>
      <h3>Second review</h3>
      <p class="hint">Approving makes the {what} take effect on the user.</p>
      <div class="field">
        <label for={noteId}>Approval note (optional)</label>
        <textarea id={noteId} rows={2} maxLength={2000} value={note} onInput={(event) => setNote(event.currentTarget.value)} />
      </div>
      {problem && <ErrorNotice title="The approval was not recorded" problem={problem} />}
      <button type="submit" class="button button--primary" disabled={fetching}>
        {fetching ? "Approving…" : `Approve the ${what}`}
      </button>
    </form>
  );
}

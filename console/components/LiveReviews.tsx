import { useSubscription } from "@urql/preact";
import { problemOf } from "../graphql/errors.ts";
import { REVIEW_UPDATED } from "../graphql/operations.ts";
import type { ReviewSummary } from "../graphql/types.ts";
import { ErrorNotice } from "./ErrorNotice.tsx";

/**
 * Listens to `reviewUpdated` while the console is open: every review of the client as it opens or
 * changes. A connection the server ends for good (the key revoked) is said, not retried in silence.
 */
export function LiveReviews({ onReview }: { onReview: (review: ReviewSummary) => void }) {
  const [{ error }] = useSubscription({ query: REVIEW_UPDATED }, (_previous, data) => {
    onReview(data.reviewUpdated);
    return data;
  });
  return error ? <ErrorNotice title="Live updates stopped: reload the page to try again" problem={problemOf(error)} /> : null;
}

import { useQuery } from "@urql/preact";
import { useEffect, useState } from "preact/hooks";
import { problemOf } from "../graphql/errors.ts";
import { REVIEWS, type ReviewFilter } from "../graphql/operations.ts";
import type { ReviewPage, ReviewSummary } from "../graphql/types.ts";
import { ago, CHECK_TYPES, fullName } from "../format.ts";
import { useNow } from "../hooks/use-now.ts";
import { useRefetchOn } from "../hooks/use-refetch-on.ts";
import { REVIEW_TYPENAMES, useWorkspace } from "../workspace-context.ts";
import { NewBadge, RiskBadge, StatusBadge } from "./Badges.tsx";
import { ErrorNotice } from "./ErrorNotice.tsx";

const PAGE_SIZE = 25;
type PageInfo = ReviewPage["pageInfo"];
type Selection = { selectedId: string | null; onSelect: (id: string) => void };

/** The reviews the filter picks, as the server orders them (highest risk, then oldest), a page at a time. */
export function ReviewList({ filter, ...selection }: { filter: ReviewFilter } & Selection) {
  const { tick } = useWorkspace();
  const [first, reexecute] = useQuery({ query: REVIEWS, variables: { ...filter, first: PAGE_SIZE, after: null }, context: REVIEW_TYPENAMES });
  useRefetchOn(tick, reexecute);
  // the cursors of the pages after the first, and what the last of them said of the next
  const [cursors, setCursors] = useState<string[]>([]);
  const [lastPage, setLastPage] = useState<PageInfo | null>(null);
  const page = first.data?.reviews;
  const next = cursors.length ? lastPage : page?.pageInfo;

  if (first.error) return <ErrorNotice title="The reviews could not be read" problem={problemOf(first.error)} />;
  if (!page)
    return (
      <p class="placeholder" role="status">
        Loading reviews…
      </p>
    );
  const showMore = () => {
    const after = next?.endCursor;
    if (after && !cursors.includes(after)) setCursors([...cursors, after]);
  };
  return (
    <>
      <p class="list-count" role="status">
        {page.totalCount === 0 ? "No reviews here." : `${page.totalCount} ${page.totalCount === 1 ? "review" : "reviews"}`}
      </p>
      {page.totalCount > 0 && (
        <ul class="review-list" aria-label="Reviews">
          <ReviewItems reviews={page.edges.map((e) => e.node)} {...selection} />
          {cursors.map((after, index) => (
            <LaterPage key={after} filter={filter} after={after} onPageInfo={index === cursors.length - 1 ? setLastPage : undefined} {...selection} />
          ))}
        </ul>
      )}
      {next?.hasNextPage && (
        <button type="button" class="button list-more" onClick={showMore}>
          Show more reviews
        </button>
      )}
    </>
  );
}

function LaterPage({ filter, after, onPageInfo, ...selection }: { filter: ReviewFilter; after: string; onPageInfo?: (info: PageInfo) => void } & Selection) {
  const { tick } = useWorkspace();
  const [result, reexecute] = useQuery({ query: REVIEWS, variables: { ...filter, first: PAGE_SIZE, after }, context: REVIEW_TYPENAMES });
  useRefetchOn(tick, reexecute);
  const info = result.data?.reviews.pageInfo;
  useEffect(() => {
    if (info) onPageInfo?.(info);
  }, [info, onPageInfo]);
  if (result.error)
    return (
      <li>
        <ErrorNotice title="More reviews could not be read" problem={problemOf(result.error)} />
      </li>
    );
  return <ReviewItems reviews={result.data?.reviews.edges.map((e) => e.node) ?? []} {...selection} />;
}

function ReviewItems({ reviews, selectedId, onSelect }: { reviews: ReviewSummary[] } & Selection) {
  const now = useNow();
  const { arrived } = useWorkspace();
  return (
    <>
      {reviews.map((review) => (
        <li key={review.id}>
          <ReviewItem review={review} now={now} selected={review.id === selectedId} arrived={arrived.has(review.id)} onSelect={onSelect} />
        </li>
      ))}
    </>
  );
}

function ReviewItem({
  review,
  now,
  selected,
  arrived,
  onSelect,
}: {
  review: ReviewSummary;
  now: number;
  selected: boolean;
  arrived: boolean;
  onSelect: (id: string) => void;
}) {
  const hits = review.hits.length;
  return (
    <button type="button" class="review-item" aria-current={selected ? "true" : undefined} onClick={() => onSelect(review.id)}>
      <span class="review-item__name">{fullName(review.screened)}</span>
      <span class="review-item__meta">
        {CHECK_TYPES[review.type]}
        {hits > 0 && ` · ${hits} ${hits === 1 ? "hit" : "hits"}`} · opened <time dateTime={review.createdAt}>{ago(review.createdAt, now)}</time>
      </span>
      <span class="review-item__tags">
        <RiskBadge score={review.riskScore} />
        <StatusBadge status={review.status} />
        <span class="review-item__assignee">{review.assignee ? `Assigned to ${review.assignee.name}` : "Unassigned"}</span>
        {arrived && <NewBadge />}
      </span>
    </button>
  );
}

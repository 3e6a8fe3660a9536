import { useQuery } from "@urql/preact";
import { useCallback, useEffect, useMemo, useState } from "preact/hooks";
import type { ConsoleClient, LiveState } from "../graphql/client.ts";
import { isRefusedKey, type Problem, problemOf } from "../graphql/errors.ts";
import { CURRENT_REVIEWER, REASON_CODES, type ReviewFilter } from "../graphql/operations.ts";
import type { ReasonCode, Reviewer, ReviewStatus, ReviewSummary } from "../graphql/types.ts";
import { CHECK_TYPES, fullName, STATUSES } from "../format.ts";
import { type Workspace as Shared, WorkspaceContext } from "../workspace-context.ts";
import { ConsoleHeader } from "./ConsoleHeader.tsx";
import { ErrorNotice } from "./ErrorNotice.tsx";
import { LiveReviews } from "./LiveReviews.tsx";
import { NO_FILTERS, type Filters, QueueFilters } from "./QueueFilters.tsx";
import { QueueSummary } from "./QueueSummary.tsx";
import { ReviewDetail } from "./ReviewDetail.tsx";
import { ReviewList } from "./ReviewList.tsx";
import { type View, ViewTabs } from "./ViewTabs.tsx";

const STATUSES_OF: Record<View, ReviewStatus[]> = { queue: ["OPEN", "ESCALATED"], approvals: ["PENDING_APPROVAL"], closed: ["CLOSED"] };

const filterOf = (view: View, filters: Filters): ReviewFilter => ({
  status: view === "queue" && filters.undecided !== "both" ? [filters.undecided] : STATUSES_OF[view],
  type: filters.type || null,
  assignee: filters.assignee || null,
});

/** The signed-in console: the key is checked first (a refused one goes back to the login). */
export function Workspace({ client, onLogOut }: { client: ConsoleClient; onLogOut: (refusal?: Problem) => void }) {
  const [reviewer] = useQuery({ query: CURRENT_REVIEWER });
  const [codes] = useQuery({ query: REASON_CODES });
  const refusal = reviewer.error ? problemOf(reviewer.error) : null;
  useEffect(() => {
    if (refusal && isRefusedKey(refusal)) onLogOut(refusal);
  }, [refusal?.code]);

  const failure = refusal ?? (codes.error ? problemOf(codes.error) : null);
  if (failure)
    return (
      <main class="login">
        <ErrorNotice title="The console could not start" problem={failure} />
        <button type="button" class="button" onClick={() => onLogOut()}>
          Log out
        </button>
      </main>
    );
  const me = reviewer.data?.currentReviewer;
  const reasonCodes = codes.data?.reviewReasonCodes;
  if (!me || !reasonCodes)
    return (
      <main class="login">
        <p role="status">Checking your key…</p>
      </main>
    );
  return <Queue client={client} me={me} reasonCodes={reasonCodes} onLogOut={() => onLogOut()} />;
}

function Queue({ client, me, reasonCodes, onLogOut }: { client: ConsoleClient; me: Reviewer; reasonCodes: ReasonCode[]; onLogOut: () => void }) {
  const [live, setLive] = useState<LiveState>("connecting");
  useEffect(() => client.onLiveState(setLive), [client]);
  const [view, setView] = useState<View>("queue");
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  const [arrived, setArrived] = useState<ReadonlySet<string>>(new Set());
  const [announcement, setAnnouncement] = useState("");

  const onReview = useCallback((review: ReviewSummary) => {
    const opened = review.status === "OPEN" && review.createdAt === review.updatedAt;
    if (opened) setArrived((known) => new Set(known).add(review.id));
    setAnnouncement(
      opened ? `New review: ${fullName(review.screened)}, ${CHECK_TYPES[review.type]}` : `${fullName(review.screened)}: ${STATUSES[review.status]}`,
    );
    setTick((t) => t + 1);
  }, []);
  const select = (id: string) => {
    setSelectedId(id);
    setArrived((known) => {
      const rest = new Set(known);
      rest.delete(id);
      return rest;
    });
  };
  const filter = filterOf(view, filters);
  const shared: Shared = useMemo(() => ({ me, reasonCodes, tick, arrived }), [me, reasonCodes, tick, arrived]);

  return (
    <WorkspaceContext.Provider value={shared}>
      <ConsoleHeader me={me} live={live} onLogOut={onLogOut} />
      <main class="workspace">
        <LiveReviews onReview={onReview} />
        <QueueSummary />
        <div class="columns">
          <section class="queue" aria-labelledby="queue-title">
            <h2 id="queue-title" class="visually-hidden">
              Reviews
            </h2>
            <ViewTabs view={view} onView={setView}>
              <QueueFilters filters={filters} showStatus={view === "queue"} onChange={setFilters} />
              <ReviewList key={JSON.stringify(filter)} filter={filter} selectedId={selectedId} onSelect={select} />
            </ViewTabs>
          </section>
          <section class="detail" aria-label="The review opened">
            {selectedId ? <ReviewDetail key={selectedId} id={selectedId} /> : <p class="placeholder">Choose a review from the list to open it here.</p>}
          </section>
        </div>
      </main>
      <p class="visually-hidden" role="status" aria-live="polite">
        {announcement}
      </p>
    </WorkspaceContext.Provider>
  );
}

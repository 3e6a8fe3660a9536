import type { ComponentChildren } from "preact";
import { useRef } from "preact/hooks";
import { useQueueCounts } from "../hooks/use-queue-counts.ts";

export type View = "queue" | "approvals" | "closed";

const VIEWS: { view: View; label: string }[] = [
  { view: "queue", label: "To decide" },
  { view: "approvals", label: "Awaiting approval" },
  { view: "closed", label: "Closed" },
];

/** The queue's three lists as tabs (WAI-ARIA tabs: arrow keys, Home and End move between them). */
export function ViewTabs({ view, onView, children }: { view: View; onView: (view: View) => void; children: ComponentChildren }) {
  const { data } = useQueueCounts();
  const counts = data?.reviewQueue;
  const countOf: Record<View, number | undefined> = {
    queue: counts && counts.open + counts.escalated,
    approvals: counts?.pendingApproval,
    closed: undefined,
  };
  const tabs = useRef<(HTMLButtonElement | null)[]>([]);
  const move = (event: KeyboardEvent, index: number) => {
    const last = VIEWS.length - 1;
    const to = { ArrowRight: index === last ? 0 : index + 1, ArrowLeft: index === 0 ? last : index - 1, Home: 0, End: last }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    onView(VIEWS[to]!.view);
    tabs.current[to]?.focus();
  };
  return (
    <>
      <div class="tabs" role="tablist" aria-label="Reviews">
        {VIEWS.map(({ view: v, label }, index) => (
          <button
            key={v}
            ref={(el) => {
              tabs.current[index] = el;
            }}
            type="button"
            role="tab"
            id={`tab-${v}`}
            class="tabs__tab"
            aria-selected={view === v}
            aria-controls="review-list-panel"
            tabIndex={view === v ? 0 : -1}
            onClick={() => onView(v)}
            onKeyDown={(event) => move(event, index)}
          >
            {label}
            {countOf[v] !== undefined && <span class="tabs__count"> ({countOf[v]})</span>}
          </button>
        ))}
      </div>
      <div class="tabs__panel" role="tabpanel" id="review-list-panel" aria-labelledby={`tab-${view}`}>
        {children}
      </div>
    </>
  );
}

import { problemOf } from "../graphql/errors.ts";
import { age } from "../format.ts";
import { useNow } from "../hooks/use-now.ts";
import { useQueueCounts } from "../hooks/use-queue-counts.ts";
import { ErrorNotice } from "./ErrorNotice.tsx";

/** Counts and ages at a glance. */
export function QueueSummary() {
  const { data, error } = useQueueCounts();
  const now = useNow();
  if (error) return <ErrorNotice title="The queue's counts could not be read" problem={problemOf(error)} />;
  const counts = data?.reviewQueue;
  const figures: [string, string][] = [
    ["Open", counts ? String(counts.open) : "…"],
    ["Escalated", counts ? String(counts.escalated) : "…"],
    ["Awaiting approval", counts ? String(counts.pendingApproval) : "…"],
    ["Oldest open", counts ? (counts.oldestOpenAt ? age(counts.oldestOpenAt, now) : "none") : "…"],
  ];
  return (
    <section class="summary" aria-label="The queue at a glance">
      <dl class="summary__figures">
        {figures.map(([label, value]) => (
          <div class="summary__figure" key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

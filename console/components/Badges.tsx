/** Short labels, each in words as well as colour. */
import type { ReviewStatus } from "../graphql/types.ts";
import { riskBand, STATUSES } from "../format.ts";

export function StatusBadge({ status }: { status: ReviewStatus }) {
  return <span class={`badge badge--status-${status.toLowerCase().replace("_", "-")}`}>{STATUSES[status]}</span>;
}

export function RiskBadge({ score }: { score: number }) {
  const band = riskBand(score);
  return (
    <span class={`badge badge--risk-${band}`}>
      Risk {score}
      <span class="visually-hidden"> of 100, {band}</span>
    </span>
  );
}

/** A review that opened while the console was open, not opened yet. */
export function NewBadge() {
  return <span class="badge badge--new">New</span>;
}

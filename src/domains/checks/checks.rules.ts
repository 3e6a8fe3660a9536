/** Check runs (SPEC 7), pure: the types a verification starts and the risk assessment derived from runs. */
import type { CheckStatus, CheckType } from "../../../generated/prisma/enums.js";

export const CHECK_TYPES: CheckType[] = ["KYC", "SANCTIONS_SCREENING", "TRANSACTION_MONITORING"];

export type RiskAssessment = "UNKNOWN" | "PENDING" | "CLEARED" | "REJECTED";
type Run = { type: CheckType; status: CheckStatus; createdAt: Date };

/**
 * SPEC 2, from the latest run of each type the user has had: none → UNKNOWN; a confirmed hit
 * (REJECTED) → REJECTED; all CLEAR → CLEARED; otherwise PENDING: queued or running, and also a
 * possible match (CONSIDER) or a failed run (ERROR), which wait for a result or a retry.
 */
export function riskAssessmentStatus(runs: Run[]): RiskAssessment {
  const latest = new Map<CheckType, Run>();
  for (const run of runs) {
    const seen = latest.get(run.type);
    if (!seen || run.createdAt.getTime() > seen.createdAt.getTime()) latest.set(run.type, run);
  }
  if (!latest.size) return "UNKNOWN";
  const statuses = [...latest.values()].map((r) => r.status);
  if (statuses.includes("REJECTED")) return "REJECTED";
  return statuses.every((s) => s === "CLEAR") ? "CLEARED" : "PENDING";
}

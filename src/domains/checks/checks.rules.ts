/** Check runs (SPEC 7), pure: the types a verification starts and the risk assessment derived from runs. */
import type { CheckStatus, CheckType } from "../../../generated/prisma/enums.js";

export const CHECK_TYPES: CheckType[] = ["KYC", "SANCTIONS_SCREENING", "TRANSACTION_MONITORING"];

export type RiskAssessment = "UNKNOWN" | "PENDING" | "CLEARED" | "REJECTED";
type Run = { type: CheckType; status: CheckStatus; createdAt: Date };

/** The runs riskAssessmentStatus reads, as a Prisma select of User.checks: the latest of each type. */
export const LATEST_CHECK_PER_TYPE = {
  select: { type: true as const, status: true as const, createdAt: true as const }, orderBy: { createdAt: "desc" as const }, distinct: ["type" as const],
};

/**
 * SPEC 2, from the latest run of each type the user has had: none → UNKNOWN; a confirmed hit
 * (REJECTED) → REJECTED; all CLEAR → CLEARED; otherwise PENDING: queued or running, and also a
 * possible match (CONSIDER) or a failed run (ERROR), which wait for a result or a retry.
 */
export function riskAssessmentStatus(runs: Run[]): RiskAssessment {
  const latest = latestByType(runs);
  if (!latest.size) return "UNKNOWN";
  const statuses = [...latest.values()].map((r) => r.status);
  if (statuses.includes("REJECTED")) return "REJECTED";
  return statuses.every((s) => s === "CLEAR") ? "CLEARED" : "PENDING";
}

/** What a provider reports for one run; `score` is the run's risk in 0..1 (a match score, a profile risk). */
export type CheckOutcome = {
  status: Exclude<CheckStatus, "QUEUED" | "RUNNING">;
  score: number;
  reasons: string[];
  matches: unknown[];
  /** who decided: a built-in provider's name, or `upstream` for a posted result */
  provider: string;
};

type Completed = { type: CheckType; status: CheckStatus; createdAt: Date; result?: unknown };

/** The newest run of each type (runs of one user). */
export function latestByType<R extends { type: CheckType; createdAt: Date }>(runs: readonly R[]): Map<CheckType, R> {
  const latest = new Map<CheckType, R>();
  for (const run of runs) {
    const seen = latest.get(run.type);
    if (!seen || run.createdAt.getTime() > seen.createdAt.getTime()) latest.set(run.type, run);
  }
  return latest;
}

const scoreOf = (run: Completed) => Number((run.result as { score?: unknown } | null)?.score ?? 0) || 0;

/**
 * risk_score (0–100) from the latest completed run of each type: a confirmed hit is 100, a possible
 * sanctions or monitoring match at least 70, KYC owing something its score (40), a clear monitoring
 * run its profile risk (jurisdictions); a clear name or KYC check adds nothing. risk_level: HIGH
 * from 70, MEDIUM from 40, else LOW.
 */
export function riskOf(latest: Iterable<Completed>): { riskScore: number; riskLevel: "LOW" | "MEDIUM" | "HIGH" } | null {
  let riskScore: number | null = null;
  for (const run of latest) {
    const part = run.status === "REJECTED" ? 100
      : run.status === "CONSIDER" ? Math.max(run.type === "KYC" ? 0 : 70, Math.round(scoreOf(run) * 100))
      : run.status === "CLEAR" && run.type === "TRANSACTION_MONITORING" ? Math.round(scoreOf(run) * 100)
      : run.status === "CLEAR" ? 0 : null;
    if (part !== null) riskScore = Math.max(riskScore ?? 0, Math.min(100, part));
  }
  if (riskScore === null) return null;
  return { riskScore, riskLevel: riskScore >= 70 ? "HIGH" : riskScore >= 40 ? "MEDIUM" : "LOW" };
}

type UserStatusValue = "PENDING" | "IN_REVIEW" | "ACTIVE" | "REJECTED" | "SUSPENDED" | "CLOSED";
type KycValue = "NOT_STARTED" | "PENDING" | "APPROVED" | "NEEDS_REVIEW" | "REJECTED";

/**
 * Where the user's status and kyc_status go once a run completed (SPEC 2, 5), from the latest run of
 * each type. A confirmed hit rejects a user in review and suspends an active one; a possible match
 * waits for a posted result (NEEDS_REVIEW), and a possible sanctions match suspends an active user
 * meanwhile; all three clear approves a user in review and lifts a suspension. A user who has not
 * submitted verification (PENDING) or is closed or rejected keeps its status; only its risk moves.
 */
export function statusAfterChecks(status: UserStatusValue, latest: Map<CheckType, Completed>): { status: UserStatusValue; kycStatus: KycValue } | null {
  if (status === "PENDING" || status === "CLOSED" || status === "REJECTED") return null;
  const runs = [...latest.values()];
  if (runs.some((r) => r.status === "REJECTED"))
    return { status: status === "IN_REVIEW" ? "REJECTED" : status === "ACTIVE" ? "SUSPENDED" : status, kycStatus: "REJECTED" };
  if (runs.some((r) => r.status === "CONSIDER")) {
    const sanctions = latest.get("SANCTIONS_SCREENING")?.status === "CONSIDER";
    return { status: status === "ACTIVE" && sanctions ? "SUSPENDED" : status, kycStatus: "NEEDS_REVIEW" };
  }
  const allClear = CHECK_TYPES.every((type) => latest.get(type)?.status === "CLEAR");
  if (allClear) return { status: status === "IN_REVIEW" || status === "SUSPENDED" ? "ACTIVE" : status, kycStatus: "APPROVED" };
  return null; // queued, running or failed runs: nothing decided yet
}

/** Which checks a change to these user fields calls for (SPEC 2: every change to user information). */
const SCREENED_FIELDS = new Set(["firstName", "middleName", "lastName", "dateOfBirth", "nationality"]);
const PROFILE_FIELDS = new Set(["nationality", "countryOfResidence", "residentialAddress", "billingAddress"]);
const NOT_INFORMATION = new Set(["status", "locale", "externalId"]);

export function checksForChange(fields: readonly string[]): CheckType[] {
  const information = fields.filter((f) => !NOT_INFORMATION.has(f));
  if (!information.length) return [];
  return CHECK_TYPES.filter((type) =>
    type === "KYC" ? true : type === "SANCTIONS_SCREENING" ? information.some((f) => SCREENED_FIELDS.has(f)) : information.some((f) => PROFILE_FIELDS.has(f)));
}

/** The event a completed run of a type raises (SPEC 8). */
export const CHECK_EVENT = {
  KYC: "check.kyc.updated",
  SANCTIONS_SCREENING: "check.sanctions_screening.updated",
  TRANSACTION_MONITORING: "check.transaction_monitoring.updated",
} as const satisfies Record<CheckType, string>;

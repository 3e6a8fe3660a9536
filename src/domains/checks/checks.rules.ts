/** Check runs, pure: the types a verification starts and the risk assessment derived from runs. */
import type { CheckDecider, CheckStatus, CheckType } from "../../../generated/prisma/enums.js";
import { texts } from "../../lib/json-bounds.js";

export const CHECK_TYPES: CheckType[] = ["KYC", "SANCTIONS_SCREENING", "TRANSACTION_MONITORING"];

export type RiskAssessment = "UNKNOWN" | "PENDING" | "CLEARED" | "REJECTED";
/** A run as the assessment reads it; `decidedBy` absent or null reads as an automatic run's (SYSTEM). */
type Run = { type: CheckType; status: CheckStatus; createdAt: Date; completedAt?: Date | null; decidedBy?: CheckDecider | null; result?: unknown };

/**
 * The runs the assessment reads, as a Prisma select of User.checks: the latest run of each type by
 * each decider (a queued or running run has none yet). That is enough for `assessByType`: the latest
 * run, the latest completed run and the standing decision of each type are among them.
 */
export const ASSESSED_CHECKS = {
  select: { id: true as const, type: true as const, status: true as const, createdAt: true as const, completedAt: true as const, decidedBy: true as const },
  orderBy: { createdAt: "desc" as const },
  distinct: ["type" as const, "decidedBy" as const],
};

/**
 * The risk assessment status, from the verdict on each type the user has had runs of (assessByType): none → UNKNOWN; a
 * confirmed hit (REJECTED) → REJECTED; all CLEAR → CLEARED; otherwise PENDING: queued or running,
 * and also a possible match (CONSIDER) or a failed run (ERROR), which wait for a result or a retry.
 */
export function riskAssessmentStatus(runs: Run[]): RiskAssessment {
  const assessed = assessByType(runs);
  if (!assessed.size) return "UNKNOWN";
  const statuses = [...assessed.values()].map((a) => a.verdict.status);
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
function latestByType<R extends { type: CheckType; createdAt: Date }>(runs: readonly R[]): Map<CheckType, R> {
  const latest = new Map<CheckType, R>();
  for (const run of runs) {
    const seen = latest.get(run.type);
    if (!seen || run.createdAt.getTime() > seen.createdAt.getTime()) latest.set(run.type, run);
  }
  return latest;
}

/**
 * What the runs of one type say. `standing`: the decision that stands, a person's newest (OPERATOR),
 * else a provider's newest (PROVIDER): only a person changes a person's decision. `verdict`: the
 * run the user's status and kyc_status follow, the standing decision unless a run completed after it
 * is more severe (an automatic run may add a hit, never clear one), or one still to complete could
 * be. `weighed`: the runs its risk score is the highest of, the standing decision's included.
 */
export type Assessment<R> = { standing: R | null; verdict: R; weighed: R[] };

const SEVERITY: Record<CheckStatus, number> = { QUEUED: 0, RUNNING: 0, ERROR: 0, CLEAR: 1, CONSIDER: 2, REJECTED: 3 };
const PERSON_FIRST: readonly CheckDecider[] = ["OPERATOR", "PROVIDER"];
const isPending = (run: Run) => run.status === "QUEUED" || run.status === "RUNNING";
const timeOf = (at: Date | null | undefined) => at?.getTime() ?? 0;

/** Per type, from runs of one user (all of them, or the latest of each type and decider: ASSESSED_CHECKS). */
export function assessByType<R extends Run>(runs: readonly R[]): Map<CheckType, Assessment<R>> {
  const out = new Map<CheckType, Assessment<R>>();
  for (const [type, latest] of latestByType(runs)) {
    const own = runs.filter((r) => r.type === type);
    const latestCompleted = latestByType(own.filter((r) => !isPending(r))).get(type) ?? null;
    const standing = PERSON_FIRST.map((by) => latestByType(own.filter((r) => r.decidedBy === by)).get(type)).find(Boolean) ?? null;
    if (!standing) {
      out.set(type, { standing, verdict: latest, weighed: latestCompleted ? [latestCompleted] : [] });
      continue;
    }
    // a run the decision was made after (the person saw it) is superseded; one completed since, or still to complete, is not
    const since = (run: R | null): run is R => !!run && run !== standing && (isPending(run) || timeOf(run.completedAt) > timeOf(standing.completedAt));
    const verdict = !since(latest)
      ? standing
      : isPending(latest)
        ? standing.status === "REJECTED"
          ? standing
          : latest
        : SEVERITY[latest.status] > SEVERITY[standing.status]
          ? latest
          : standing;
    out.set(type, { standing, verdict, weighed: since(latestCompleted) ? [standing, latestCompleted] : [standing] });
  }
  return out;
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
    const part =
      run.status === "REJECTED"
        ? 100
        : run.status === "CONSIDER"
          ? Math.max(run.type === "KYC" ? 0 : 70, Math.round(scoreOf(run) * 100))
          : run.status === "CLEAR" && run.type === "TRANSACTION_MONITORING"
            ? Math.round(scoreOf(run) * 100)
            : run.status === "CLEAR"
              ? 0
              : null;
    if (part !== null) riskScore = Math.max(riskScore ?? 0, Math.min(100, part));
  }
  if (riskScore === null) return null;
  return { riskScore, riskLevel: riskScore >= 70 ? "HIGH" : riskScore >= 40 ? "MEDIUM" : "LOW" };
}

type UserStatusValue = "PENDING" | "IN_REVIEW" | "ACTIVE" | "REJECTED" | "SUSPENDED" | "CLOSED";
type KycValue = "NOT_STARTED" | "PENDING" | "APPROVED" | "NEEDS_REVIEW" | "REJECTED";

/**
 * Where the user's status and kyc_status go once a run completed, from the verdict on
 * each type (assessByType). A confirmed hit rejects a user in review and suspends an active one; a
 * possible match waits for a posted result (NEEDS_REVIEW), and a possible sanctions match suspends
 * an active user meanwhile; all three clear approves a user in review and lifts a suspension. A user
 * who has not submitted verification (PENDING) or is closed keeps its status; only its risk moves.
 * A rejected user stays rejected unless a person (`byPerson`: an operator's result) clears it.
 */
export function statusAfterChecks(
  status: UserStatusValue,
  verdicts: Map<CheckType, Completed>,
  { byPerson = false } = {},
): { status: UserStatusValue; kycStatus: KycValue } | null {
  if (status === "PENDING" || status === "CLOSED") return null;
  const runs = [...verdicts.values()];
  const allClear = CHECK_TYPES.every((type) => verdicts.get(type)?.status === "CLEAR");
  if (status === "REJECTED") return byPerson && allClear ? { status: "ACTIVE", kycStatus: "APPROVED" } : null;
  if (runs.some((r) => r.status === "REJECTED"))
    return { status: status === "IN_REVIEW" ? "REJECTED" : status === "ACTIVE" ? "SUSPENDED" : status, kycStatus: "REJECTED" };
  if (runs.some((r) => r.status === "CONSIDER")) {
    const sanctions = verdicts.get("SANCTIONS_SCREENING")?.status === "CONSIDER";
    return { status: status === "ACTIVE" && sanctions ? "SUSPENDED" : status, kycStatus: "NEEDS_REVIEW" };
  }
  if (allClear) return { status: status === "IN_REVIEW" || status === "SUSPENDED" ? "ACTIVE" : status, kycStatus: "APPROVED" };
  return null; // queued, running or failed runs: nothing decided yet
}

/** Which checks a change to these user fields calls for (every change to user information). */
const SCREENED_FIELDS = new Set(["firstName", "middleName", "lastName", "dateOfBirth", "nationality"]);
const PROFILE_FIELDS = new Set(["nationality", "countryOfResidence", "residentialAddress", "billingAddress"]);
const NOT_INFORMATION = new Set(["status", "locale", "externalId"]);

export function checksForChange(fields: readonly string[]): CheckType[] {
  const information = fields.filter((f) => !NOT_INFORMATION.has(f));
  if (!information.length) return [];
  return CHECK_TYPES.filter((type) =>
    type === "KYC" ? true : type === "SANCTIONS_SCREENING" ? information.some((f) => SCREENED_FIELDS.has(f)) : information.some((f) => PROFILE_FIELDS.has(f)),
  );
}

/** What a posted result (an upstream provider's, a person's, the sandbox's) may say as reasons. */
export const reasonsErrors = (reasons: readonly string[] | null | undefined) =>
  POSTED_REASONS.safeParse(reasons ?? []).success ? [] : [{ field: "reasons", code: "too_long", message: "reasons: at most 50, each at most 200 characters." }];
const POSTED_REASONS = texts(50, 200);

/** The event a completed run of a type raises. */
export const CHECK_EVENT = {
  KYC: "check.kyc.updated",
  SANCTIONS_SCREENING: "check.sanctions_screening.updated",
  TRANSACTION_MONITORING: "check.transaction_monitoring.updated",
} as const satisfies Record<CheckType, string>;

/**
 * Reviews, pure: which completed runs need a person, what a decision must hold, and when a decision
 * needs a second reviewer (four eyes).
 */
import { readFileSync } from "node:fs";
import type { CheckStatus, CheckType, HitDecision, ReviewOutcome, ReviewStatus } from "../../../generated/prisma/enums.js";
import type { FieldError } from "../../lib/errors.js";
import { fromRoot } from "../../lib/paths.js";

export type ReasonCode = { code: string; label: string; outcomes: ReviewOutcome[] };

/** The configured reason codes (data/reviews/reason-codes.json), read once. */
let reasonCodes: ReasonCode[] | null = null;
export const REVIEW_REASON_CODES = (): ReasonCode[] =>
  (reasonCodes ??= (JSON.parse(readFileSync(fromRoot("data", "reviews", "reason-codes.json"), "utf8")) as { codes: ReasonCode[] }).codes);

/** A match as the screening recorded it on its run (screen-person.ts); what a review keeps of it as a hit. */
export type RecordedMatch = {
  list: string;
  listVersion: string;
  entryId: string;
  entryHash: string;
  subjectHash: string;
  score: number;
  suppressed?: boolean;
};

/** A completed run as reviews see it. */
export type CompletedRun = {
  id: string;
  clientId: string;
  userId: string;
  type: CheckType;
  status: CheckStatus;
  trigger: string;
  decidedBy: string | null;
  result: unknown;
};

const ALERTING: ReadonlySet<CheckStatus> = new Set(["CONSIDER", "REJECTED"]);

const text = (value: unknown, fallback: string) => (typeof value === "string" ? value.slice(0, 200) : fallback);

/**
 * The hits of a screening run a person must look at: its matches less the suppressed ones. An
 * upstream provider's posted matches have no shape of ours: those naming an entry are kept, with
 * what they lack filled in.
 */
export function hitsOf(run: CompletedRun): RecordedMatch[] {
  if (run.type !== "SANCTIONS_SCREENING") return [];
  const matches = (run.result as { matches?: unknown } | null)?.matches;
  if (!Array.isArray(matches)) return [];
  return matches
    .filter((m): m is Record<string, unknown> => !!m && typeof m === "object" && typeof m.entryId === "string" && !!m.entryId && !m.suppressed)
    .map((m) => ({
      ...m,
      list: text(m.list, "upstream"),
      listVersion: text(m.listVersion, "unknown"),
      entryId: text(m.entryId, ""),
      entryHash: text(m.entryHash, ""),
      subjectHash: text(m.subjectHash, ""),
      score: typeof m.score === "number" && Number.isFinite(m.score) ? Math.min(1, Math.max(0, m.score)) : 0,
    }));
}

/**
 * Whether a completed run needs a person: a screening with hits, a monitoring alert, KYC to consider
 * once the user asked to be verified (before that, what is due is the integrator's to collect). A
 * person's own result (a review's decision, an operator's posted result) needs no other.
 */
export function needsReview(run: CompletedRun, userStatus: string): boolean {
  if (run.decidedBy === "OPERATOR" || !ALERTING.has(run.status)) return false;
  if (run.type === "SANCTIONS_SCREENING") return hitsOf(run).length > 0;
  if (run.type === "KYC") return userStatus !== "PENDING";
  return true;
}

/** 0-100, as the user's risk score counts a run: the queue is worked highest first. */
export const reviewRiskOf = (run: CompletedRun) =>
  run.status === "REJECTED" ? 100 : Math.max(70, Math.min(100, Math.round(Number((run.result as { score?: number } | null)?.score ?? 0) * 100)));

/** Reviews that still wait for a reviewer's decision (one of each type per user at most). */
export const UNDECIDED: ReviewStatus[] = ["OPEN", "ESCALATED"];
export const NOT_CLOSED: ReviewStatus[] = ["OPEN", "ESCALATED", "PENDING_APPROVAL"];

export type DecisionInput = {
  outcome?: ReviewOutcome | null;
  reasonCode?: string | null;
  note?: string | null;
  hits?: readonly { hitId: string; decision: HitDecision }[] | null;
};

const NOTE_MAX = 2000;
/** A decision's or an approval's note. */
export const noteErrors = (note: string | null | undefined): FieldError[] =>
  note && note.length > NOTE_MAX ? [{ field: "note", code: "too_long", message: `note: at most ${NOTE_MAX} characters.` }] : [];

/** Every problem with a decision on a review holding `hitIds`, in one list. */
export function decisionErrors(input: DecisionInput, hitIds: readonly string[]): FieldError[] {
  const errors: FieldError[] = [];
  const { outcome, reasonCode, note } = input;
  if (!outcome) errors.push({ field: "outcome", code: "required", message: "outcome is required: CLEAR, REJECT or ESCALATE." });
  const reason = REVIEW_REASON_CODES().find((r) => r.code === reasonCode);
  if (!reasonCode) errors.push({ field: "reasonCode", code: "required", message: "reasonCode is required (GET /v2/reviews/reason-codes)." });
  else if (!reason) errors.push({ field: "reasonCode", code: "invalid", message: `reasonCode ${reasonCode} is not a configured reason code.` });
  else if (outcome && !reason.outcomes.includes(outcome))
    errors.push({ field: "reasonCode", code: "not_allowed", message: `reasonCode ${reasonCode} is for ${reason.outcomes.join(", ")}, not ${outcome}.` });
  errors.push(...noteErrors(note));
  const decided = new Map((input.hits ?? []).map((h) => [h.hitId, h.decision]));
  const unknown = [...decided.keys()].filter((id) => !hitIds.includes(id));
  if (unknown.length) errors.push({ field: "hits", code: "invalid", message: `Not hits of this review: ${unknown.join(", ")}.` });
  if (decided.size !== (input.hits?.length ?? 0)) errors.push({ field: "hits", code: "invalid", message: "Each hit may be decided once." });
  if (outcome === "CLEAR" || outcome === "REJECT") {
    const undecided = hitIds.filter((id) => !decided.has(id));
    if (undecided.length)
      errors.push({ field: "hits", code: "required", message: `Decide every hit (FALSE_POSITIVE or TRUE_MATCH) to ${outcome}: ${undecided.join(", ")}.` });
    const decisions = [...decided.values()];
    if (outcome === "CLEAR" && decisions.includes("TRUE_MATCH"))
      errors.push({ field: "hits", code: "not_allowed", message: "A review with a TRUE_MATCH hit cannot be cleared." });
    if (outcome === "REJECT" && hitIds.length && !decisions.includes("TRUE_MATCH"))
      errors.push({ field: "hits", code: "required", message: "REJECT needs at least one TRUE_MATCH hit." });
  }
  return errors;
}

/**
 * A hit's level: the matcher's verdict on it (screen-person.ts records one per match); an upstream
 * provider's hit without one takes the status of the run that found it.
 */
export const hitLevel = (match: unknown, runStatus: CheckStatus): "CONSIDER" | "REJECTED" => {
  const verdict = match && typeof match === "object" ? (match as { status?: unknown }).status : undefined;
  if (verdict === "REJECTED" || verdict === "CONSIDER") return verdict;
  return runStatus === "REJECTED" ? "REJECTED" : "CONSIDER";
};

/**
 * Four eyes: a rejection, and clearing a user whose risk is HIGH, take effect only once a second
 * reviewer approves. The user's risk is weighed apart from the review's own findings (which alone make
 * it HIGH); `held` are the levels of every finding the review holds (each hit, or the runs of a review
 * without hits), so a weaker finding added later never hides a stronger one: clearing any finding that
 * rejected the user by itself (a strong match) counts as clearing HIGH.
 */
export const needsSecondReviewer = (outcome: ReviewOutcome, { riskApart, held }: { riskApart: string | null; held: readonly CheckStatus[] }) =>
  outcome === "REJECT" || (outcome === "CLEAR" && (riskApart === "HIGH" || held.includes("REJECTED")));

/** A reviewer as four eyes count them: the person (their email) behind the identity. */
export type ReviewerPerson = { id: string; email: string | null };

/**
 * Whether two reviewer identities are one person: the same identity, or the same email (an operator
 * may have issued one person a second identity before emails were unique per client).
 */
export const samePerson = (a: ReviewerPerson, b: ReviewerPerson) =>
  a.id === b.id || (!!a.email && !!b.email && a.email.trim().toLowerCase() === b.email.trim().toLowerCase());

/** What a decision that took effect records on the user's checks, as a person's result of the review's type. */
export const decidedStatus = (outcome: "CLEAR" | "REJECT"): "CLEAR" | "REJECTED" => (outcome === "CLEAR" ? "CLEAR" : "REJECTED");

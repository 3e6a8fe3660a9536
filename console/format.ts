/** Words and numbers as the console shows them. */
import type { CheckType, HitDecision, ReviewOutcome, ReviewStatus, ScreenedPerson } from "./graphql/types.ts";

export const CHECK_TYPES: Record<CheckType, string> = {
  SANCTIONS_SCREENING: "Sanctions screening",
  TRANSACTION_MONITORING: "Transaction monitoring",
  KYC: "KYC",
};

export const STATUSES: Record<ReviewStatus, string> = {
  OPEN: "Open",
  ESCALATED: "Escalated",
  PENDING_APPROVAL: "Awaiting approval",
  CLOSED: "Closed",
};

export const OUTCOMES: Record<ReviewOutcome, string> = { CLEAR: "Clear", REJECT: "Reject", ESCALATE: "Escalate" };

export const HIT_DECISIONS: Record<HitDecision, string> = { FALSE_POSITIVE: "False positive", TRUE_MATCH: "True match" };

export const fullName = (p: Pick<ScreenedPerson, "firstName" | "middleName" | "lastName">) => [p.firstName, p.middleName, p.lastName].filter(Boolean).join(" ");

export const percent = (fraction: number) => `${Math.round(fraction * 100)}%`;

/** How long ago, coarsely: "just now", "12 min", "5 h", "3 d". */
export function age(iso: string, now: number): string {
  const minutes = Math.max(0, Math.floor((now - Date.parse(iso)) / 60_000));
  if (minutes < 1) return "just now";
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h` : `${Math.floor(hours / 24)} d`;
}

export const ago = (iso: string, now: number) => {
  const text = age(iso, now);
  return text === "just now" ? text : `${text} ago`;
};

export const dateTime = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });

/** A risk score (0-100) as the queue bands it. */
export const riskBand = (score: number): "high" | "medium" | "low" => (score >= 85 ? "high" : score >= 70 ? "medium" : "low");

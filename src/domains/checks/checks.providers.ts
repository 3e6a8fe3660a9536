/**
 * Check providers: one interface per check type, so a vendor (Onfido, ComplyAdvantage, …)
 * replaces a built-in one without the engine knowing. The built-in ones work offline and
 * deterministically: the same user and data always give the same outcome.
 */
import { readFileSync } from "node:fs";
import { fromRoot } from "../../lib/paths.js";
import type { CheckTrigger, CheckType } from "../../../generated/prisma/enums.js";
import type { Cipher } from "../../lib/crypto.js";
import type { RuleBook } from "../compliance/compliance.service.js";
import { requirementsOf, type RequirementFacts } from "../compliance/compliance.service.js";
import type { CheckOutcome } from "./checks.rules.js";
import { screenPerson, type ScreeningResult } from "./screening/screen-person.js";
import { sandboxListMatch } from "./screening/sandbox-list.js";
import { isMagic, SANDBOX_INPUTS } from "../../kernel/sandbox-inputs.js";
import { loadWatchlist, type Watchlist } from "./screening/watchlist.js";
import { currentWatchlistFile } from "./screening/watchlist-import.js";

/** What a provider is told of the user: the columns requirements need, plus an open upstream alert. */
export type CheckSubject = RequirementFacts & {
  id: string;
  /** the latest result an upstream system posted on this check type, when it was not CLEAR */
  openAlert?: { status: CheckOutcome["status"]; reasons: string[] } | null;
  /** `entryId:entryHash:subjectHash` of the sanctions hits reviewers decided false positives */
  suppressedHits?: ReadonlySet<string>;
  /** the user is a SANDBOX client's: the sandbox's magic inputs apply (src/kernel/sandbox-inputs.ts) */
  sandbox?: boolean;
  /** the client's time (a sandbox client's clock may run ahead): what has expired is judged by it */
  now?: Date;
  /** why the run was queued: a LIST_UPDATE screening looks for the newest list first (checks.rescreen.ts) */
  trigger?: CheckTrigger;
};

interface CheckProvider {
  readonly type: CheckType;
  run(subject: CheckSubject): Promise<CheckOutcome>;
}

/** KYC by the rule set in force: anything currently due or invalid needs review; nothing due is clear. */
function kycProvider(deps: { compliance: RuleBook; cipher: Cipher }): CheckProvider {
  return {
    type: "KYC",
    async run(subject) {
      const owed = await requirementsOf(deps, subject, subject.now);
      const invalidDocuments = (subject.documents ?? []).filter((d) => d.status === "INVALID");
      const reasons = [
        ...owed.currentlyDue.map((f) => `due:${f}`),
        ...owed.errors.map((e) => `invalid:${e.field}`),
        ...invalidDocuments.map((d) => `document_invalid:${d.documentType}:${d.invalidReason ?? "unknown"}`),
      ];
      const provider = `rules:${owed.rules.country}@v${owed.rules.version}`;
      return reasons.length
        ? { status: "CONSIDER", score: 0.4, reasons, matches: [], provider }
        : { status: "CLEAR", score: 0, reasons: ["requirements_met"], matches: [], provider };
    },
  };
}

/** Sanctions screening against the OFAC SDN list: names and aliases, weighed with birth date and nationality. */
function sanctionsProvider(watchlist: WatchlistSource): CheckProvider {
  return {
    type: "SANCTIONS_SCREENING",
    async run(subject) {
      const list = await watchlist({ recheck: subject.trigger === "LIST_UPDATE" });
      const provider = list.version.id;
      if (!subject.firstName && !subject.lastName) return { status: "ERROR", score: 0, reasons: ["name_missing"], matches: [], provider };
      const person = {
        firstName: subject.firstName ?? "",
        middleName: subject.middleName,
        lastName: subject.lastName ?? "",
        dateOfBirth: subject.dateOfBirth ? subject.dateOfBirth.toISOString().slice(0, 10) : null,
        nationality: subject.nationality,
      };
      // a sandbox client's users are screened against the built-in sandbox list too
      const sandboxHit = subject.sandbox ? sandboxListMatch(person) : null;
      const result = screenPerson(person, list, { suppressed: subject.suppressedHits, alsoFound: sandboxHit ? [sandboxHit] : [] });
      const counted = result.matches.filter((m) => !m.suppressed);
      const quieted = result.matches.length - counted.length;
      const reasons = [...(counted[0]?.reasons ?? ["no_match"]), ...(quieted ? [`suppressed_false_positives:${quieted}`] : [])];
      // the matcher's version and configuration beside the list's (`provider`): what a re-screen compares to tell a change of either from one of the person's
      const outcome: CheckOutcome & Pick<ScreeningResult, "matcher"> = {
        status: result.status,
        score: result.score,
        reasons,
        matches: result.matches,
        provider,
        matcher: result.matcher,
      };
      return outcome;
    },
  };
}

/** FATF's lists (data/risk/jurisdictions.json): a country's profile risk and whether it calls for review. */
type JurisdictionRisk = { publishedOn: string; lists: { name: string; score: number; review: boolean; countries: Set<string> }[] };

const SHIPPED_JURISDICTIONS = fromRoot("data", "risk", "jurisdictions.json");

function loadJurisdictionRisk(file = SHIPPED_JURISDICTIONS): JurisdictionRisk {
  const raw = JSON.parse(readFileSync(file, "utf8")) as Record<string, { score: number; countries: string[] }> & { published_on: string };
  return {
    publishedOn: raw.published_on,
    lists: [
      { name: "call_for_action", score: raw.call_for_action.score, review: true, countries: new Set(raw.call_for_action.countries) },
      { name: "increased_monitoring", score: raw.increased_monitoring.score, review: false, countries: new Set(raw.increased_monitoring.countries) },
    ],
  };
}

const SEVERITY = { CLEAR: 0, ERROR: 0, CONSIDER: 1, REJECTED: 2 } as const;

/**
 * Transaction monitoring from the profile (nationality and residence on FATF's lists) and the alerts
 * upstream systems posted: an open alert stays in every later run until a CLEAR result closes it.
 */
function transactionMonitoringProvider(risk: JurisdictionRisk): CheckProvider {
  return {
    type: "TRANSACTION_MONITORING",
    async run(subject) {
      let outcome: CheckOutcome = { status: "CLEAR", score: 0, reasons: [], matches: [], provider: `fatf@${risk.publishedOn}` };
      for (const [field, country] of [
        ["nationality", subject.nationality],
        ["country_of_residence", subject.countryOfResidence],
      ] as const) {
        const list = country ? risk.lists.find((l) => l.countries.has(country)) : undefined;
        if (!list) continue;
        outcome.reasons.push(`jurisdiction_${list.name}:${field}:${country}`);
        outcome.score = Math.max(outcome.score, list.score);
        if (list.review) outcome.status = "CONSIDER";
      }
      if (subject.sandbox && isMagic((subject.residentialAddress as { line1?: string } | null)?.line1, SANDBOX_INPUTS.alertAddressLine)) {
        outcome.reasons.push("sandbox_alert:residential_address.line1", "upstream_alert_open");
        outcome = { ...outcome, status: "CONSIDER", score: Math.max(outcome.score, 0.7) };
      }
      const alert = subject.openAlert;
      if (alert && SEVERITY[alert.status] > 0) {
        outcome.reasons.push("upstream_alert_open", ...alert.reasons.map((r) => `upstream:${r}`));
        outcome.score = Math.max(outcome.score, alert.status === "REJECTED" ? 1 : 0.7);
        if (SEVERITY[alert.status] > SEVERITY[outcome.status]) outcome = { ...outcome, status: alert.status };
      }
      if (!outcome.reasons.length) outcome.reasons.push("profile_low_risk");
      return outcome;
    },
  };
}

export type Providers = Record<CheckType, CheckProvider>;

/** Lists loaded in this process, by file: every app of the process shares one copy (a loaded list is large). */
const loadedLists = new Map<string, Promise<Watchlist>>();

/** The file in use by DATA_DIR and when it was looked for: every source of the process on a DATA_DIR agrees on it. */
const filesInUse = new Map<string, { file: string; checkedAt: number }>();

type WatchlistSource = (options?: { recheck?: boolean }) => Promise<Watchlist>;

/**
 * The watchlist in use, loaded on first use (seconds of CPU, so never at start) and swapped when a newer file
 * lands in DATA_DIR/sanctions (`cli watchlist import`): looked for at most once a minute, on use, or now with `recheck`.
 */
export function watchlistSource(dataDir: string, recheckMs = 60_000): WatchlistSource {
  return async ({ recheck = false } = {}) => {
    let inUse = filesInUse.get(dataDir);
    if (!inUse || recheck || Date.now() - inUse.checkedAt > recheckMs) {
      inUse = { file: await currentWatchlistFile(dataDir), checkedAt: Date.now() };
      filesInUse.set(dataDir, inUse);
    }
    const { file } = inUse;
    let list = loadedLists.get(file);
    if (!list) {
      const loading = file;
      list = loadWatchlist(loading);
      for (const old of loadedLists.keys()) loadedLists.delete(old); // a newer list replaces the older
      loadedLists.set(loading, list);
      list.catch(() => loadedLists.delete(loading));
    }
    return list;
  };
}

/** The built-in providers. */
export function builtInProviders(deps: { compliance: RuleBook; cipher: Cipher; dataDir: string }): Providers {
  return {
    KYC: kycProvider(deps),
    SANCTIONS_SCREENING: sanctionsProvider(watchlistSource(deps.dataDir)),
    TRANSACTION_MONITORING: transactionMonitoringProvider(loadJurisdictionRisk()),
  };
}

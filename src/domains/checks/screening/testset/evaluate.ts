/**
 * Screens a test set (this folder's files, or a hold-out set another seed wrote elsewhere) and counts,
 * per kind, the listed individuals found and the unlisted people flagged: what ../testset.test.ts
 * holds floors on and bench/screening-eval.ts prints.
 */
import { readFileSync } from "node:fs";
import { screenPerson, type ScreeningResult } from "../screen-person.js";
import type { Watchlist } from "../watchlist.js";
import type { TestCase } from "./test-case.js";

export interface Testset {
  listed: TestCase[];
  /** common names of ten cultures */
  unlisted: TestCase[];
  /** people sharing one word with a listed name */
  tokenSharing: TestCase[];
}

/** The set in `dir` (a file: URL or path; this folder by default). */
export function loadTestset(dir: string | URL = new URL(".", import.meta.url)): Testset {
  const base = typeof dir === "string" ? new URL(`file://${dir.replace(/\/?$/, "/")}`) : dir;
  const load = (file: string): TestCase[] => JSON.parse(readFileSync(new URL(file, base), "utf8"));
  return { listed: load("listed.json"), unlisted: load("unlisted.json"), tokenSharing: load("token-sharing.json") };
}

interface Row {
  kind: string;
  cases: number;
  /** listed: found (not CLEAR and naming the entry); unlisted: flagged (not CLEAR) */
  count: number;
  /** how the cases that count against the matcher came out: missed ones (listed), flagged ones (unlisted) */
  failures: string[];
}

export interface Evaluation {
  recall: Row[];
  falseHits: Row[];
  /** exact names (exact, case, accents) with an agreeing date of birth, and how many came back REJECTED */
  strong: { cases: number; rejected: number };
}

const describe = (c: TestCase, r: ScreeningResult) =>
  `${c.id} ${c.variant} dob=${c.dob} nat=${c.nationality} ${JSON.stringify(c.person)} → ${r.status}${r.matches[0] ? ` ${r.matches[0].matchedName} ${r.matches[0].score}` : ""}`;

/** One row per kind (`variant`), in the order the kinds first appear. */
function rows(cases: TestCase[], counts: (c: TestCase, r: ScreeningResult) => boolean, failed: (counted: boolean) => boolean, watchlist: Watchlist) {
  const byKind = new Map<string, Row>();
  for (const c of cases) {
    const r = screenPerson(c.person, watchlist);
    const row = byKind.get(c.variant) ?? { kind: c.variant, cases: 0, count: 0, failures: [] };
    byKind.set(row.kind, row);
    const counted = counts(c, r);
    row.cases++;
    if (counted) row.count++;
    if (failed(counted)) row.failures.push(describe(c, r));
  }
  return [...byKind.values()];
}

const total = (kind: string, rs: Row[]): Row => ({
  kind,
  cases: rs.reduce((n, r) => n + r.cases, 0),
  count: rs.reduce((n, r) => n + r.count, 0),
  failures: rs.flatMap((r) => r.failures),
});

export function evaluate(watchlist: Watchlist, set: Testset): Evaluation {
  const found = (c: TestCase, r: ScreeningResult) => r.status !== "CLEAR" && r.matches.some((m) => m.entryId === c.entryId);
  const flagged = (_: TestCase, r: ScreeningResult) => r.status !== "CLEAR";
  const sharing = rows(set.tokenSharing, flagged, (counted) => counted, watchlist);
  const strongCases = set.listed.filter((c) => c.dob === "agree" && /^(exact|case|accents)$/.test(c.variant));
  return {
    recall: rows(set.listed, found, (counted) => !counted, watchlist),
    falseHits: [
      total(
        "ordinary names",
        rows(set.unlisted, flagged, (counted) => counted, watchlist),
      ),
      total("sharing a word with a listed name", sharing),
      ...sharing.map((r) => ({ ...r, kind: `… ${r.kind}` })),
    ],
    strong: { cases: strongCases.length, rejected: strongCases.filter((c) => screenPerson(c.person, watchlist).status === "REJECTED").length },
  };
}

const pct = (n: number, of: number) => `${((100 * n) / of).toFixed(2)} %`;

/** The evaluation as two markdown tables: recall per kind, false hits per category (and per kind of token-sharing name). */
export function markdown({ recall, falseHits }: Evaluation): string {
  const all = recall.reduce((s, r) => ({ cases: s.cases + r.cases, count: s.count + r.count }), { cases: 0, count: 0 });
  return [
    "| kind | cases | found | recall |",
    "|---|---|---|---|",
    ...recall.map((r) => `| ${r.kind} | ${r.cases} | ${r.count} | ${(r.count / r.cases).toFixed(4)} |`),
    `| **all listed** | ${all.cases} | ${all.count} | ${(all.count / all.cases).toFixed(4)} |`,
    "",
    "| unlisted | cases | flagged | false hits |",
    "|---|---|---|---|",
    ...falseHits.map((r) => `| ${r.kind} | ${r.cases} | ${r.count} | ${pct(r.count, r.cases)} |`),
  ].join("\n");
}

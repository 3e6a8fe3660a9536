/**
 * `screenPerson(person, watchlist)`: the built-in sanctions screening. Offline and deterministic:
 * the same person and list always give the same result.
 *
 * Candidates come from retrieval.ts. Score of one listed name = name alignment (name-match.ts),
 * raised when a date of birth agrees, lowered when it conflicts, and a little either way for
 * nationality. `REJECTED` needs a strong name match *and* an agreeing date of birth; `CONSIDER` is
 * a possible match for a person to review. Weaker name evidence counts only with more of the other
 * kind, and never goes past `CONSIDER`: a weak OFAC alias only with an agreeing date of birth (OFAC
 * calls these broad or generic names; alone they flag everyone called so); a word two typing slips
 * from the listed one (a near word) only with the exact date of birth and every other word agreeing;
 * a name of one word and initials (`O. Y. Kachanov`) only with the exact date of birth.
 *
 * Every result records the list's version and the matcher's (MATCHER: version and configuration),
 * so the same person on the same versions gives the same answer, and a later re-screen can tell a
 * change of list or matcher from a change of the person's data.
 *
 * Only individuals are screened. Entities, vessels and aircraft are parsed and counted, not kept:
 * a person's name against company and ship names only adds false hits; screening a business
 * would be its own call.
 */
import { countryCode, type BirthDate, type WatchlistEntry } from "./sdn-parse.js";
import {
  ALIGNMENT_CONFIG,
  alignNames,
  LOOSE_PAIR,
  MISSING_QUERY_TOKEN,
  parseName,
  realWords,
  tokenSimilarity,
  type Alignment,
  type ParsedName,
  type Unit,
} from "./name-match.js";
import { candidates, retrieve, RETRIEVAL_CONFIG, type Candidate, type Retrieved } from "./retrieval.js";
import { INDEX_CONFIG, parsedName, type Watchlist } from "./watchlist.js";
import { entryFingerprint, subjectFingerprint, type ScreenedData } from "./fingerprints.js";

export type PersonToScreen = ScreenedData;

type ScreeningStatus = "CLEAR" | "CONSIDER" | "REJECTED";

export interface ScreeningMatch {
  /** the list screened against and its version (the file's name and content hash) */
  list: string;
  listVersion: string;
  /** the SDN `ent_num` */
  entryId: string;
  /** the entry's primary name as listed */
  name: string;
  /** the listed name or alias that matched */
  matchedName: string;
  /** every name the entry is listed under (at most ENTRY_NAMES), its primary name first */
  entryNames: string[];
  score: number;
  /** stable codes: name_exact | name_fuzzy | name_reordered | name_missing_parts | name_extra_parts | name_other_given | name_near | name_initials | weak_alias | dob_exact | dob_year | dob_near | dob_conflict | nationality_match | nationality_conflict */
  reasons: string[];
  programs: string[];
  status: Exclude<ScreeningStatus, "CLEAR">;
  explanation: MatchExplanation;
  /** fingerprints of the entry's and the person's data as compared (fingerprints.ts) */
  entryHash: string;
  subjectHash: string;
  /** a match a reviewer decided a false positive, on the same data: recorded, not counted */
  suppressed?: true;
}

/** How the matcher weighed the name that matched, feature by feature: what a reviewer judges the hit by. */
export interface MatchExplanation {
  /** the words paired (lower case, accents and scripts folded to ASCII), how alike, and what stayed unpaired on either side */
  name: {
    score: number;
    pairs: { given: string; listed: string; similarity: number }[];
    unpairedGiven: string[];
    unpairedListed: string[];
    reordered: boolean;
    /** what the name counts on: its alignment alone, or a near word or one word and initials, each with the exact date of birth (absent from results of matchers before name-match/2) */
    basis?: NameBasis;
    /** the person's first name paired nothing while a listed given name was left over: weighed as another given name, not a missing one */
    otherGivenName?: boolean;
  };
  dateOfBirth: { given: string | null; listed: string[]; verdict: DobVerdict };
  nationality: { given: string | null; listed: string[]; verdict: keyof typeof NATIONALITY_EFFECT };
  /** the listed name that matched: the entry's primary name or one of its aliases (a weak one counts only with the date of birth) */
  alias: { matched: string; primary: boolean; weak: boolean };
}

/** `aligned`: the alignment's score alone; `near`: one word two typing slips from the listed one; `initials`: one word and initials. */
type NameBasis = "aligned" | "near" | "initials";

export interface ScreeningResult {
  status: ScreeningStatus;
  /** the best match's score, 0 when nothing came near */
  score: number;
  /** possible and strong matches, best first (at most `MAX_MATCHES`), suppressed ones included */
  matches: ScreeningMatch[];
  /** the fingerprint of the person's screened data */
  subjectHash: string;
  watchlistVersion: string;
  /** the matcher that screened: its version and the thresholds, weights and key kinds it used (MATCHER) */
  matcher: { version: string; config: MatcherConfig };
}

const CONSIDER_AT = 0.86;
const REJECT_AT = 0.95;
const REJECT_NAME_AT = 0.92;
const MAX_MATCHES = 10;
/** A hit names its entry's names up to this many: a few entries list dozens of aliases. */
const ENTRY_NAMES = 20;

const DOB_EFFECT = { exact: 0.07, year: 0.04, near: 0, conflict: -0.12, unknown: 0 } as const;
const NATIONALITY_EFFECT = { match: 0.03, conflict: -0.02, unknown: 0 } as const;

type DobVerdict = keyof typeof DOB_EFFECT;

/** Bumped whenever a change of the matcher can change a result: the same person, list and version give the same answer. */
export const MATCHER_VERSION = "name-match/2";

const config = {
  thresholds: { considerAt: CONSIDER_AT, rejectAt: REJECT_AT, rejectNameAt: REJECT_NAME_AT },
  dateOfBirth: DOB_EFFECT,
  nationality: NATIONALITY_EFFECT,
  alignment: ALIGNMENT_CONFIG,
  retrieval: RETRIEVAL_CONFIG,
  keys: INDEX_CONFIG,
  limits: { maxMatches: MAX_MATCHES, entryNames: ENTRY_NAMES },
};
type MatcherConfig = typeof config;

const deepFreeze = <T>(value: T): T => {
  if (value && typeof value === "object") for (const v of Object.values(Object.freeze(value))) deepFreeze(v);
  return value;
};

/** The matcher's version and configuration, as every result records them (plain JSON, shared and frozen). */
export const MATCHER: ScreeningResult["matcher"] = deepFreeze({ version: MATCHER_VERSION, config });

const DAY = 86_400_000;
const days = (iso: string) => Date.parse(`${iso}T00:00:00Z`);

/** Best agreement between a date of birth and the listed ones; `circa` and ranges widen by a year. */
export function compareBirthDate(dob: string | null | undefined, listed: BirthDate[]): DobVerdict {
  const at = dob ? days(dob) : NaN;
  if (Number.isNaN(at) || listed.length === 0) return "unknown";
  let best: DobVerdict = "conflict";
  const rank = { exact: 3, year: 2, near: 1, conflict: 0, unknown: 0 };
  for (const b of listed) {
    const slack = b.circa ? 366 * DAY : 0;
    const from = days(b.from) - slack;
    const to = days(b.to) + slack;
    let verdict: DobVerdict;
    if (at >= from && at <= to) verdict = b.precision === "day" && !b.circa ? "exact" : "year";
    else if (b.precision === "day" && swappedDayMonth(dob!, b.from)) verdict = "near";
    else verdict = Math.min(Math.abs(at - from), Math.abs(at - to)) <= 366 * DAY ? "near" : "conflict";
    if (rank[verdict] > rank[best]) best = verdict;
  }
  return best;
}

/** 2001-03-04 vs 2001-04-03: the same date written the other way round. */
const swappedDayMonth = (a: string, b: string) => a.slice(0, 4) === b.slice(0, 4) && a.slice(5, 7) === b.slice(8, 10) && a.slice(8, 10) === b.slice(5, 7);

function compareNationality(nationality: string | null | undefined, entry: WatchlistEntry): keyof typeof NATIONALITY_EFFECT {
  const code = nationality ? countryCode(nationality) : null;
  if (!code || entry.nationalities.length === 0) return "unknown";
  return entry.nationalities.includes(code) ? "match" : "conflict";
}

const entryHashes = new WeakMap<WatchlistEntry, string>();
const entryHashOf = (entry: WatchlistEntry) => {
  let hash = entryHashes.get(entry);
  if (!hash) entryHashes.set(entry, (hash = entryFingerprint(entry)));
  return hash;
};

/** What screening one person needs while it weighs each candidate name. */
interface Screening {
  person: PersonToScreen;
  query: ParsedName;
  retrieved: Retrieved;
  watchlist: Watchlist;
  subjectHash: string;
}

/**
 * Screens one person against every individual (and their aliases) on the list. `suppressed`: the
 * `entryId:entryHash:subjectHash` of hits a reviewer decided false positives; a match with the same
 * entry on the same data is still returned (`suppressed: true`) but decides nothing. `alsoFound`:
 * matches on another list (the sandbox's), first, weighed and suppressed alike.
 */
export function screenPerson(
  person: PersonToScreen,
  watchlist: Watchlist,
  { suppressed, alsoFound = [] }: { suppressed?: ReadonlySet<string>; alsoFound?: readonly ScreeningMatch[] } = {},
): ScreeningResult {
  const subjectHash = subjectFingerprint(person);
  const query = parseName([person.firstName, person.middleName, person.lastName].filter(Boolean).join(" "));
  const dated = !!person.dateOfBirth && !Number.isNaN(days(person.dateOfBirth));
  const screening: Screening = { person, query, retrieved: retrieve(query, watchlist, { near: dated }), watchlist, subjectHash };
  const best = new Map<WatchlistEntry, ScreeningMatch>();
  for (const candidate of candidates(query, screening.retrieved, watchlist)) {
    const match = weigh(screening, candidate);
    const previous = match && best.get(watchlist.names[candidate.at]!.entry);
    if (match && (!previous || rankOf(match) > rankOf(previous))) best.set(watchlist.names[candidate.at]!.entry, match);
  }
  const ranked = [...best.values()].sort((a, b) => rankOf(b) - rankOf(a) || a.entryId.localeCompare(b.entryId, "en", { numeric: true }));
  const matches = [...alsoFound, ...ranked].slice(0, MAX_MATCHES);
  for (const m of matches) if (suppressed?.has(`${m.entryId}:${m.entryHash}:${subjectHash}`)) m.suppressed = true;
  const counted = matches.filter((m) => !m.suppressed);
  const status: ScreeningStatus = counted.some((m) => m.status === "REJECTED") ? "REJECTED" : counted.length ? "CONSIDER" : "CLEAR";
  return { status, score: counted[0]?.score ?? 0, matches, subjectHash, watchlistVersion: watchlist.version.id, matcher: MATCHER };
}

/** One listed name weighed against the person: the match, or null when it stays below CONSIDER_AT or a rule rules it out. */
function weigh({ person, query, retrieved, watchlist, subjectHash }: Screening, { at, close, closeOrNear }: Candidate): ScreeningMatch | null {
  const { entry, listed } = watchlist.names[at]!;
  const dob = compareBirthDate(person.dateOfBirth, entry.birthDates);
  // OFAC's weak aliases are too generic to stand alone: only with an agreeing date of birth
  if (listed.weak && dob !== "exact" && dob !== "year") return null;
  // near words and a name of one word and initials count only with the exact date of birth
  const exact = dob === "exact";
  const pairedWords = exact ? closeOrNear : close;
  const queryWords = realWords(query);
  if (pairedWords < Math.min(2, queryWords)) return null;
  const nationality = compareNationality(person.nationality, entry);
  const effects = DOB_EFFECT[dob] + NATIONALITY_EFFECT[nationality];
  // the best the alignment could give, knowing which of the person's words can pair at all
  const ceiling = 1 - MISSING_QUERY_TOKEN * (queryWords - pairedWords);
  if (ceiling + effects < CONSIDER_AT && pairedWords < queryWords) return null;
  const name = parsedName(watchlist, at);
  const alignment = alignNames(query, name, similarityOf(retrieved, exact), { oneWord: exact });
  const basis = alignment && basisOf(alignment, retrieved);
  // a word that only loosely resembles the listed one is a match only with an agreeing date of birth
  if (!alignment || !basis || (alignment.weakest < LOOSE_PAIR && dob !== "exact" && dob !== "year")) return null;
  // the name exactly as listed stays a possible match whatever the dates say: they may be false
  const score = round(Math.min(1, Math.max(alignment.complete ? CONSIDER_AT : 0, alignment.score + effects)));
  if (score < CONSIDER_AT) return null;
  const strong = basis === "aligned" && !listed.weak && alignment.score >= REJECT_NAME_AT && score >= REJECT_AT && (dob === "exact" || dob === "year");
  const reasons = [
    alignment.score >= 0.999 ? "name_exact" : "name_fuzzy",
    ...(alignment.reordered ? ["name_reordered"] : []),
    ...(alignment.unmatchedListed > 0.5 ? ["name_missing_parts"] : []),
    ...(alignment.unmatchedQuery > 0.5 ? ["name_extra_parts"] : []),
    ...(alignment.otherGivenName ? ["name_other_given"] : []),
    ...(basis === "aligned" ? [] : [`name_${basis}`]),
    ...(listed.weak ? ["weak_alias"] : []),
    ...(dob === "unknown" ? [] : [`dob_${dob}`]),
    ...(nationality === "unknown" ? [] : [`nationality_${nationality}`]),
  ];
  return {
    list: watchlist.version.source,
    listVersion: watchlist.version.id,
    entryId: entry.id,
    name: entry.names[0]!.text,
    matchedName: listed.text,
    entryNames: entry.names.slice(0, ENTRY_NAMES).map((n) => n.text),
    score,
    reasons,
    programs: entry.programs,
    status: strong ? "REJECTED" : "CONSIDER",
    explanation: {
      name: { ...nameExplanation(query, name, alignment), basis, otherGivenName: alignment.otherGivenName },
      dateOfBirth: { given: person.dateOfBirth ?? null, listed: entry.birthDates.map((b) => b.text), verdict: dob },
      nationality: { given: person.nationality ?? null, listed: entry.nationalities, verdict: nationality },
      alias: { matched: listed.text, primary: listed.text === entry.names[0]!.text, weak: !!listed.weak },
    },
    entryHash: entryHashOf(entry),
    subjectHash,
  };
}

/** How alike two units are: as retrieval found the person's words (near words too, with `near`), other units compared directly. */
function similarityOf({ close, near }: Retrieved, withNear: boolean) {
  return (q: Unit, l: Unit) => {
    if (!q.real || !l.real) return tokenSimilarity(q.word, l.word);
    return close.get(q)?.get(l.word.id) ?? (withNear ? near.get(q)?.get(l.word.id) : undefined) ?? 0;
  };
}

/**
 * What the name counts on (MatchExplanation.name.basis), or null when it should not count: `near` when
 * one word is a near word and every other word of the person's pairs closely (at most one near word, and
 * never the only one paired); `initials` when one word and initials pair; `aligned` otherwise.
 */
function basisOf(alignment: Alignment, { close, near }: Retrieved): NameBasis | null {
  const isNear = (p: Alignment["pairs"][number]) =>
    !close.get(p.units.query)?.has(p.units.listed.word.id) && !!near.get(p.units.query)?.has(p.units.listed.word.id);
  const words = alignment.pairs.filter((p) => p.units.query.real && p.units.listed.real);
  const nearOnes = words.filter(isNear);
  if (nearOnes.length === 0) return alignment.initialsOnly ? "initials" : "aligned";
  const others = words.filter((p) => !isNear(p));
  if (nearOnes.length > 1 || others.length === 0 || alignment.unmatchedQuery > 0.5 || others.some((p) => p.similarity < LOOSE_PAIR)) return null;
  return "near";
}

/** Whether retrieval finds any listed name for the person, however far below the thresholds (near words included: the date of birth is not asked): who a list update could concern (checks.rescreen.ts). */
export function hasCandidates(person: PersonToScreen, watchlist: Watchlist): boolean {
  const query = parseName([person.firstName, person.middleName, person.lastName].filter(Boolean).join(" "));
  return candidates(query, retrieve(query, watchlist), watchlist).length > 0;
}

/** The alignment in words: each pair's words on both sides, and the words left unpaired. */
function nameExplanation(query: ParsedName, listed: ParsedName, alignment: NonNullable<ReturnType<typeof alignNames>>): MatchExplanation["name"] {
  const words = (name: ParsedName, at: number[]) => at.map((i) => name.tokens[i]!.text).join(" ");
  const unpaired = (name: ParsedName, side: "query" | "listed") => {
    const used = new Set(alignment.pairs.flatMap((p) => p[side]));
    return name.tokens.flatMap((token, i) => (used.has(i) ? [] : [token.text]));
  };
  return {
    score: round(alignment.score),
    pairs: alignment.pairs.map((p) => ({ given: words(query, p.query), listed: words(listed, p.listed), similarity: round(p.similarity) })),
    unpairedGiven: unpaired(query, "query"),
    unpairedListed: unpaired(listed, "listed"),
    reordered: alignment.reordered,
  };
}

const rankOf = (m: ScreeningMatch) => (m.status === "REJECTED" ? 1 : 0) + m.score;
const round = (n: number) => Math.round(n * 1000) / 1000;

/**
 * OFAC SDN `sdn.csv` (legacy format, see data/sanctions/README.md) → watchlist entries: every name
 * and alias, dates of birth, nationalities and citizenships. Pure: text in, entries out.
 */
import { parse } from "csv-parse";
import { toAlpha2 } from "../../../lib/countries.js";

type EntryType = "individual" | "entity" | "vessel" | "aircraft";

export interface ListedName {
  /** as published, e.g. `QADHAFI, Muammar` or `ABU ZUBAYDAH` */
  text: string;
  kind: "primary" | "aka" | "fka" | "nka";
  /** OFAC's weak aliases (the quoted names in Remarks): broad or generic, never enough on their own */
  weak: boolean;
  /** the part before the comma of an `SURNAME, Given` name, when there is one */
  surname?: string;
}

/** One date of birth as an inclusive range of days; a year is Jan 1 – Dec 31, `circa` widens by the matcher. */
export interface BirthDate {
  text: string;
  from: string;
  to: string;
  precision: "day" | "month" | "year" | "range";
  circa: boolean;
}

export interface WatchlistEntry {
  /** `ent_num` of the SDN list */
  id: string;
  type: EntryType;
  programs: string[];
  names: ListedName[];
  birthDates: BirthDate[];
  /** ISO 3166-1 alpha-2 of `nationality …` and `citizen …` remarks (`nationality` first) */
  nationalities: string[];
  /** country words the remarks give that map to no ISO code (e.g. `Region: Gaza` maps, `Yugoslavia` does not) */
  unresolvedCountries: string[];
}

export class WatchlistFormatError extends Error {}

const EMPTY = "-0-";
const COLUMNS = 12;
const TYPES: Record<string, EntryType> = { individual: "individual", vessel: "vessel", aircraft: "aircraft", "": "entity" };

/** Parses the whole file; throws WatchlistFormatError naming the first bad line. */
export function parseSdnCsv(text: string): WatchlistEntry[] {
  const steps = parseSdnSteps(text);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

const SLICE = 32 * 1024;

/**
 * The same parse in slices: it yields after each 32 kB of text, so a caller that waits a turn of the
 * event loop at each yield (loading a list in a serving process) never blocks it for long.
 */
export function* parseSdnSteps(text: string): Generator<void, WatchlistEntry[]> {
  const body = text.replace(/\x1a\s*$/, "");
  const parser = parse({ relax_column_count: true, skip_empty_lines: true, trim: false, bom: true });
  let failure: Error | null = null;
  parser.on("error", (error: Error) => {
    failure = error;
  });
  const entries: WatchlistEntry[] = [];
  const take = () => {
    if (failure) throw new WatchlistFormatError(`not a readable CSV file: ${(failure as Error).message}`);
    for (let cells: string[] | null; (cells = parser.read() as string[] | null); ) {
      const line = entries.length + 1;
      if (cells.length !== COLUMNS) throw new WatchlistFormatError(`line ${line}: expected ${COLUMNS} columns (sdn.csv), found ${cells.length}`);
      entries.push(parseRow(cells.map(cell), line));
    }
  };
  for (let at = 0; at < body.length; at += SLICE) {
    parser.write(body.slice(at, at + SLICE)); // csv-parse parses in write(): the records are readable at once
    take();
    yield;
  }
  parser.end();
  take();
  return entries;
}

const cell = (value: string) => (value.trim() === EMPTY ? "" : value.trim());

function parseRow([entNum, name, type, program, , , , , , , , remarks]: string[], line: number): WatchlistEntry {
  const entryType = TYPES[type!.toLowerCase()];
  if (!/^\d+$/.test(entNum!) || !name || !entryType) throw new WatchlistFormatError(`line ${line}: not an SDN row (ent_num, SDN_Name, SDN_Type)`);
  const primary: ListedName = {
    text: name,
    kind: "primary",
    weak: false,
    ...(entryType === "individual" && name.includes(",") ? { surname: name.split(",")[0]!.trim() } : {}),
  };
  const entry: WatchlistEntry = {
    id: entNum!,
    type: entryType,
    programs: program
      ? program
          .split(/\]\s*\[/)
          .map((p) => p.trim())
          .filter(Boolean)
      : [],
    names: [primary],
    birthDates: [],
    nationalities: [],
    unresolvedCountries: [],
  };
  const citizenships: string[] = [];
  for (const part of splitRemarks(remarks!)) {
    const alias = /^([afn])\.k\.a\.\s+'(.*)'$/.exec(part);
    if (alias) {
      const text = alias[2]!.trim();
      if (text)
        entry.names.push({
          text,
          kind: `${alias[1]}ka` as ListedName["kind"],
          weak: true,
          ...(entryType === "individual" && /^[^,]+, [^,]+$/.test(text) ? { surname: text.split(",")[0]!.trim() } : {}),
        });
      continue;
    }
    const dob = /^(?:alt\.\s+)?DOB\s+(.+)$/.exec(part);
    if (dob) {
      const parsed = parseBirthDate(dob[1]!);
      if (parsed) entry.birthDates.push(parsed);
      continue;
    }
    const country = /^(?:alt\.\s+)?(nationality|citizen)\s+(.+)$/.exec(part);
    if (country) {
      const code = countryCode(country[2]!);
      if (!code) entry.unresolvedCountries.push(country[2]!);
      else (country[1] === "nationality" ? entry.nationalities : citizenships).push(code);
    }
  }
  entry.nationalities = [...new Set([...entry.nationalities, ...citizenships])];
  return entry;
}

/** `a; b; a.k.a. 'X'.` → parts without the final period; a period inside a quoted alias is kept. */
function splitRemarks(remarks: string): string[] {
  if (!remarks) return [];
  return remarks
    .split(/;\s*/)
    .map((p) => p.trim().replace(/(?<=')\.$|(?<!')\.$/, ""))
    .filter(Boolean);
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const pad = (n: number) => String(n).padStart(2, "0");
const lastDay = (y: number, m: number) => new Date(Date.UTC(y, m, 0)).getUTCDate();

/** One side of a DOB: `10 Dec 1948`, `Dec 1948` or `1948` → its first and last day. */
function dayRange(text: string): { from: string; to: string; precision: "day" | "month" | "year" } | null {
  const m = /^(?:(\d{1,2})\s+)?(?:([A-Za-z]{3})[a-z]*\s+)?(\d{4})$/.exec(text.trim());
  if (!m) return null;
  const year = Number(m[3]);
  const month = m[2] ? MONTHS.indexOf(m[2].toLowerCase()) + 1 : 0;
  if (m[2] && month === 0) return null;
  if (m[1] && month) {
    const day = Number(m[1]);
    if (day < 1 || day > lastDay(year, month)) return null;
    const d = `${year}-${pad(month)}-${pad(day)}`;
    return { from: d, to: d, precision: "day" };
  }
  if (month) return { from: `${year}-${pad(month)}-01`, to: `${year}-${pad(month)}-${pad(lastDay(year, month))}`, precision: "month" };
  return { from: `${year}-01-01`, to: `${year}-12-31`, precision: "year" };
}

/** `10 Dec 1948` · `Dec 1948` · `1948` · `1960 to 1962` · `01 Jan 1960 to 31 Dec 1962` · `circa 1955` · `circa 1960-1962`. */
export function parseBirthDate(text: string): BirthDate | null {
  const circa = /^circa\s+/i.test(text);
  const body = text.replace(/^circa\s+/i, "").trim();
  const [a, b] = body.split(/\s+to\s+|(?<=^\d{4})-(?=\d{4}$)/);
  const start = dayRange(a!);
  if (!start) return null;
  if (b === undefined) return { text, ...start, circa };
  const end = dayRange(b);
  if (!end || end.to < start.from) return null;
  return { text, from: start.from, to: end.to, precision: "range", circa };
}

/** OFAC's country words that i18n-iso-countries does not know by their English name. */
const OFAC_COUNTRIES: Record<string, string> = {
  "korea, north": "KP",
  "korea, south": "KR",
  burma: "MM",
  syria: "SY",
  palestinian: "PS",
  "possibly palestinian": "PS",
  "region: gaza": "PS",
  "region: west bank": "PS",
  "west bank": "PS",
  "congo, democratic republic of the": "CD",
  "congo, republic of the": "CG",
  "north macedonia, the republic of": "MK",
  "cabo verde": "CV",
  moldova: "MD",
  laos: "LA",
  "cote d ivoire": "CI",
  "cote d'ivoire": "CI",
  "the bahamas": "BS",
  "bahamas, the": "BS",
  "gambia, the": "GM",
  "micronesia, federated states of": "FM",
  "russian federation": "RU",
  venezuela: "VE",
  bolivia: "BO",
  iran: "IR",
  vietnam: "VN",
  brunei: "BN",
  macau: "MO",
  turkey: "TR",
  tanzania: "TZ",
  sudan: "SD",
  eswatini: "SZ",
  "holy see": "VA",
  "st. kitts and nevis": "KN",
  "saint kitts and nevis": "KN",
};

export function countryCode(text: string): string | null {
  const key = text.trim().replace(/\.$/, "").toLowerCase();
  return OFAC_COUNTRIES[key] ?? toAlpha2(text.trim(), { allowName: true });
}

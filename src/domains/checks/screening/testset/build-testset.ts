/**
 * Writes the screening test set (listed.json, unlisted.json beside this file) from the shipped SDN
 * list, deterministically (seeded): `npx tsx src/domains/checks/screening/testset/build-testset.ts`.
 *
 * listed.json: listed individuals written the way people mistype or re-spell them, each with a
 * date of birth and nationality that agree, are absent or conflict. unlisted.json: common names
 * from several cultures that are not on the list. README.md beside this file says how both were made.
 *
 * Deliberately independent of the matcher: it uses the parser, any-ascii and double-metaphone only.
 */
import { readFileSync, writeFileSync } from "node:fs";
import anyAscii from "any-ascii";
import { doubleMetaphone } from "double-metaphone";
import { parseSdnCsv, type WatchlistEntry } from "../sdn-parse.js";
import { SHIPPED_WATCHLIST } from "../watchlist.js";
import { CULTURES } from "./common-names.js";

export interface TestCase {
  id: string;
  person: { firstName: string; middleName?: string; lastName: string; dateOfBirth?: string; nationality?: string };
  /** listed: the SDN entry the person is; unlisted: null */
  entryId: string | null;
  /** how the name was changed (listed) or where it comes from (unlisted) */
  variant: string;
  dob: "agree" | "absent" | "conflict";
  nationality: "agree" | "absent" | "conflict";
  /** unlisted only: one of its words is a word of some listed individual's name */
  sharesListedWord?: boolean;
}

const LISTED = 400;
const PER_CULTURE = 45;
const here = process.env.TESTSET_OUT ? new URL(`file://${process.env.TESTSET_OUT.replace(/\/?$/, "/")}`) : new URL(".", import.meta.url);

/** mulberry32: a small seeded PRNG so the set is the same on every run */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
// TESTSET_SEED / TESTSET_OUT draw a fresh set elsewhere (a hold-out check that the matcher is not fitted to this one)
const random = rng(Number(process.env.TESTSET_SEED ?? 20240503));
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
const chance = (p: number) => random() < p;
const shuffle = <T>(xs: T[]): T[] => {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
  return xs;
};

/** as a person types a listed name: `As'ad` → `asad`, `AL-MASRI` → `al masri` */
const words = (s: string) =>
  anyAscii(s)
    .toLowerCase()
    .replace(/'/g, "")
    .split(/[^a-z]+/)
    .filter(Boolean);
const title = (s: string) => s.toLowerCase().replace(/(^|[\s-'])([a-z])/g, (_, a, b) => a + b.toUpperCase());

// ── variants of a listed name ──────────────────────────────────────────────

/** Whole-word spellings of one Arabic/Persian/Russian name, any of which is a transliteration of another. */
const SPELLINGS = [
  ["muhammad", "mohammed", "mohamed", "mohammad", "muhammed", "mohamad"],
  ["ahmad", "ahmed"],
  ["hussein", "husayn", "hussain", "husein"],
  ["hassan", "hasan"],
  ["hossein", "hosein", "husayn"],
  ["usama", "osama"],
  ["umar", "omar"],
  ["yusuf", "youssef", "yousef", "yusef"],
  ["abdallah", "abdullah", "abdulla"],
  ["khalid", "khaled"],
  ["said", "saeed", "sayed"],
  ["ibrahim", "ebrahim"],
  ["mustafa", "mostafa", "moustafa"],
  ["mahmud", "mahmoud"],
  ["hamid", "hamed"],
  ["qasim", "kasim", "qassem"],
  ["abd", "abdul", "abdel"],
  ["ali", "aly"],
  ["reza", "riza"],
  ["sergey", "sergei", "serguei"],
  ["andrey", "andrei"],
  ["aleksandr", "alexander", "aleksander"],
  ["aleksey", "alexey", "alexei"],
  ["dmitry", "dmitriy", "dmitri"],
  ["yury", "yuri", "iouri"],
  ["nikolay", "nikolai"],
  ["mikhail", "mikhael"],
  ["yevgeny", "evgeny", "evgeniy"],
  ["vladimirovich", "vladimirovitch"],
  ["jose", "josé"],
  ["qadhafi", "gaddafi", "kadafi", "qaddafi"],
  ["yahya", "yehia"],
  ["abu", "abou"],
  ["jamal", "gamal"],
  ["faisal", "faysal"],
  ["nasser", "nasir", "naser"],
  ["abdulrahman", "abdurrahman"],
  ["rahman", "rehman"],
];
/** Letter-level rules seen between romanisations; applied to one word when no whole-word spelling fits. */
const RULES: [RegExp, string][] = [
  [/ou/, "u"],
  [/u(?=[^aeiou])/, "ou"],
  [/q/, "k"],
  [/kh/, "h"],
  [/y$/, "i"],
  [/iy$/, "y"],
  [/ov$/, "off"],
  [/ev$/, "yev"],
  [/ch/, "tch"],
  [/sh/, "sch"],
  [/ks/, "x"],
  [/x/, "ks"],
  [/ph/, "f"],
  [/w/, "v"],
  [/v/, "w"],
  [/ai/, "ay"],
  [/ei/, "ey"],
  [/dh/, "d"],
  [/th/, "t"],
  [/ee/, "i"],
  [/i(?=[^aeiou])/, "ee"],
  [/yu/, "iu"],
  [/ya/, "ia"],
  [/j/, "dj"],
  [/zh/, "j"],
];

function transliterate(ws: string[]): string[] | null {
  const order = shuffle(ws.map((_, i) => i));
  for (const i of order) {
    const group = SPELLINGS.find((g) => g.includes(ws[i]!));
    if (group) return ws.map((w, j) => (j === i ? pick(group.filter((s) => s !== w)) : w));
  }
  for (const i of order)
    for (const [re, to] of shuffle([...RULES])) if (ws[i]!.length >= 4 && re.test(ws[i]!)) return ws.map((w, j) => (j === i ? w.replace(re, to) : w));
  return null;
}

const KEYBOARD = "qwertyuiopasdfghjklzxcvbnm";
function typo(ws: string[]): string[] | null {
  const at = shuffle(ws.map((_, i) => i)).find((i) => ws[i]!.length >= 5);
  if (at === undefined) return null;
  const w = ws[at]!;
  const i = 1 + Math.floor(random() * (w.length - 1));
  const kind = pick(["substitute", "delete", "insert", "transpose"] as const);
  let out = w;
  if (kind === "substitute") out = w.slice(0, i) + pick([...KEYBOARD].filter((c) => c !== w[i])) + w.slice(i + 1);
  if (kind === "delete") out = w.slice(0, i) + w.slice(i + 1);
  if (kind === "insert") out = w.slice(0, i) + pick([...KEYBOARD]) + w.slice(i);
  if (kind === "transpose") out = i + 1 < w.length ? w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2) : w.slice(0, i - 1) + w[i] + w[i - 1];
  return ws.map((x, j) => (j === at ? out : x));
}

const ACCENTS: Record<string, string[]> = {
  a: ["á", "à", "â", "ä"],
  e: ["é", "è", "ê"],
  i: ["í", "ï"],
  o: ["ó", "ö", "ô"],
  u: ["ú", "ü"],
  n: ["ñ"],
  c: ["ç"],
  s: ["ş"],
};
function accents(ws: string[]): string[] {
  return ws.map((w) => [...w].map((c) => (ACCENTS[c] && chance(0.25) ? pick(ACCENTS[c]!) : c)).join(""));
}

const casing = (s: string) => pick([(x: string) => x.toUpperCase(), (x: string) => x.toLowerCase(), title])(s);

interface Split {
  given: string[];
  surname: string[];
}

function splitListed(text: string): Split {
  const [surname, given = ""] = text.split(/,(.*)/s);
  return { given: words(given), surname: words(surname!) };
}

const VARIANTS = [
  "exact",
  "case",
  "typo",
  "transliteration",
  "reordered",
  "missing-middle",
  "accents",
  "glued",
  "typo+missing-middle",
  "transliteration+reordered",
  "extra-middle",
  "typo+accents",
  "alias",
] as const;
/** middle names people add that the list does not carry */
const EXTRA_MIDDLE = ["maria", "jose", "ali", "john", "anne", "kumar", "lee", "ahmed", "marie", "alexander"];

function variantOf(kind: (typeof VARIANTS)[number], entry: WatchlistEntry): { first: string; middle?: string; last: string; kind: string } | null {
  let name: Split = splitListed(entry.names[0]!.text);
  if (kind === "alias") {
    // weak aliases are screened only with an agreeing date of birth: an entry without one has none to give
    if (!entry.birthDates.length) return null;
    const alias = entry.names.find((n) => n.weak && words(n.text).length >= 2);
    if (!alias) return null;
    name = alias.text.includes(",") ? splitListed(alias.text) : { given: words(alias.text).slice(0, -1), surname: words(alias.text).slice(-1) };
  }
  let { given, surname } = name;
  if (given.length === 0 || surname.length === 0) return null;
  let swap = false;
  for (const step of kind.split("+")) {
    if (step === "typo" || step === "transliteration") {
      const all = [...given, ...surname];
      const changed = step === "typo" ? typo(all) : transliterate(all);
      if (!changed) return null;
      given = changed.slice(0, given.length);
      surname = changed.slice(given.length);
    }
    if (step === "missing-middle") {
      if (given.length >= 2) given = given.slice(0, 1);
      else if (surname.length >= 2 && !/^(al|el|ad|as|ash|de|del|della|di|da|dos|do|du|la|le|van|von|bin|ben|abu|ibn)$/.test(surname[0]!))
        surname = surname.slice(0, 1);
      else return null;
    }
    if (step === "reordered") swap = true;
    if (step === "extra-middle") given = [given[0]!, pick(EXTRA_MIDDLE.filter((m) => !given.includes(m))), ...given.slice(1)];
    if (step === "accents") [given, surname] = [accents(given), accents(surname)];
    if (step === "glued") {
      if (surname.length < 2) return null;
      surname = [surname.join("")];
    }
  }
  const fmt = (ws: string[]) => casing(ws.join(" "));
  const [first, ...middle] = swap ? [...surname, ...given.slice(1)] : given;
  const last = swap ? given[0]! : surname.join(" ");
  return { first: fmt([first!]), ...(middle.length ? { middle: fmt(middle) } : {}), last: fmt([last]), kind };
}

function dobFor(entry: WatchlistEntry, mode: TestCase["dob"]): string | undefined {
  const b = entry.birthDates[0];
  if (mode === "absent" || !b) return undefined;
  const from = Date.parse(`${b.from}T00:00:00Z`);
  const to = Date.parse(`${b.to}T00:00:00Z`);
  const within = new Date(from + Math.floor(random() * ((to - from) / 86_400_000 + 1)) * 86_400_000);
  if (mode === "agree") return within.toISOString().slice(0, 10);
  within.setUTCFullYear(within.getUTCFullYear() + pick([-1, 1]) * (6 + Math.floor(random() * 20)));
  return within.toISOString().slice(0, 10);
}

const COUNTRIES = ["US", "GB", "DE", "FR", "IN", "CN", "BR", "NG", "PH", "SG", "MY", "AE", "MX", "RU", "EG", "PK", "ID", "TR", "JP", "KE"];

function nationalityFor(entry: WatchlistEntry, mode: TestCase["nationality"]): string | undefined {
  if (mode === "absent" || entry.nationalities.length === 0) return undefined;
  if (mode === "agree") return pick(entry.nationalities);
  return pick(COUNTRIES.filter((c) => !entry.nationalities.includes(c)));
}

function listedCases(entries: WatchlistEntry[]): TestCase[] {
  const individuals = shuffle(entries.filter((e) => e.type === "individual" && splitListed(e.names[0]!.text).given.length > 0));
  const out: TestCase[] = [];
  for (const entry of individuals) {
    if (out.length >= LISTED) break;
    // the variant whose turn it is, else the next one this name allows (not every name has a middle name or an alias)
    const turn = out.length % VARIANTS.length;
    const variant = VARIANTS.map((_, k) => VARIANTS[(turn + k) % VARIANTS.length]!).reduce<ReturnType<typeof variantOf>>(
      (found, kind) => found ?? variantOf(kind, entry),
      null,
    );
    if (!variant) continue;
    // a conflicting date of birth only with the whole name as listed (exact, case, accents, order):
    // a re-spelt or partial name with another person's date of birth is another person
    const respelt = !/^(exact|case|accents|reordered)$/.test(variant.kind);
    const dob: TestCase["dob"] = !entry.birthDates.length
      ? "absent"
      : variant.kind === "alias"
        ? "agree"
        : pick(respelt ? ["agree", "absent"] : ["agree", "absent", "conflict"]);
    const nationality: TestCase["nationality"] = !entry.nationalities.length ? "absent" : pick(["agree", "agree", "absent", "conflict"]);
    const dateOfBirth = dobFor(entry, dob);
    const country = nationalityFor(entry, nationality);
    out.push({
      id: `listed-${out.length + 1}`,
      entryId: entry.id,
      variant: variant.kind,
      dob: dateOfBirth ? dob : "absent",
      nationality: country ? nationality : "absent",
      person: {
        firstName: variant.first,
        ...(variant.middle ? { middleName: variant.middle } : {}),
        lastName: variant.last,
        ...(dateOfBirth ? { dateOfBirth } : {}),
        ...(country ? { nationality: country } : {}),
      },
    });
  }
  return out;
}

// ── unlisted common names ──────────────────────────────────────────────────

const sound = (w: string) => doubleMetaphone(w)[0];

/**
 * A name counts as listed when some listed individual's name or alias has, for each of its words, a
 * word with the same first letter and the same Double Metaphone code: those are spellings of a
 * listed name, which the screening must flag, so they cannot serve as unlisted names.
 */
function listedLike(entries: WatchlistEntry[]) {
  const names = entries.filter((e) => e.type === "individual").flatMap((e) => e.names.map((n) => new Set(words(n.text).map((w) => w[0] + sound(w)))));
  const vocabulary = new Set(names.flatMap((n) => [...n]));
  const plain = new Set(entries.filter((e) => e.type === "individual").flatMap((e) => e.names.flatMap((n) => words(n.text))));
  return {
    isListed: (ws: string[]) => {
      const keys = ws.map((w) => w[0] + sound(w));
      if (!keys.every((k) => vocabulary.has(k))) return false;
      return names.some((n) => keys.every((k) => n.has(k)));
    },
    sharesWord: (ws: string[]) => ws.some((w) => plain.has(w)),
  };
}

function unlistedCases(entries: WatchlistEntry[]): { cases: TestCase[]; excluded: string[] } {
  const { isListed, sharesWord } = listedLike(entries);
  const cases: TestCase[] = [];
  const excluded: string[] = [];
  const seen = new Set<string>();
  for (const culture of CULTURES) {
    let made = 0;
    for (let tries = 0; made < PER_CULTURE && tries < PER_CULTURE * 20; tries++) {
      const first = pick(culture.first);
      const last = pick(culture.last);
      const middle = culture.middle && chance(0.3) ? pick(culture.middle) : undefined;
      const full = [first, middle, last].filter(Boolean).join(" ");
      if (seen.has(full)) continue;
      seen.add(full);
      if (isListed(words(full))) {
        excluded.push(full);
        continue;
      }
      const dateOfBirth = chance(0.8)
        ? new Date(Date.UTC(1950 + Math.floor(random() * 55), Math.floor(random() * 12), 1 + Math.floor(random() * 28))).toISOString().slice(0, 10)
        : undefined;
      const nationality = chance(0.8) ? pick(culture.countries) : undefined;
      made++;
      cases.push({
        id: `unlisted-${culture.name}-${made}`,
        entryId: null,
        variant: culture.name,
        dob: dateOfBirth ? "agree" : "absent",
        nationality: nationality ? "agree" : "absent",
        sharesListedWord: sharesWord(words(full)),
        person: {
          firstName: first,
          ...(middle ? { middleName: middle } : {}),
          lastName: last,
          ...(dateOfBirth ? { dateOfBirth } : {}),
          ...(nationality ? { nationality } : {}),
        },
      });
    }
  }
  return { cases, excluded };
}

const entries = parseSdnCsv(readFileSync(SHIPPED_WATCHLIST, "utf8"));
const listed = listedCases(entries);
const { cases: unlisted, excluded } = unlistedCases(entries);
writeFileSync(new URL("listed.json", here), JSON.stringify(listed, null, 1) + "\n");
writeFileSync(new URL("unlisted.json", here), JSON.stringify(unlisted, null, 1) + "\n");
const count = (xs: TestCase[], f: (c: TestCase) => string) => {
  const counts: Record<string, number> = {};
  for (const c of xs) counts[f(c)] = (counts[f(c)] ?? 0) + 1;
  return counts;
};
console.log(
  JSON.stringify(
    {
      listed: listed.length,
      variants: count(listed, (c) => c.variant),
      dob: count(listed, (c) => c.dob),
      nationality: count(listed, (c) => c.nationality),
      unlisted: unlisted.length,
      cultures: count(unlisted, (c) => c.variant),
      sharesListedWord: unlisted.filter((c) => c.sharesListedWord).length,
      excludedAsSpellingsOfListedNames: excluded.length,
      excludedExamples: excluded.slice(0, 30),
    },
    null,
    1,
  ),
);

/**
 * How the test set writes a listed person's data: a name re-spelt, mistyped, accented or recased,
 * a date of birth and nationality that agree or conflict, and which generated names are in fact
 * spellings of a listed one. Uses the parser's output, any-ascii and double-metaphone only, never the matcher.
 */
import anyAscii from "any-ascii";
import { doubleMetaphone } from "double-metaphone";
import type { WatchlistEntry } from "../sdn-parse.js";
import type { TestCase } from "./test-case.js";
import { chance, pick, random, shuffle } from "./random.js";

/** as a person types a listed name: `As'ad` → `asad`, `AL-MASRI` → `al masri` */
export const words = (s: string) =>
  anyAscii(s)
    .toLowerCase()
    .replace(/'/g, "")
    .split(/[^a-z]+/)
    .filter(Boolean);
export const title = (s: string) => s.toLowerCase().replace(/(^|[\s-'])([a-z])/g, (_, a, b) => a + b.toUpperCase());

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

export function transliterate(ws: string[]): string[] | null {
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
export function typo(ws: string[]): string[] | null {
  const at = shuffle(ws.map((_, i) => i)).find((i) => ws[i]!.length >= 5);
  if (at === undefined) return null;
  const out = slip(ws[at]!);
  return ws.map((x, j) => (j === at ? out : x));
}

/** One typing slip in a word: a letter substituted, left out, added or swapped with the next, never the first letter. */
export function slip(w: string): string {
  const i = 1 + Math.floor(random() * (w.length - 1));
  const kind = pick(["substitute", "delete", "insert", "transpose"] as const);
  if (kind === "substitute") return w.slice(0, i) + pick([...KEYBOARD].filter((c) => c !== w[i])) + w.slice(i + 1);
  if (kind === "delete") return w.slice(0, i) + w.slice(i + 1);
  if (kind === "insert") return w.slice(0, i) + pick([...KEYBOARD]) + w.slice(i);
  return i + 1 < w.length ? w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2) : w.slice(0, i - 1) + w[i] + w[i - 1];
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
export function accents(ws: string[]): string[] {
  return ws.map((w) => [...w].map((c) => (ACCENTS[c] && chance(0.25) ? pick(ACCENTS[c]!) : c)).join(""));
}

export const casing = (s: string) => pick([(x: string) => x.toUpperCase(), (x: string) => x.toLowerCase(), title])(s);

export interface Split {
  given: string[];
  surname: string[];
}

export function splitListed(text: string): Split {
  const [surname, given = ""] = text.split(/,(.*)/s);
  return { given: words(given), surname: words(surname!) };
}

export function dobFor(entry: WatchlistEntry, mode: TestCase["dob"]): string | undefined {
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

export function nationalityFor(entry: WatchlistEntry, mode: TestCase["nationality"]): string | undefined {
  if (mode === "absent" || entry.nationalities.length === 0) return undefined;
  if (mode === "agree") return pick(entry.nationalities);
  return pick(COUNTRIES.filter((c) => !entry.nationalities.includes(c)));
}

const sound = (w: string) => doubleMetaphone(w)[0];

/**
 * A name counts as listed when some listed individual's name or alias has, for each of its words, a
 * word with the same first letter and the same Double Metaphone code: those are spellings of a
 * listed name, which the screening must flag, so they cannot serve as unlisted names.
 */
export function listedLike(entries: WatchlistEntry[]) {
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

/**
 * The test set's harder cases, drawn after the first ones from the same seeded stream (so those stay
 * as they were): listed individuals written the ways an analyst still recognises them (two slips in
 * a long family name, only some of the given names, initials), mostly with the listed date of birth;
 * and unlisted people who share one word of a listed individual's name (a given name or the family
 * name) with another or no date of birth. Like the rest of the set, independent of the matcher.
 */
import type { WatchlistEntry } from "../sdn-parse.js";
import type { TestCase } from "./test-case.js";
import { CULTURES } from "./common-names.js";
import { chance, pick, random, shuffle } from "./random.js";
import { casing, dobFor, nationalityFor, slip, splitListed, title, words, type Split } from "./variants.js";

const HARD_KINDS = ["two-slips-family", "first-given-only", "given-subset", "slip-given+slip-family", "initials", "initials+dob"] as const;
type HardKind = (typeof HARD_KINDS)[number];
const PER_KIND = 100;
const SHARING_PER_KIND = 200;

/** Words that name no one alone: connectives and the first half of a compound name (`Abd al-`, `Abu`). */
const CONNECTIVE = /^(al|el|ad|as|ash|at|az|an|ar|ur|de|del|della|di|da|dos|do|du|la|le|van|von|bin|ben|ibn|bint|abu|abou|abd|abdul|abdel|umm)$/;
/** Titles the list writes among given names (`Mullah`, `Dr`): kept or dropped, they name no one. */
const TITLE = /^(dr|haji|hajji|mullah|mulla|sheikh|shaykh|shaikh|mawlawi|maulawi|maulvi|qari)$/;
const identifying = (w: string) => w.length >= 2 && !CONNECTIVE.test(w) && !TITLE.test(w);

/** Edits between two words (substitution, deletion, insertion, swap of neighbours): a slip that undid another is none. */
function edits(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  return d[a.length]![b.length]!;
}

/** `count` slips in a word, exactly that many edits away from it (slips drawn again when two undo or repeat each other). */
function slips(word: string, count: number): string | null {
  for (let attempt = 0; attempt < 5; attempt++) {
    let out = word;
    for (let k = 0; k < count; k++) out = slip(out);
    if (edits(word, out) === count) return out;
  }
  return null;
}

/** The entry's date of birth to the day, when the list gives one (not circa, not a year or a range). */
const exactDob = (entry: WatchlistEntry) => entry.birthDates.find((b) => b.precision === "day" && !b.circa)?.from;

const initial = (w: string) => `${w[0]}${chance(0.5) ? "." : ""}`;
const replaceAt = (ws: string[], at: number, w: string) => ws.map((x, j) => (j === at ? w : x));

/**
 * The first given name and some of the others, at least one left out (a connective or title before
 * it goes with it): the first is the person's own, the later ones often a father's and grandfather's.
 */
function givenSubset(given: string[]): string[] | null {
  const droppable = given.flatMap((w, i) => (i > 0 && identifying(w) ? [i] : []));
  if (!identifying(given[0]!) || droppable.length < 2) return null;
  const drop = new Set(shuffle(droppable).slice(0, 1 + Math.floor(random() * (droppable.length - 1))));
  for (const i of [...drop]) for (let j = i - 1; j > 0 && !identifying(given[j]!); j--) drop.add(j);
  const kept = given.filter((_, i) => !drop.has(i));
  // a connective left last closes nothing (`Ahmad bin` once `Ali` is gone)
  while (CONNECTIVE.test(kept[kept.length - 1]!)) kept.pop();
  return kept.length >= 2 ? kept : null;
}

/** The name as the kind writes it, and whether the kind sends the listed date of birth (`exact`) or one that agrees or none. */
function hardVariant(kind: HardKind, { given, surname }: Split): { name: Split; dob: "exact" | "agree-or-absent" } | null {
  const long = surname.flatMap((w, i) => (w.length >= 7 && identifying(w) ? [i] : []));
  const plainGiven = given.every(identifying);
  if (kind === "two-slips-family") {
    const at = long.length ? pick(long) : undefined;
    const slipped = at === undefined ? null : slips(surname[at]!, 2);
    return slipped ? { name: { given, surname: replaceAt(surname, at!, slipped) }, dob: "exact" } : null;
  }
  if (kind === "first-given-only") return given.length >= 2 && identifying(given[0]!) ? { name: { given: [given[0]!], surname }, dob: "exact" } : null;
  if (kind === "given-subset") {
    const kept = givenSubset(given);
    return kept ? { name: { given: kept, surname }, dob: "agree-or-absent" } : null;
  }
  if (kind === "slip-given+slip-family") {
    const g = given.flatMap((w, i) => (w.length >= 5 && identifying(w) ? [i] : []));
    const s = surname.flatMap((w, i) => (w.length >= 5 && identifying(w) ? [i] : []));
    if (!g.length || !s.length) return null;
    const [gi, si] = [pick(g), pick(s)];
    const [gw, sw] = [slips(given[gi]!, 1), slips(surname[si]!, 1)];
    return gw && sw ? { name: { given: replaceAt(given, gi, gw), surname: replaceAt(surname, si, sw) }, dob: "exact" } : null;
  }
  if (kind === "initials")
    return given.length >= 2 && plainGiven ? { name: { given: [given[0]!, ...given.slice(1).map(initial)], surname }, dob: "agree-or-absent" } : null;
  return plainGiven && surname.some((w) => w.length >= 3) ? { name: { given: given.map(initial), surname }, dob: "exact" } : null;
}

/** Listed individuals written the harder ways, PER_KIND of each kind, numbered on from `firstId`. */
export function hardListedCases(entries: WatchlistEntry[], firstId: number): TestCase[] {
  const individuals = shuffle(entries.filter((e) => e.type === "individual" && splitListed(e.names[0]!.text).given.length > 0));
  const made = new Map<HardKind, number>(HARD_KINDS.map((k) => [k, 0]));
  const out: TestCase[] = [];
  for (const entry of individuals) {
    if (out.length >= PER_KIND * HARD_KINDS.length) break;
    const turn = out.length % HARD_KINDS.length;
    const kinds = HARD_KINDS.map((_, k) => HARD_KINDS[(turn + k) % HARD_KINDS.length]!).filter((k) => made.get(k)! < PER_KIND);
    const split = splitListed(entry.names[0]!.text);
    for (const kind of kinds) {
      const variant = hardVariant(kind, split);
      const exact = exactDob(entry);
      if (!variant || (variant.dob === "exact" && !exact)) continue;
      const dob = variant.dob === "exact" ? exact : dobFor(entry, pick(["agree", "absent"] as const));
      const nationality: TestCase["nationality"] = entry.nationalities.length ? pick(["agree", "agree", "absent", "conflict"]) : "absent";
      const country = nationalityFor(entry, nationality);
      made.set(kind, made.get(kind)! + 1);
      out.push({
        id: `listed-${firstId + out.length}`,
        entryId: entry.id,
        variant: kind,
        dob: dob ? "agree" : "absent",
        nationality: country ? nationality : "absent",
        person: personOf(variant.name, dob, country),
      });
      break;
    }
  }
  return out;
}

function personOf({ given, surname }: Split, dateOfBirth: string | undefined, nationality: string | undefined): TestCase["person"] {
  const fmt = (ws: string[]) => casing(ws.join(" "));
  return {
    firstName: fmt(given.slice(0, 1)),
    ...(given.length > 1 ? { middleName: fmt(given.slice(1)) } : {}),
    lastName: fmt(surname),
    ...(dateOfBirth ? { dateOfBirth } : {}),
    ...(nationality ? { nationality } : {}),
  };
}

/** A date of birth at least three years from every one the entry lists (any, when it lists none). */
function otherDob(entry: WatchlistEntry): string {
  const far = 3 * 366 * 86_400_000;
  for (;;) {
    const at = Date.UTC(1940 + Math.floor(random() * 65), Math.floor(random() * 12), 1 + Math.floor(random() * 28));
    const near = entry.birthDates.some((b) => at > Date.parse(`${b.from}T00:00:00Z`) - far && at < Date.parse(`${b.to}T00:00:00Z`) + far);
    if (!near) return new Date(at).toISOString().slice(0, 10);
  }
}

/**
 * Unlisted people sharing one word with a listed individual's name: the entry's first given name with
 * a common family name (`shares-given`), or its family name with a common given name (`shares-family`),
 * and another date of birth or none. `isListed`: whether a name is a spelling of some listed name (those are left out).
 */
export function tokenSharingCases(entries: WatchlistEntry[], isListed: (ws: string[]) => boolean): TestCase[] {
  const individuals = shuffle(entries.filter((e) => e.type === "individual" && splitListed(e.names[0]!.text).given.length > 0));
  const out: TestCase[] = [];
  const seen = new Set<string>();
  let next = 0;
  for (const kind of ["shares-given", "shares-family"] as const) {
    let made = 0;
    for (let tries = 0; made < SHARING_PER_KIND && tries < SHARING_PER_KIND * 20; tries++) {
      const entry = individuals[next++ % individuals.length]!;
      const { given, surname } = splitListed(entry.names[0]!.text);
      const culture = pick(CULTURES);
      const name = kind === "shares-given" ? { given: given.slice(0, 1), surname: words(pick(culture.last)) } : { given: words(pick(culture.first)), surname };
      const shared = kind === "shares-given" ? name.given : name.surname;
      const full = [...name.given, ...name.surname];
      if (!shared.some((w) => identifying(w) && w.length >= 3) || seen.has(full.join(" ")) || isListed(full)) continue;
      seen.add(full.join(" "));
      made++;
      const dateOfBirth = chance(0.5) ? otherDob(entry) : undefined;
      const nationality = entry.nationalities.length && chance(0.5) ? entry.nationalities[0] : undefined;
      out.push({
        id: `${kind}-${made}`,
        entryId: null,
        sharesWith: entry.id,
        variant: kind,
        dob: dateOfBirth ? "conflict" : "absent",
        nationality: nationality ? "agree" : "absent",
        sharesListedWord: true,
        person: {
          firstName: title(name.given.join(" ")),
          lastName: title(name.surname.join(" ")),
          ...(dateOfBirth ? { dateOfBirth } : {}),
          ...(nationality ? { nationality } : {}),
        },
      });
    }
  }
  return out;
}

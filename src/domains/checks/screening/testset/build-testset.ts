/**
 * Writes the screening test set (listed.json, unlisted.json, token-sharing.json beside this file) from
 * the shipped SDN list, deterministically (seeded): `npx tsx src/domains/checks/screening/testset/build-testset.ts`.
 *
 * listed.json: listed individuals written the way people mistype or re-spell them, each with a
 * date of birth and nationality that agree, are absent or conflict, then the harder kinds of
 * hard-cases.ts. unlisted.json: common names from several cultures that are not on the list.
 * token-sharing.json: unlisted people sharing one word with a listed name (hard-cases.ts).
 * README.md beside this file says how they were made.
 *
 * Deliberately independent of the matcher: it uses the parser, any-ascii and double-metaphone only.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { parseSdnCsv, type WatchlistEntry } from "../sdn-parse.js";
import { SHIPPED_WATCHLIST } from "../watchlist.js";
import { CULTURES } from "./common-names.js";
import { hardListedCases, tokenSharingCases } from "./hard-cases.js";
import { chance, pick, random, shuffle } from "./random.js";
import type { TestCase } from "./test-case.js";
import { accents, casing, dobFor, listedLike, nationalityFor, splitListed, transliterate, typo, words, type Split } from "./variants.js";

const LISTED = 400;
const PER_CULTURE = 45;
const here = process.env.TESTSET_OUT ? new URL(`file://${process.env.TESTSET_OUT.replace(/\/?$/, "/")}`) : new URL(".", import.meta.url);

// ── variants of a listed name ──────────────────────────────────────────────

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
// in this order: each draws on from where the one before left the seeded stream, so adding a kind
// at the end leaves the cases before it as they were
const first = listedCases(entries);
const { cases: unlisted, excluded } = unlistedCases(entries);
const listed = [...first, ...hardListedCases(entries, first.length + 1)];
const tokenSharing = tokenSharingCases(entries, listedLike(entries).isListed);
writeFileSync(new URL("listed.json", here), JSON.stringify(listed, null, 1) + "\n");
writeFileSync(new URL("unlisted.json", here), JSON.stringify(unlisted, null, 1) + "\n");
writeFileSync(new URL("token-sharing.json", here), JSON.stringify(tokenSharing, null, 1) + "\n");
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
      tokenSharing: tokenSharing.length,
      tokenSharingKinds: count(tokenSharing, (c) => c.variant),
      tokenSharingDob: count(tokenSharing, (c) => c.dob),
    },
    null,
    1,
  ),
);

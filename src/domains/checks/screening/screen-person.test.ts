import { beforeAll, describe, expect, it } from "vitest";
import { compareBirthDate, MATCHER, MATCHER_VERSION, screenPerson, type PersonToScreen } from "./screen-person.js";
import { alignNames, parseName, withinEdits } from "./name-match.js";
import { parseBirthDate } from "./sdn-parse.js";
import { loadWatchlist, type Watchlist } from "./watchlist.js";

let watchlist: Watchlist;
beforeAll(async () => {
  watchlist = await loadWatchlist();
});

const screen = (person: PersonToScreen) => screenPerson(person, watchlist);
/** the status and score of the person against one SDN entry, CLEAR when it is not among the matches */
const against = (entryId: string, person: PersonToScreen) => {
  const m = screen(person).matches.find((x) => x.entryId === entryId);
  return m ? { status: m.status, score: m.score, reasons: m.reasons } : { status: "CLEAR" as const };
};

const QADHAFI = "12606"; // QADHAFI, Muammar; DOB 1942
const OREJUELA = "4107"; // RODRIGUEZ OREJUELA, Gilberto Jose; DOB 31 Jan 1939
const AL_MASRI = "6367"; // AL-MASRI, Abu Hafs; DOB 1951 / 1956 / 1944; weak alias ABU HAFS
const TIKRITI = "7846"; // AL-TIKRITI, Abid Hamid Mahmud; DOB circa 1957; nationality Iraq
const KACHANOV = "46058"; // KACHANOV, Oleg Yurevich; DOB 29 Jun 1976
const MNANGAGWA = "7513"; // MNANGAGWA, Emmerson Dambudzo; DOB 15 Sep 1946, alt. 15 Sep 1942
const SIHAB = "15208"; // SIHAB, Ahmed Abdulrahman Sihab Ahmed; DOB 16 Aug 1983

describe("screenPerson", () => {
  it("finds Qaddafi however his name is transliterated, in any script", () => {
    for (const lastName of ["Qaddafi", "Gadhafi", "Kadafi", "Gaddafi", "QADHAFI", "al-Qadhafi"])
      expect(against(QADHAFI, { firstName: "Muammar", lastName }).status).toBe("CONSIDER");
    expect(against(QADHAFI, { firstName: "Муаммар", lastName: "Каддафи" }).status).toBe("CONSIDER");
  });

  it("rejects a strong name match whose date of birth agrees", () => {
    expect(against(QADHAFI, { firstName: "Muammar", lastName: "Gadhafi", dateOfBirth: "1942-06-07", nationality: "LY" })).toMatchObject({
      status: "REJECTED",
      reasons: expect.arrayContaining(["dob_year"]),
    });
    expect(against(OREJUELA, { firstName: "Gilberto", middleName: "José", lastName: "Rodríguez Orejuela", dateOfBirth: "1939-01-31" })).toMatchObject({
      status: "REJECTED",
      score: 1,
      reasons: ["name_exact", "dob_exact"],
    });
  });

  it("survives typos, accents, case, reordered and missing middle names", () => {
    const variants: PersonToScreen[] = [
      { firstName: "Gilberto", middleName: "Jose", lastName: "Rodriguez Orejeula" },
      { firstName: "GILBERTO", middleName: "JOSÉ", lastName: "rodríguez orejuela" },
      { firstName: "Orejuela", middleName: "Gilberto Jose", lastName: "Rodriguez" },
      { firstName: "Gilberto", lastName: "Rodriguez Orejuela" },
      { firstName: "Gilberto", lastName: "Orejuela" },
      { firstName: "Abid", middleName: "Hamid Mahmoud", lastName: "Altikriti" },
      { firstName: "Abid", middleName: "Hamid", lastName: "Mahmud al Tikriti" },
    ];
    for (const person of variants) expect([person, against(person.firstName === "Abid" ? TIKRITI : OREJUELA, person).status]).toEqual([person, "CONSIDER"]);
  });

  it("explains a match feature by feature: the words paired and how alike, the dates and nationalities compared, the name that matched", () => {
    const variant = screen({ firstName: "Muammar", lastName: "Gadhafi" }).matches.find((m) => m.entryId === QADHAFI)!;
    expect(variant.explanation.name.pairs).toEqual(
      expect.arrayContaining([
        { given: "muammar", listed: "muammar", similarity: 1 },
        expect.objectContaining({ given: "gadhafi", listed: expect.stringMatching(/^q[a-z]+fi$/), similarity: expect.any(Number) }),
      ]),
    );
    expect(variant.explanation.name.pairs.find((p) => p.given === "gadhafi")!.similarity).toBeLessThan(1);
    expect(variant.explanation.dateOfBirth).toMatchObject({ given: null, verdict: "unknown" });
    const tikriti = screen({
      firstName: "Abid",
      middleName: "Hamid",
      lastName: "Mahmud al-Tikriti",
      dateOfBirth: "1990-03-01",
      nationality: "FR",
    }).matches.find((m) => m.entryId === TIKRITI)!;
    expect(tikriti.explanation.dateOfBirth).toMatchObject({ given: "1990-03-01", verdict: "conflict", listed: [expect.stringMatching(/1957/)] });
    expect(tikriti.explanation.nationality).toEqual({ given: "FR", listed: ["IQ"], verdict: "conflict" });
    expect(tikriti.explanation.name).toMatchObject({ unpairedGiven: [], reordered: false });
    expect(tikriti.explanation.alias).toMatchObject({ matched: tikriti.matchedName, weak: false });
    // the hit names its list and version, and every name the entry is listed under
    expect(tikriti).toMatchObject({
      list: "OFAC-SDN",
      listVersion: watchlist.version.id,
      entryNames: expect.arrayContaining([tikriti.name, tikriti.matchedName]),
    });
  });

  it("weighs date of birth and nationality: agreeing raises, conflicting lowers", () => {
    const name = { firstName: "Abid", middleName: "Hamid", lastName: "Mahmud al-Tikriti" };
    const none = against(TIKRITI, name);
    const agreeing = against(TIKRITI, { ...name, dateOfBirth: "1958-03-01", nationality: "IQ" });
    const conflicting = against(TIKRITI, { ...name, dateOfBirth: "1990-03-01", nationality: "FR" });
    expect(agreeing).toMatchObject({ status: "REJECTED", reasons: ["name_exact", "dob_year", "nationality_match"] });
    expect(none).toMatchObject({ status: "CONSIDER", score: 1 });
    // the whole name as listed stays a possible match even when the dates disagree…
    expect(conflicting).toMatchObject({ status: "CONSIDER", reasons: ["name_exact", "dob_conflict", "nationality_conflict"] });
    // …a re-spelt, partial name with another person's date of birth does not
    expect(against(TIKRITI, { firstName: "Abed", lastName: "Tikriti", dateOfBirth: "1990-03-01" }).status).toBe("CLEAR");
    expect(against(TIKRITI, { firstName: "Abed", lastName: "Tikriti" }).status).toBe("CONSIDER");
  });

  it("uses a weak alias only together with an agreeing date of birth", () => {
    expect(against(AL_MASRI, { firstName: "Abu", lastName: "Hafs" }).status).toBe("CLEAR");
    expect(against(AL_MASRI, { firstName: "Abu", lastName: "Hafs", dateOfBirth: "1956-05-05" })).toMatchObject({
      status: "CONSIDER",
      reasons: expect.arrayContaining(["weak_alias", "dob_year"]),
    });
  });

  it("leaves common unlisted names clear, also those sharing a word with listed names", () => {
    const people: PersonToScreen[] = [
      { firstName: "John", lastName: "Smith" },
      { firstName: "Maria", lastName: "Garcia", dateOfBirth: "1985-04-12", nationality: "ES" },
      { firstName: "Mohammed", lastName: "Haddad", dateOfBirth: "1990-01-01", nationality: "JO" },
      { firstName: "Priya", lastName: "Sharma", nationality: "IN" },
      { firstName: "Olga", lastName: "Kowalski" },
      { firstName: "Chinedu", lastName: "Okafor", dateOfBirth: "1979-09-09" },
      { firstName: "Nguyen", lastName: "Tran" },
      { firstName: "Ali", lastName: "Yilmaz", dateOfBirth: "1970-07-07", nationality: "TR" },
    ];
    for (const person of people) expect([person, screen(person).status]).toEqual([person, "CLEAR"]);
  });

  it("reads names in other scripts and survives names with nothing to compare", () => {
    expect(screen({ firstName: "伟", lastName: "张" }).matches.map((m) => m.matchedName)).toContain("ZHANG, Wei");
    expect(screen({ firstName: "", lastName: "" })).toMatchObject({ status: "CLEAR", matches: [] });
    expect(screen({ firstName: "1234", lastName: "🙂", dateOfBirth: "not a date", nationality: "XX" }).status).toBe("CLEAR");
  });

  it("is deterministic and names the watchlist version it used", () => {
    const person = { firstName: "Mohamed", lastName: "Ali" };
    expect(screen(person)).toEqual(screen(person));
    expect(screen(person).watchlistVersion).toBe("ofac-sdn-2024-05-03+210ca6b4a818");
  });

  it("names the matcher's version and the thresholds, weights and key kinds it used, as plain JSON", () => {
    const { matcher } = screen({ firstName: "John", lastName: "Smith" });
    expect(matcher).toBe(MATCHER);
    expect(matcher.version).toBe(MATCHER_VERSION);
    expect(JSON.parse(JSON.stringify(matcher))).toEqual(matcher);
    expect(matcher.config).toMatchObject({
      thresholds: { considerAt: 0.86, rejectAt: 0.95, rejectNameAt: 0.92 },
      dateOfBirth: { exact: 0.07, conflict: -0.12 },
      alignment: { matchFloor: 0.78, missingListedToken: 0.04, otherGivenName: 0.08 },
      keys: { spellingLessTwoLetters: { fromLetters: 7 } },
    });
    expect(Object.isFrozen(matcher.config.alignment)).toBe(true);
  });
});

describe("weighing the evidence beyond the name", () => {
  it("makes a family name two typing slips off a possible match with the exact date of birth and the given names agreeing, never more", () => {
    for (const [entryId, person] of [
      [KACHANOV, { firstName: "Oleg", middleName: "Yurevich", lastName: "Kcahanocv", dateOfBirth: "1976-06-29" }],
      [MNANGAGWA, { firstName: "Emmerson", middleName: "Dambudzo", lastName: "Mnnagawga", dateOfBirth: "1942-09-15" }],
    ] as const) {
      const match = screen(person).matches.find((m) => m.entryId === entryId);
      expect(match).toMatchObject({ status: "CONSIDER", reasons: expect.arrayContaining(["name_near", "dob_exact"]) });
      expect(match!.explanation.name.basis).toBe("near");
    }
    // without the date of birth, or with another, the near word is no evidence
    expect(against(KACHANOV, { firstName: "Oleg", middleName: "Yurevich", lastName: "Kcahanocv" }).status).toBe("CLEAR");
    expect(against(KACHANOV, { firstName: "Oleg", middleName: "Yurevich", lastName: "Kcahanocv", dateOfBirth: "1977-06-29" }).status).toBe("CLEAR");
    // nor when a given name disagrees too
    expect(against(KACHANOV, { firstName: "Ivan", middleName: "Yurevich", lastName: "Kcahanocv", dateOfBirth: "1976-06-29" }).status).toBe("CLEAR");
  });

  it("finds a person by the first of several given names, and by initials with the exact date of birth", () => {
    expect(against(SIHAB, { firstName: "Ahmed", lastName: "Sihab", dateOfBirth: "1983-08-16" }).status).toBe("CONSIDER");
    const initials = screen({ firstName: "O.", middleName: "Y.", lastName: "Kachanov", dateOfBirth: "1976-06-29" }).matches.find((m) => m.entryId === KACHANOV);
    expect(initials).toMatchObject({ status: "CONSIDER", reasons: expect.arrayContaining(["name_initials", "dob_exact"]) });
    expect(against(KACHANOV, { firstName: "O.", middleName: "Y.", lastName: "Kachanov" }).status).toBe("CLEAR");
    expect(against(KACHANOV, { firstName: "Oleg", middleName: "Y.", lastName: "Kachanov" }).status).toBe("CONSIDER");
  });

  it("weighs a dropped given name less than a wrong one", () => {
    const listed = parseName("KACHANOV, Oleg Yurevich");
    const dropped = alignNames(parseName("Oleg Kachanov"), listed)!;
    const wrong = alignNames(parseName("Ivan Yurevich Kachanov"), listed)!;
    expect(wrong.otherGivenName).toBe(true);
    expect(dropped.score).toBeGreaterThan(wrong.score + 0.1);
    expect(against(KACHANOV, { firstName: "Oleg", lastName: "Kachanov" }).status).toBe("CONSIDER");
    const other = screen({ firstName: "Ivan", middleName: "Yurevich", lastName: "Kachanov" });
    expect(other.status).toBe("CLEAR");
  });

  it("leaves clear a name that shares only a given name with a listed person, with another date of birth or none", () => {
    for (const person of [
      { firstName: "Oleg", lastName: "Brandt", dateOfBirth: "1990-03-14" },
      { firstName: "Emmerson", lastName: "Moyo" },
    ])
      expect([person, screen(person).status]).toEqual([person, "CLEAR"]);
  });
});

describe("name alignment and dates", () => {
  it("pairs words written together with the same words written apart", () => {
    expect(alignNames(parseName("Abdulrahman Yasin"), parseName("YASIN, Abd al-Rahman"))?.score).toBeGreaterThan(0.95);
    expect(alignNames(parseName("Chen Guo"), parseName("CHENG, Teresa"))).toBeNull();
  });

  it("needs part of a listed surname: given names alone are not a match", () => {
    expect(alignNames(parseName("Miguel Angel Perez"), parseName("SOTO PARRA, Miguel Angel"))).toBeNull();
  });

  it("pairs a word listed both as a given name and as the surname with the surname", () => {
    expect(alignNames(parseName("Ahmed Sihab"), parseName("SIHAB, Ahmed Abdulrahman Sihab Ahmed"))).toMatchObject({
      pairs: expect.arrayContaining([expect.objectContaining({ query: [1], listed: [4] })]),
    });
  });

  it("counts typing slips: a letter changed, left out, added, or two swapped", () => {
    expect(withinEdits("kachanov", "kcahanocv", 2)).toBe(true);
    expect(withinEdits("mnangagwa", "mnnagawga", 2)).toBe(true);
    expect(withinEdits("kachanov", "kcahanocv", 1)).toBe(false);
    expect(withinEdits("kachanov", "kasyanov", 1)).toBe(false);
    expect(withinEdits("ostad", "oatad", 1)).toBe(true);
  });

  it("compares dates of birth with circa, ranges and day/month written the other way round", () => {
    const dob = (text: string) => [parseBirthDate(text)!];
    expect(compareBirthDate("1958-06-01", dob("circa 1957"))).toBe("year");
    expect(compareBirthDate("1961-06-01", dob("1960 to 1962"))).toBe("year");
    expect(compareBirthDate("1939-01-31", dob("31 Jan 1939"))).toBe("exact");
    expect(compareBirthDate("1939-04-03", dob("04 Mar 1939"))).toBe("near");
    expect(compareBirthDate("1940-02-15", dob("31 Jan 1939"))).toBe("conflict");
    expect(compareBirthDate(undefined, dob("1939"))).toBe("unknown");
  });
});

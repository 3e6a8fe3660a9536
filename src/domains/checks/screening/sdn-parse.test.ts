import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { countryCode, parseBirthDate, parseSdnCsv, WatchlistFormatError } from "./sdn-parse.js";
import { buildWatchlist, SHIPPED_WATCHLIST } from "./watchlist.js";

const row = (cells: string[]) => cells.map((c) => (c === "" ? "-0- " : `"${c}"`)).join(",");
const individual = (id: string, name: string, remarks: string) => row([id, name, "individual", "SDGT] [IRAN", "", "", "", "", "", "", "", remarks]);

describe("SDN parser", () => {
  it("reads an individual's names, weak aliases, dates of birth and nationalities", () => {
    const [entry] = parseSdnCsv(
      individual(
        "1",
        "AL-MASRI, Abu Hafs",
        "DOB 10 Dec 1948; alt. DOB 1950; alt. DOB circa 1955; alt. DOB 1960 to 1962; alt. DOB Mar 1970; POB Cairo, Egypt; nationality Egypt; alt. nationality Korea, North; citizen Burma; a.k.a. 'ABU HAFS'; f.k.a. 'ABU-'UMAR'; a.k.a. 'DOCTOR M.R.O.'.",
      ) + "\r\n",
    );
    expect(entry).toMatchObject({
      id: "1",
      type: "individual",
      programs: ["SDGT", "IRAN"],
      names: [
        { text: "AL-MASRI, Abu Hafs", kind: "primary", weak: false, surname: "AL-MASRI" },
        { text: "ABU HAFS", kind: "aka", weak: true },
        { text: "ABU-'UMAR", kind: "fka", weak: true },
        { text: "DOCTOR M.R.O.", kind: "aka", weak: true },
      ],
      nationalities: ["EG", "KP", "MM"],
    });
    expect(entry!.birthDates.map((b) => [b.from, b.to, b.precision, b.circa])).toEqual([
      ["1948-12-10", "1948-12-10", "day", false],
      ["1950-01-01", "1950-12-31", "year", false],
      ["1955-01-01", "1955-12-31", "year", true],
      ["1960-01-01", "1962-12-31", "range", false],
      ["1970-03-01", "1970-03-31", "month", false],
    ]);
  });

  it("reads date of birth forms the list uses and refuses impossible ones", () => {
    expect(parseBirthDate("01 Jan 1960 to 31 Dec 1962")).toMatchObject({ from: "1960-01-01", to: "1962-12-31", precision: "range" });
    expect(parseBirthDate("circa 1960-1962")).toMatchObject({ from: "1960-01-01", to: "1962-12-31", circa: true });
    expect(parseBirthDate("Feb 1964")).toMatchObject({ from: "1964-02-01", to: "1964-02-29" });
    expect(parseBirthDate("30 Feb 1964")).toBeNull();
    expect(parseBirthDate("1962 to 1960")).toBeNull();
  });

  it("maps OFAC's country words to ISO alpha-2", () => {
    expect(
      ["Russia", "Iran", "Syria", "Korea, North", "Burma", "Palestinian", "Congo, Democratic Republic of the", "United Kingdom", "GB", "DEU"].map(countryCode),
    ).toEqual(["RU", "IR", "SY", "KP", "MM", "PS", "CD", "GB", "GB", "DE"]);
    expect(countryCode("Yugoslavia")).toBeNull();
  });

  it("tells entities, vessels and aircraft from individuals", () => {
    const entries = parseSdnCsv(
      [
        row(["2", "BANCO NACIONAL DE CUBA", "", "CUBA", "", "", "", "", "", "", "", "a.k.a. 'BNC'."]),
        row(["3", "SEA STAR", "vessel", "IRAN", "", "", "", "", "", "", "", ""]),
      ].join("\n"),
    );
    expect(entries.map((e) => e.type)).toEqual(["entity", "vessel"]);
  });

  it("rejects a file that is not an SDN list, naming the line", () => {
    expect(() => parseSdnCsv("ent_num,name\n1,x\n")).toThrow(WatchlistFormatError);
    expect(() => parseSdnCsv(`${individual("1", "A, B", "")}\n"x",1,2\n`)).toThrow(/line 2/);
    expect(() => buildWatchlist(row(["2", "BANCO NACIONAL DE CUBA", "", "CUBA", "", "", "", "", "", "", "", ""]), "x.csv")).toThrow(/no individuals/);
  });

  it("parses the shipped list whole", () => {
    const entries = parseSdnCsv(readFileSync(SHIPPED_WATCHLIST, "utf8"));
    const individuals = entries.filter((e) => e.type === "individual");
    expect(entries).toHaveLength(14_965);
    expect(individuals).toHaveLength(6_854);
    expect(individuals.filter((e) => e.birthDates.length).length).toBe(6_736);
    // every DOB remark of the file parses
    expect(entries.reduce((n, e) => n + e.birthDates.length, 0)).toBe(readFileSync(SHIPPED_WATCHLIST, "utf8").match(/DOB [^;"]+/g)!.length);
    expect(entries.find((e) => e.id === "12606")).toMatchObject({
      names: [{ text: "QADHAFI, Muammar" }],
      birthDates: [{ from: "1942-01-01", to: "1942-12-31" }],
    });
  });
});

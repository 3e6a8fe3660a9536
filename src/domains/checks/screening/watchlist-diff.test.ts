import { describe, expect, it } from "vitest";
import { hasCandidates } from "./screen-person.js";
import { buildWatchlist } from "./watchlist.js";
import { diffWatchlists, entriesList } from "./watchlist-diff.js";

const EMPTY = "-0- ";
const row = (id: number, name: string, type: string, program: string, remarks: string) =>
  [id, `"${name}"`, type ? `"${type}"` : EMPTY, `"${program}"`, ...Array(7).fill(EMPTY), remarks ? `"${remarks}"` : EMPTY].join(",");
const list = (...rows: string[]) => `${rows.join("\r\n")}\r\n`;

const before = list(
  row(10, "OKONKWO-BRANDT, Ifeoma Lisbet", "individual", "SDGT", "DOB 02 Feb 1982; nationality Malta."),
  row(11, "VASQUARIDES, Tomasz", "individual", "SDGT", "DOB 1970."),
  row(12, "HALVORSEN-QUIROGA, Benedikt", "individual", "SDGT", "DOB 1961."),
  row(13, "PELLINGTON, Aurelio", "individual", "SDGT", "DOB 1955."),
  row(20, "ACME TRADING LLC", "", "SDGT", ""),
);
const after = list(
  // a date of birth corrected: changed
  row(10, "OKONKWO-BRANDT, Ifeoma Lisbet", "individual", "SDGT", "DOB 02 Feb 1983; nationality Malta."),
  // a program added and a remark: the same identity, not changed
  row(11, "VASQUARIDES, Tomasz", "individual", "SDGT] [IRAN", "DOB 1970; Passport 123."),
  // an alias added: changed
  row(13, "PELLINGTON, Aurelio", "individual", "SDGT", "DOB 1955; a.k.a. 'PELLINGTON, Aurelius Maximo'."),
  // 12 removed; 14 added
  row(14, "ZWEIFELHOFER, Annunziata", "individual", "SDGT", "DOB 1990."),
  // an entity changed and one added: not screened, not compared
  row(20, "ACME TRADING COMPANY LLC", "", "SDGT", ""),
  row(21, "OTHER HOLDINGS", "", "SDGT", ""),
);

describe("watchlist diff", () => {
  const previous = buildWatchlist(before, "ofac-sdn-2024-05-03.csv");
  const next = buildWatchlist(after, "ofac-sdn-2024-06-01.csv");

  it("finds the individuals added, changed (identity data) and removed by ent_num, ignoring programs, remarks and entities", () => {
    expect(diffWatchlists(previous, next)).toEqual({ added: ["14"], changed: ["10", "13"], removed: ["12"] });
    expect(diffWatchlists(next, next)).toEqual({ added: [], changed: [], removed: [] });
    expect(diffWatchlists(next, previous)).toEqual({ added: ["12"], changed: ["10", "13"], removed: ["14"] });
  });

  it("indexes just the entries named as a list of their own, which the matcher's retrieval searches", () => {
    const brought = entriesList(next, ["10", "13", "14", "12"]); // 12 is no longer listed: left out
    expect(brought.entries.map((e) => e.id)).toEqual(["10", "13", "14"]);
    expect(brought.version).toEqual(next.version);
    expect(brought.stats).toMatchObject({ individuals: 3, names: 4 });
    // a typo, another order, a hyphenated name cut short: retrieval finds them, whatever the score would be
    for (const person of [
      { firstName: "Ifeoma", lastName: "Okonkwo Brandt" },
      { firstName: "Aurelius", lastName: "Pellingten" },
      { firstName: "Zweifelhofer", lastName: "Annunziata" },
    ])
      expect(hasCandidates(person, brought), person.lastName).toBe(true);
    // one word in common is not a candidate; nor is someone listed but not in the update
    for (const person of [
      { firstName: "Ifeoma", lastName: "Smith" },
      { firstName: "Tomasz", lastName: "Vasquarides" },
      { firstName: "Mei", lastName: "Lim" },
    ])
      expect(hasCandidates(person, brought), person.lastName).toBe(false);
    expect(hasCandidates({ firstName: "Tomasz", lastName: "Vasquarides" }, next)).toBe(true);
    expect(entriesList(next, []).names).toEqual([]);
  });
});

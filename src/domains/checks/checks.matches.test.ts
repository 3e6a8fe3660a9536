import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { invalid, MAX_LISTED_PROBLEMS } from "../../lib/errors.js";
import { jsonBytesWithin } from "../../lib/json-bounds.js";
import { MATCH_LIMITS, postedMatchesErrors, readMatch, readMatches, readResult, storedMatches } from "./checks.matches.js";
import { sandboxListMatch } from "./screening/sandbox-list.js";
import { screenPerson } from "./screening/screen-person.js";
import { loadWatchlist } from "./screening/watchlist.js";

const matcherMatch = sandboxListMatch({ firstName: "Ana", lastName: "SandboxReview", dateOfBirth: "1990-01-01", nationality: "SG" })!;

describe("posted matches on arrival", () => {
  it("take the matcher's own shape, and an upstream provider's few fields, in either spelling", () => {
    expect(postedMatchesErrors([matcherMatch])).toEqual([]);
    expect(postedMatchesErrors([{ entryId: "UP-7", name: "CRUZ, Ana", details: { case_ref: "C-1", confidence: 0.9 } }])).toEqual([]);
    expect(postedMatchesErrors([{ entry_id: "UP-7", entry_names: ["CRUZ, Ana"], list_version: "v2" }])).toEqual([]);
    expect(storedMatches([{ entry_id: "UP-7", entry_names: ["A"], details: { case_ref: "C-1" } }])).toEqual([
      { entryId: "UP-7", entryNames: ["A"], details: { case_ref: "C-1" } },
    ]);
    expect(postedMatchesErrors(null)).toEqual([]);
  });

  it("name each odd field by its path", () => {
    const errors = postedMatchesErrors([{ entryId: "UP-1", entryNames: "CRUZ, Ana" }, "noise", { entryId: 5, score: 7, colour: "red" }]);
    expect(errors.map((e) => e.field).sort()).toEqual(["matches.0.entryNames", "matches.1", "matches.2.colour", "matches.2.entryId", "matches.2.score"]);
    expect(errors.find((e) => e.field === "matches.2.colour")).toMatchObject({ code: "unknown_field" });
    expect(postedMatchesErrors([{ entryId: "UP-1", explanation: { name: { pairs: [] } } }])[0]!.field).toMatch(/^matches\.0\.explanation\./);
    expect(postedMatchesErrors([{ details: { k: { nested: true } } }])[0]!.field).toMatch(/^matches\.0\.details/);
  });

  it("refuse sizes before shapes: too many, a match too large, all of them too large; the problems listed are few", () => {
    expect(postedMatchesErrors(Array(51).fill({ entryId: "X" }))).toEqual([expect.objectContaining({ field: "matches", code: "too_long" })]);
    const huge = { entryId: "X", entryNames: Array.from({ length: 300_000 }, () => 0) };
    expect(postedMatchesErrors([{ entryId: "A" }, huge])).toEqual([expect.objectContaining({ field: "matches.1", code: "too_long" })]);
    const large = { entryId: "X", reasons: Array(50).fill("r".repeat(190)) }; // ~10 KB, within a match
    expect(postedMatchesErrors(Array(7).fill(large))).toEqual([expect.objectContaining({ field: "matches", code: "too_long" })]);
    const odd = Array.from({ length: 50 }, (_, i) => ({ entryId: i, score: "high", status: "MAYBE" }));
    // every problem is found; the answer lists the first of them and counts the rest, as every problem list does
    const found = postedMatchesErrors(odd);
    const refused = invalid(found);
    expect(refused.fields).toHaveLength(MAX_LISTED_PROBLEMS);
    expect(refused.meta).toEqual({ errorsOmitted: found.length - MAX_LISTED_PROBLEMS });
  });
});

describe("stored matches read back", () => {
  it("show the matcher's own match as it was stored", () => {
    expect(readMatch(JSON.parse(JSON.stringify(matcherMatch)))).toEqual(JSON.parse(JSON.stringify(matcherMatch)));
  });

  it("show the OFAC matcher's matches as they were stored, and take them as posted matches too", async () => {
    const watchlist = await loadWatchlist();
    const people = [
      { firstName: "Qasem", lastName: "Soleimani", dateOfBirth: "1957-03-11", nationality: "IR" },
      { firstName: "Muammar", lastName: "Gaddafi", dateOfBirth: null, nationality: null },
      { firstName: "Abid", middleName: "Hamid", lastName: "Mahmud al-Tikriti", dateOfBirth: "1990-03-01", nationality: "FR" },
    ];
    const matches = people.flatMap((person) => JSON.parse(JSON.stringify(screenPerson(person, watchlist).matches)) as unknown[]);
    expect(matches.length).toBeGreaterThan(2);
    expect(readMatches(matches)).toEqual(matches);
    expect(postedMatchesErrors(matches.slice(0, 10))).toEqual([]);
  }, 60_000);

  it("tolerate the odd shapes of older rows: a lone name, no explanation or half of one, fields of another type", () => {
    expect(readMatch({ entryId: "UP-1", entryNames: "CRUZ, Ana" })).toMatchObject({ entryId: "UP-1", entryNames: ["CRUZ, Ana"], explanation: null });
    expect(readMatch({ entryId: "UP-1", entryNames: { a: 1 } }).entryNames).toEqual([]);
    expect(readMatch({ entryId: "UP-1", entryNames: ["A", 5, null, "B"] }).entryNames).toEqual(["A", "B"]);
    expect(readMatch({ entryId: "UP-1", explanation: { name: { pairs: [] } } }).explanation).toBeNull();
    const odd = readMatch({ entryId: "UP-1", name: { not: "a string" }, score: 7, reasons: "x", status: "MAYBE" });
    expect(odd).toMatchObject({ entryId: "UP-1", score: 1, reasons: [], entryNames: [], explanation: null });
    expect(odd.name).toBeUndefined();
    expect(odd.status).toBeUndefined();
    expect(readMatch("noise")).toMatchObject({ omitted: "unreadable", entryNames: [] });
  });

  it("show a match too large as a marker naming its entry, and no more than the bytes a result may hold", () => {
    const huge = { entryId: "UP-9", entryNames: Array.from({ length: 300_000 }, () => []) };
    expect(readMatch(huge)).toMatchObject({ entryId: "UP-9", omitted: "oversize", entryNames: [] });
    const large = { entryId: "X", reasons: Array(50).fill("r".repeat(190)) };
    const read = readMatches(Array(60).fill(large));
    expect(read).toHaveLength(MATCH_LIMITS.count);
    expect(jsonBytesWithin(read, 2 * MATCH_LIMITS.totalBytes)).toBeLessThanOrEqual(MATCH_LIMITS.totalBytes + MATCH_LIMITS.count * 100);
    expect(read.at(-1)).toMatchObject({ entryId: "X", omitted: "oversize" });
  });

  it("never throw, and stay within the bounds, whatever JSON a row holds", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (stored) => {
        const result = readResult({ score: 0.5, reasons: ["r"], matches: [stored, { entryId: "A", entryNames: stored, explanation: stored }] });
        expect(result!.matches.every((m) => Array.isArray(m.entryNames) && m.entryNames.length <= MATCH_LIMITS.entryNames)).toBe(true);
        expect(jsonBytesWithin(result, Infinity)).toBeLessThanOrEqual(MATCH_LIMITS.totalBytes + 4096);
        readResult(stored);
      }),
      { numRuns: 300 },
    );
  });
});

describe("jsonBytesWithin", () => {
  it("counts a value's JSON bytes, and stops counting past the limit", () => {
    for (const value of [null, 1.5, "héllo", [1, "a", { b: [true, null] }], { ключ: "значение", n: -3 }])
      expect(jsonBytesWithin(value, 1000)).toBe(Buffer.byteLength(JSON.stringify(value)));
    expect(jsonBytesWithin(Array(1_000_000).fill(0), 100)).toBe(101);
  });
});

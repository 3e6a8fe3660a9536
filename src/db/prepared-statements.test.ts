import { describe, expect, it } from "vitest";
import { hotStatementNames } from "./prepared-statements.js";

describe("names of hot statements", () => {
  it("names a text once it has been seen `after` times, always the same name, and one name per text", () => {
    const named = hotStatementNames({ after: 3 });
    expect([named("select $1"), named("select $1")]).toEqual([undefined, undefined]);
    const name = named("select $1");
    expect(name).toMatch(/^og_/);
    expect(named("select $1")).toBe(name);
    for (let i = 0; i < 3; i++) named("select $2");
    expect(named("select $2")).not.toBe(name);
  });

  it("names at most `max` texts, and forgets the texts it counts in bulk", () => {
    const named = hotStatementNames({ after: 1, max: 2, counted: 3 });
    expect([named("a"), named("b")].every(Boolean)).toBe(true);
    expect(named("c")).toBeUndefined(); // full: the third stays unnamed however often it comes
    expect(named("c")).toBeUndefined();
    const counting = hotStatementNames({ after: 2, counted: 2 });
    counting("x");
    counting("y");
    counting("z"); // x and y forgotten when z came
    expect(counting("x")).toBeUndefined();
    expect(counting("z")).toMatch(/^og_/);
  });
});

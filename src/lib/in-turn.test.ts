import { describe, expect, it } from "vitest";
import { inTurns } from "./in-turn.js";

describe("inTurns", () => {
  it("runs the calls of one key one after another, other keys alongside, past a failure", async () => {
    const inTurn = inTurns();
    const log: string[] = [];
    const step =
      (name: string, ms: number, fail = false) =>
      async () => {
        log.push(`${name}+`);
        await new Promise((r) => setTimeout(r, ms));
        log.push(`${name}-`);
        if (fail) throw new Error(name);
        return name;
      };
    const results = await Promise.allSettled([inTurn("a", step("a1", 30, true)), inTurn("a", step("a2", 5)), inTurn("b", step("b1", 5))]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "fulfilled", "fulfilled"]);
    expect(log.indexOf("a2+")).toBeGreaterThan(log.indexOf("a1-")); // a2 waited for a1, though a1 failed
    expect(log.indexOf("b1-")).toBeLessThan(log.indexOf("a1-")); // b did not wait for a
  });
});

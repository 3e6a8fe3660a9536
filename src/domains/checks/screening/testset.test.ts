/**
 * Recall and false hits of the built-in screening on the project's own test set (testset/README.md):
 * listed individuals written every way people write them must come back CONSIDER or REJECTED,
 * unlisted people CLEAR. Floors: recall 0.99 on every kind; false hits 0.5 % on common names, 2 % on
 * names sharing a word with a listed one. `npx tsx bench/screening-eval.ts` prints the same tables.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { loadWatchlist } from "./watchlist.js";
import { evaluate, loadTestset, markdown, type Evaluation } from "./testset/evaluate.js";

let evaluation: Evaluation;
beforeAll(async () => {
  evaluation = evaluate(await loadWatchlist(), loadTestset());
  console.log(markdown(evaluation));
});

const rate = (kind: string) => {
  const row = evaluation.falseHits.find((r) => r.kind === kind)!;
  return { cases: row.cases, rate: row.count / row.cases, flagged: row.failures };
};

describe("screening test set", () => {
  it("finds at least 99 % of the listed individuals of every kind, however they are written", () => {
    const below = evaluation.recall.filter((r) => r.count / r.cases < 0.99);
    if (below.length) console.log(`missed:\n${below.flatMap((r) => r.failures).join("\n")}`);
    expect(evaluation.recall.reduce((n, r) => n + r.cases, 0)).toBeGreaterThanOrEqual(900);
    expect(below.map((r) => `${r.kind}: ${r.count}/${r.cases}`)).toEqual([]);
  });

  it("rejects every exact name whose date of birth agrees", () => {
    expect(evaluation.strong.rejected).toBe(evaluation.strong.cases);
  });

  it("leaves at most 0.5 % of unlisted common names flagged", () => {
    const { cases, rate: flagged, flagged: which } = rate("ordinary names");
    if (which.length) console.log(`flagged:\n${which.join("\n")}`);
    expect(cases).toBeGreaterThanOrEqual(400);
    expect(flagged).toBeLessThanOrEqual(0.005);
  });

  it("leaves at most 2 % of unlisted names sharing a word with a listed one flagged", () => {
    const { cases, rate: flagged, flagged: which } = rate("sharing a word with a listed name");
    if (which.length) console.log(`flagged:\n${which.join("\n")}`);
    expect(cases).toBeGreaterThanOrEqual(400);
    expect(flagged).toBeLessThanOrEqual(0.02);
  });
});

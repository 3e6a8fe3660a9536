/**
 * The import rules of src/ (.dependency-cruiser.cjs), checked with dependency-cruiser: no circle, and
 * no import from src/db or src/lib into the layers above. A fixture that breaks both shows the rules bite.
 */
import { createRequire } from "node:module";
import { cruise, type ICruiseResult } from "dependency-cruiser";
import { describe, expect, it } from "vitest";

const { forbidden, options } = createRequire(import.meta.url)("../.dependency-cruiser.cjs");

async function violations(paths: string[]) {
  const { output } = await cruise(paths, { ...options, validate: true, ruleSet: { forbidden } });
  return (output as ICruiseResult).summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
}

describe("layers of src/", () => {
  it("has no import circle and no import from src/db or src/lib into a domain", async () => {
    expect(await violations(["src"])).toEqual([]);
  }, 60_000);

  it("refuses a database helper that imports a domain, and a circle", async () => {
    const found = await violations(["test/fixtures/layers/src"]);
    expect(found).toContain("db-and-lib-know-no-domain: test/fixtures/layers/src/db/helper.mjs → test/fixtures/layers/src/domains/users/users.service.mjs");
    expect(found.some((v) => v.startsWith("no-circular: "))).toBe(true);
  }, 60_000);
});

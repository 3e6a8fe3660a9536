/**
 * The import rules of src/ (.dependency-cruiser.cjs), checked with dependency-cruiser: no circle; no
 * import from src/db, src/lib or the platform into a module or a layer above; no import from one
 * module into another. Imports between modules still to be moved into flows are listed in
 * .dependency-cruiser-known-violations.json: that list may only shrink. A fixture that breaks each
 * rule shows the rules bite.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { cruise, type ICruiseResult, type IViolation } from "dependency-cruiser";
import { describe, expect, it } from "vitest";

const { forbidden, options } = createRequire(import.meta.url)("../.dependency-cruiser.cjs");
const known: IViolation[] = JSON.parse(readFileSync(new URL("../.dependency-cruiser-known-violations.json", import.meta.url), "utf8"));
const named = (v: Pick<IViolation, "rule" | "from" | "to">) => `${v.rule.name}: ${v.from} → ${v.to}`;

async function violations(paths: string[]) {
  const { output } = await cruise(paths, { ...options, validate: true, ruleSet: { forbidden } });
  return (output as ICruiseResult).summary.violations.map(named);
}

describe("layers of src/", () => {
  it("breaks no rule beyond the known imports between modules, and each known one is still there", async () => {
    const found = await violations(["src"]);
    const listed = known.map(named);
    expect(
      found.filter((v) => !listed.includes(v)),
      "new violations",
    ).toEqual([]);
    // a known import that is gone leaves the list with it, so the list only ever shrinks
    expect(
      listed.filter((v) => !found.includes(v)),
      "known violations no longer found",
    ).toEqual([]);
    const debts = ["module-knows-no-other-module", "module-core-calls-no-flow"];
    expect(known.filter((v) => !debts.includes(v.rule.name)).map(named), "only imports still to move into flows may be known").toEqual([]);
  }, 60_000);

  it("refuses a database helper or a platform file that imports a module, a module that imports another, and a circle", async () => {
    const found = await violations(["test/fixtures/layers/src"]);
    expect(found).toContain("db-and-lib-know-no-domain: test/fixtures/layers/src/db/helper.mjs → test/fixtures/layers/src/domains/users/users.service.mjs");
    expect(found).toContain(
      "platform-knows-no-module: test/fixtures/layers/src/platform/outbox.mjs → test/fixtures/layers/src/domains/users/users.service.mjs",
    );
    expect(found).toContain(
      "module-knows-no-other-module: test/fixtures/layers/src/domains/checks/checks.engine.mjs → test/fixtures/layers/src/domains/users/users.service.mjs",
    );
    expect(found.some((v) => v.startsWith("no-circular: "))).toBe(true);
  }, 60_000);
});

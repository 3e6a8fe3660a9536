/** The catalogue rows: every shipped one is valid and agrees with its corridor; a broken one is reported whole. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { camelKeys, toSnake } from "../../../lib/case.js";
import type { FieldError } from "../../../lib/errors.js";
import { fromRoot } from "../../../lib/paths.js";
import { checkRequirementRow, requirementsInEffect } from "./requirements.rules.js";
import { shippedCatalogue, shippedRequirementRows } from "./requirements.shipped.js";
import { REQUIREMENT_CATEGORIES } from "./requirements.spec.js";

const file = JSON.parse(readFileSync(fromRoot("data", "remittance", "requirements.json"), "utf8")) as Record<string, unknown>[];
const { corridors } = shippedCatalogue();
const check = (row: Record<string, unknown>) => {
  const errors: FieldError[] = [];
  const checked = checkRequirementRow(row, (f) => `requirements.0.${toSnake(f)}`, errors);
  return { checked, errors };
};

describe("the shipped requirement catalogue", () => {
  it("every row passes checkRequirementRow", () => {
    for (const [i, row] of file.entries()) expect(check(row).errors, `row ${i}`).toEqual([]);
  });

  it("is sorted by corridor_id, then version, each with an effective_at in UTC and a source", () => {
    const keys = file.map((r) => `${r.corridor_id}@${String(r.version).padStart(6, "0")}`);
    expect(keys).toEqual([...keys].sort());
    expect(new Set(keys).size).toBe(keys.length);
    for (const r of file) {
      expect(r.effective_at).toBe("2026-01-01T00:00:00Z");
      expect(String(r.source).length).toBeGreaterThan(40);
    }
  });

  it("every corridor in corridors.json has a version, and every row a corridor", () => {
    const rows = shippedRequirementRows();
    for (const c of corridors) expect(requirementsInEffect(rows, c.id, new Date("2026-01-01T00:00:00Z")), c.id).toBeDefined();
    for (const r of rows) expect(corridors.map((c) => c.id)).toContain(r.corridorId);
  });

  it("every name in a corridor's flat required_fields is a required beneficiary field of some payout method", () => {
    const rows = shippedRequirementRows();
    for (const c of corridors) {
      const { spec } = rows.find((r) => r.corridorId === c.id)!;
      const requiredSets = spec.beneficiary.alternatives.map((alt) => [...spec.beneficiary.fields, ...alt.fields].filter((f) => f.required).map((f) => f.key));
      for (const name of c.requiredFields)
        expect(
          requiredSets.some((set) => set.includes(name)),
          `${c.id}: ${name}`,
        ).toBe(true);
    }
  });

  it("keeps thresholds inside the corridor's limits and limits on the increment", () => {
    for (const { corridorId, spec } of shippedRequirementRows()) {
      const c = corridors.find((x) => x.id === corridorId)!;
      expect(c.minAmount % spec.amount.increment, corridorId).toBe(0);
      expect(c.maxAmount % spec.amount.increment, corridorId).toBe(0);
      for (const t of [...spec.conditions.map((x) => x.when.amount_at_least ?? c.maxAmount), ...spec.documents.map((d) => d.min_amount)]) {
        expect(t, corridorId).toBeGreaterThan(c.minAmount);
        expect(t, corridorId).toBeLessThanOrEqual(c.maxAmount);
      }
    }
  });

  it("has a documents requirement above a threshold on every bank corridor, and invalid examples of every category", () => {
    const rows = shippedRequirementRows();
    for (const c of corridors.filter((x) => x.receivingInstitutionType === "BANK"))
      expect(rows.find((r) => r.corridorId === c.id)!.spec.documents.length, c.id).toBeGreaterThan(0);
    const seen = new Set(rows.flatMap((r) => r.spec.invalid_examples.flatMap((e) => e.errors.map((x) => x.category))));
    expect([...seen].sort()).toEqual([...REQUIREMENT_CATEGORIES].sort());
  });
});

describe("checkRequirementRow", () => {
  const good = () => structuredClone(file.find((r) => r.corridor_id === "vn-vnd-bank")!) as Record<string, any>;

  it("takes a row whose keys camelKeys turned to camelCase (as the reference import does) and returns the same spec", () => {
    const snake = check(good());
    const camel = check(camelKeys(good()) as Record<string, unknown>);
    expect(camel.errors).toEqual([]);
    expect(camel.checked).toEqual(snake.checked);
    expect(snake.checked).toMatchObject({ corridorId: "vn-vnd-bank", version: 1, effectiveAt: new Date("2026-01-01T00:00:00Z") });
    expect(snake.checked!.spec.examples[0].body).toHaveProperty("purpose_of_remittance");
  });

  it("pushes every problem of a row, each named", () => {
    const row = good();
    delete row.corridor_id;
    row.version = 0;
    row.effective_at = "2026-01-01 00:00";
    row.colour = "blue";
    row.amount.increment = 7;
    const alts = row.beneficiary.alternatives;
    alts[1].payout_method = "account_number";
    alts[0].fields[1].pattern = "([0-9]";
    alts[0].fields = alts[0].fields.filter((f: { key: string }) => f.key !== "bank_code");
    row.conditions[0].require.push("beneficiary.card_number");
    row.documents[0].accepted_types.push("LIBRARY_CARD");
    const { checked, errors } = check(row);
    expect(checked).toBeUndefined();
    expect(errors.map((e) => e.field).sort()).toEqual(
      [
        "requirements.0.corridor_id",
        "requirements.0.version",
        "requirements.0.effective_at",
        "requirements.0.colour",
        "requirements.0.beneficiary.alternatives.0.fields.0.pattern",
        "requirements.0.documents.0.accepted_types.4",
      ].sort(),
    );
    // the shape is fixed first; what crosses fields is checked on a well-shaped row
    const shaped = good();
    shaped.amount.increment = 7;
    shaped.beneficiary.alternatives[1].payout_method = "account_number";
    shaped.beneficiary.alternatives[0].fields = shaped.beneficiary.alternatives[0].fields.filter((f: { key: string }) => f.key !== "bank_code");
    shaped.conditions[0].require.push("beneficiary.card_number");
    expect(
      check(shaped)
        .errors.map((e) => e.field)
        .sort(),
    ).toEqual(
      [
        "requirements.0.beneficiary.alternatives.0.fields",
        "requirements.0.beneficiary.alternatives.1.payout_method",
        "requirements.0.conditions.0.require",
        "requirements.0.documents.0.min_amount",
        "requirements.0.conditions.0.when.amount_at_least",
      ].sort(),
    );
  });

  it("refuses a condition on the institution unless every payout method names it by institution_id", () => {
    const row = good();
    row.conditions.push({ when: { institution_ids: ["vn-vietcombank"] }, require: ["sender.id_number"], reason: "test" });
    expect(check(row).errors.map((e) => e.field)).toEqual(["requirements.0.conditions.1.when.institution_ids"]);
  });

  it("needs a NUBAN's bank code field beside it", () => {
    const row = structuredClone(file.find((r) => r.corridor_id === "ng-ngn-bank")!) as Record<string, any>;
    const fields = row.beneficiary.alternatives[0].fields;
    fields[0] = { ...fields[0], key: "institution_id", format: "institution_id", institution: { by: "id" }, pattern: undefined };
    delete fields[0].pattern;
    expect(check(row).errors.map((e) => e.message)).toEqual([expect.stringMatching(/nuban field but no bank code field/)]);
  });
});

describe("requirementsInEffect", () => {
  const rows = [
    { corridorId: "a", version: 1, effectiveAt: new Date("2026-01-01T00:00:00Z") },
    { corridorId: "a", version: 2, effectiveAt: new Date("2026-07-01T00:00:00Z") },
    { corridorId: "b", version: 1, effectiveAt: new Date("2026-01-01T00:00:00Z") },
  ];
  it("picks the highest version whose effective_at has passed", () => {
    expect(requirementsInEffect(rows, "a", new Date("2025-12-31T23:59:59Z"))).toBeUndefined();
    expect(requirementsInEffect(rows, "a", new Date("2026-03-01T00:00:00Z"))?.version).toBe(1);
    expect(requirementsInEffect(rows, "a", new Date("2026-07-01T00:00:00Z"))?.version).toBe(2);
    expect(requirementsInEffect(rows, "c")).toBeUndefined();
  });
});

/**
 * Every shipped corridor against its own examples: the JSON Schema (checked by Ajv 2020, a
 * third-party validator) accepts each valid example and rejects each invalid one it can tell;
 * the dry run accepts each valid example and returns exactly the errors each invalid one lists.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, describe, expect, it } from "vitest";
import { validatePayout } from "./beneficiary.validate.js";
import { corridorJsonSchema, SCHEMA_ANNOTATIONS, type JsonSchema } from "./requirements.json-schema.js";
import { shippedCatalogue, shippedRequirementRows } from "./requirements.shipped.js";
import type { RequirementSpec } from "./requirements.spec.js";

const rows = shippedRequirementRows();
const { corridors, index } = shippedCatalogue();
const cases = corridors.map((corridor) => {
  const row = rows.find((r) => r.corridorId === corridor.id)!;
  return { id: corridor.id, corridor, spec: row.spec };
});

/** Ajv in its default strict mode, told of our annotations: an unknown keyword anywhere else fails the compile */
const warnings: unknown[] = [];
const ajv = new Ajv2020({
  allErrors: true,
  logger: { log: () => {}, warn: (...w: unknown[]) => warnings.push(w), error: (...e: unknown[]) => warnings.push(e) },
});
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
for (const keyword of SCHEMA_ANNOTATIONS.keywords) ajv.addKeyword(keyword);
for (const format of SCHEMA_ANNOTATIONS.formats) ajv.addFormat(format, true);
const compile = (schema: JsonSchema) => ajv.compile(schema);

const sorted = (errors: { path: string; category: string }[]) => errors.map((e) => `${e.path} ${e.category}`).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
const methodOf = (spec: RequirementSpec, body: Record<string, unknown>) => {
  if (typeof body.payout_method === "string") return body.payout_method;
  const b = body.beneficiary as Record<string, unknown>;
  return spec.beneficiary.alternatives.find((alt) => alt.fields.every((f) => !f.required || b[f.key] !== undefined))!.payout_method;
};

describe("shipped corridor requirements against their own examples", () => {
  afterAll(() => {
    // Ajv's default strict mode (strictTypes) logs what it finds odd: our schemas give it nothing
    expect(warnings).toEqual([]);
  });

  it("covers every corridor of corridors.json", () => {
    expect(cases.map((c) => c.id)).toHaveLength(28);
    for (const c of cases) expect(c.spec, c.id).toBeDefined();
  });

  describe.each(cases)("$id", ({ corridor, spec }) => {
    // an INACTIVE corridor refuses every payout; its examples are otherwise checked as if it were open
    const open = { ...corridor, status: "ACTIVE" };
    const validate = compile(corridorJsonSchema(open, spec));

    it.each(spec.examples.map((e) => [e.title, e.body] as const))("Ajv and the dry run accept: %s", (_title, body) => {
      expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
      const result = validatePayout({ corridor: open, spec, body }, index);
      expect(result.ok ? [] : result.errors).toEqual([]);
    });

    it.each(spec.examples.map((e) => [e.title, e.body] as const))("the schema resolved for its amount and method accepts: %s", (_title, body) => {
      const schema = corridorJsonSchema(open, spec, { amount: body.amount as number, payoutMethod: methodOf(spec, body) });
      const check = compile(schema);
      expect(check(body), JSON.stringify(check.errors)).toBe(true);
      expect(schema.examples, "the example is published in the resolved schema").toContainEqual(body);
    });

    it.each(spec.invalid_examples.map((e) => [e.title, e] as const))("the dry run returns exactly the listed errors: %s", (_title, example) => {
      const result = validatePayout({ corridor: open, spec, body: example.body }, index);
      expect(result.ok).toBe(false);
      expect(sorted(result.ok ? [] : result.errors)).toEqual(sorted(example.errors));
    });

    it.each(spec.invalid_examples.filter((e) => e.schema_can_tell).map((e) => [e.title, e.body] as const))("Ajv rejects: %s", (_title, body) => {
      expect(validate(body)).toBe(false);
    });

    it.each(spec.invalid_examples.filter((e) => !e.schema_can_tell).map((e) => [e.title, e.body] as const))(
      "Ajv accepts what only a lookup or a check digit refuses: %s",
      (_title, body) => {
        expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
      },
    );

    it("publishes its valid examples and none of the invalid ones", () => {
      const schema = corridorJsonSchema(open, spec);
      expect(schema.examples).toEqual(spec.examples.map((e) => e.body));
      expect(JSON.stringify(schema)).not.toContain("invalid_examples");
    });

    it.runIf(corridor.status !== "ACTIVE")("refuses every payout while INACTIVE", () => {
      for (const { body } of spec.examples) {
        const result = validatePayout({ corridor, spec, body }, index);
        expect(sorted(result.ok ? [] : result.errors)).toEqual(["corridor_id not_allowed"]);
      }
    });
  });
});

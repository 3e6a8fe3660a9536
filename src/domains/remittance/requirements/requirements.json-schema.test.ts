/** The JSON Schema builder's shape and options: payout methods as oneOf, conditions as if/then, and what `amount` and `payoutMethod` change. */
import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { DomainError } from "../../../lib/errors.js";
import { fromRoot } from "../../../lib/paths.js";
import { corridorJsonSchema, RequirementOptionError, type JsonSchema } from "./requirements.json-schema.js";
import { shippedCatalogue, shippedRequirementRows } from "./requirements.shipped.js";

const rows = shippedRequirementRows();
const { corridors, index } = shippedCatalogue();
const facts = (id: string) => corridors.find((c) => c.id === id)!;
const spec = (id: string) => rows.find((r) => r.corridorId === id)!.spec;
const schemaOf = (id: string, options = {}) => corridorJsonSchema(facts(id), spec(id), options);
const props = (s: JsonSchema) => s.properties as Record<string, JsonSchema>;
const required = (s: JsonSchema, section: string) => props(s)[section].required as string[];
const thresholdsOf = (s: JsonSchema) => ((s.allOf as JsonSchema[] | undefined) ?? []).map((c) => ((c.if as JsonSchema).properties as any).amount.minimum);

const body = (id: string, n = 0) => structuredClone(spec(id).examples[n].body);

describe("corridorJsonSchema", () => {
  it("is a 2020-12 document for the dry-run body, with labels, patterns, format annotations and the currency's precision", () => {
    const s = schemaOf("in-inr-bank");
    expect(s.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(Object.keys(props(s))).toEqual(["amount", "payout_method", "purpose_of_remittance", "sender", "beneficiary", "documents"]);
    expect(s.required).toEqual(["amount", "purpose_of_remittance", "sender", "beneficiary"]);
    expect(s.additionalProperties).toBe(false);
    expect(props(s).amount).toMatchObject({
      type: "integer",
      minimum: 10000,
      maximum: 150000000,
      multipleOf: 1,
      "x-currency": "INR",
      "x-minor-unit-digits": 2,
    });
    const ifsc = props(props(s).beneficiary).ifsc_code;
    expect(ifsc).toMatchObject({ type: "string", title: "IFSC", format: "ifsc", pattern: "^[A-Za-z]{4}0[A-Za-z0-9]{6}$" });
    expect(props(s).purpose_of_remittance.oneOf).toContainEqual({ const: "P1301", title: expect.stringContaining("Family maintenance") });
    expect(props(props(s).sender).id_type.oneOf).toContainEqual({ const: "PASSPORT", title: "Passport" });
    // the catalogue lookups publish no format: no validator could check them
    expect(JSON.stringify(schemaOf("ph-php-bank"))).not.toMatch(/"format":"(institution_id|local_code)"/);
  });

  it("puts conditions in if/then: the sender's identity, then the document, from their amounts", () => {
    const s = schemaOf("in-inr-bank");
    expect(thresholdsOf(s)).toEqual([10000000, 25000000]);
    const [identity, document] = s.allOf as JsonSchema[];
    expect(identity.then).toMatchObject({ properties: { sender: { required: ["date_of_birth", "id_type", "id_number"] } }, required: ["sender"] });
    expect(document.then).toMatchObject({
      required: ["documents"],
      properties: { documents: { contains: { properties: { requirement: { const: "sender_identity" } } } } },
    });
  });

  it("given an amount, resolves the conditions and narrows the amount to the band they hold in", () => {
    const low = schemaOf("in-inr-bank", { amount: 2500000 });
    expect(low.allOf).toBeUndefined();
    expect(required(low, "sender")).toEqual(["first_name", "last_name", "country"]);
    expect(low.required).not.toContain("documents");
    expect(props(low).amount).toMatchObject({ minimum: 10000, maximum: 9999999 });

    const middle = schemaOf("in-inr-bank", { amount: 10000000 });
    expect(middle.allOf).toBeUndefined();
    expect(required(middle, "sender")).toEqual(["first_name", "last_name", "country", "date_of_birth", "id_type", "id_number"]);
    expect(middle.required).not.toContain("documents");
    expect(props(middle).amount).toMatchObject({ minimum: 10000000, maximum: 24999999 });

    const high = schemaOf("in-inr-bank", { amount: 150000000 });
    expect(high.required).toContain("documents");
    expect(props(high).documents.allOf).toEqual([
      expect.objectContaining({ contains: expect.objectContaining({ properties: { requirement: { const: "sender_identity" } } }) }),
    ]);
    expect(props(high).amount).toMatchObject({ minimum: 25000000, maximum: 150000000 });
    // each resolved schema publishes only the examples inside its band
    expect((high.examples as { amount: number }[]).every((e) => e.amount >= 25000000)).toBe(true);
    expect((low.examples as { amount: number }[]).every((e) => e.amount < 10000000)).toBe(true);
  });

  it("refuses an amount the corridor cannot pay with a typed error (a DomainError naming amount)", () => {
    for (const amount of [9999, 150000001, 2500000.5, Number.NaN]) {
      const error = (() => {
        try {
          schemaOf("in-inr-bank", { amount });
        } catch (e) {
          return e;
        }
      })();
      expect(error, String(amount)).toBeInstanceOf(RequirementOptionError);
      expect(error).toBeInstanceOf(DomainError);
      expect((error as RequirementOptionError).option).toBe("amount");
    }
    expect(() => schemaOf("pk-pkr-bank", { amount: 1000050 })).toThrow(/steps of 1.00 PKR/);
  });

  it("lists the payout methods as oneOf in preference order, each a whole beneficiary", () => {
    const s = schemaOf("vn-vnd-bank");
    const branches = s.oneOf as JsonSchema[];
    expect(branches.map((b) => props(b).payout_method.const)).toEqual(["account_number", "card_number"]);
    expect(Object.keys(props(props(branches[0]).beneficiary))).toEqual(["first_name", "last_name", "bank_code", "account_number"]);
    expect(Object.keys(props(props(branches[1]).beneficiary))).toEqual(["first_name", "last_name", "card_number"]);
    expect(props(s).payout_method.oneOf).toEqual([
      { const: "account_number", title: "Bank account" },
      { const: "card_number", title: "NAPAS domestic card" },
    ]);
  });

  it("given a payout method, keeps only that one; an unknown one is a typed error listing the offered ones", () => {
    const s = schemaOf("vn-vnd-bank", { payoutMethod: "card_number" });
    expect(s.oneOf).toBeUndefined();
    expect(props(s).payout_method).toMatchObject({ const: "card_number" });
    expect(Object.keys(props(props(s).beneficiary))).toEqual(["first_name", "last_name", "card_number"]);
    expect((s.examples as { beneficiary: object }[]).every((e) => "card_number" in e.beneficiary)).toBe(true);
    const ajv = new Ajv2020({ strict: false, logger: false });
    const check = ajv.compile(s);
    expect(check(body("vn-vnd-bank", 1))).toBe(true);
    expect(check(body("vn-vnd-bank", 0))).toBe(false); // a bank account body
    try {
      schemaOf("vn-vnd-bank", { payoutMethod: "iban" });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(RequirementOptionError);
      expect(e).toMatchObject({ option: "payout_method", allowed: ["account_number", "card_number"] });
    }
  });

  it("with the corridor's institutions, lists them as the allowed values, with their names", () => {
    const wallets = index.activeInstitutions("PH", "MOBILE_WALLET");
    const s = schemaOf("ph-php-mobile-wallet", { institutions: wallets });
    expect(props(props(s).beneficiary).institution_id.oneOf).toEqual([
      { const: "ph-gcash", title: expect.any(String) },
      { const: "ph-maya", title: expect.any(String) },
    ]);
    const banks = schemaOf("ng-ngn-bank", { institutions: index.activeInstitutions("NG", "BANK") });
    const codes = (props(props(banks).beneficiary).bank_code.oneOf as { const: string }[]).map((o) => o.const);
    expect(codes).toContain("058");
    expect(codes).not.toContain("030"); // Heritage Bank is INACTIVE
    expect(codes).not.toContain("999992"); // OPay is a wallet
  });

  it("compiles in Ajv 2020 with strict: false and nothing registered (Ajv would log each unknown format: logger off)", () => {
    const ajv = new Ajv2020({ strict: false, logger: false });
    for (const c of corridors) expect(() => ajv.compile(corridorJsonSchema(c, spec(c.id))), c.id).not.toThrow();
  });

  it("says when a corridor is INACTIVE", () => {
    expect(schemaOf("ng-usd-bank").description).toMatch(/INACTIVE: payouts on it are refused/);
  });
});

describe("docs/corridor-requirements.md", () => {
  it("shows exactly the schema the code builds for in-inr-bank", () => {
    const page = readFileSync(fromRoot("docs", "corridor-requirements.md"), "utf8");
    const block = /<!-- schema:in-inr-bank -->\s*```json\n([\s\S]*?)\n```/.exec(page);
    expect(block, "the marked JSON block").not.toBeNull();
    expect(JSON.parse(block![1])).toEqual(schemaOf("in-inr-bank"));
  });
});

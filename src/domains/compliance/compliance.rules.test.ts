import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { thrown } from "../../../test/helpers/refusal.js";
import {
  blankSubject,
  compileRuleSet,
  DEFAULT_COUNTRY,
  type DocumentFact,
  dueAsFieldErrors,
  effectiveFromOf,
  evaluate,
  parseRuleSet,
  type Subject,
  unsatisfiedGroups,
} from "./compliance.rules.js";

/** A rule set file as a country's would be written (snake_case, as shipped in data/compliance). */
const FILE = {
  country: "SG",
  version: 1,
  effective_from: "2026-01-01",
  name: "Singapore",
  required_fields: ["first_name", "last_name", "date_of_birth", "residential_address", "residential_address.postal_code"],
  eventually_due_fields: ["tax_id", "nationality"],
  documents: [
    { name: "identity", one_of: ["PASSPORT", "NATIONAL_ID"] },
    { name: "address", one_of: ["PROOF_OF_ADDRESS"] },
  ],
  formats: { postal_code: "\\d{6}", tax_id: "[STFGM]\\d{7}[A-Z]" },
  minimum_age: 18,
  phone_verification_required: true,
  email_verification_required: false,
  rescreening_interval_days: 365,
};
const rulesOf = (changes: Partial<Record<keyof typeof FILE, unknown>> = {}) => {
  const body = parseRuleSet({ ...FILE, ...changes });
  return compileRuleSet({ country: body.country, version: body.version, effectiveFrom: effectiveFromOf(body), body });
};
const now = new Date("2026-06-01T12:00:00.000Z");
const doc = (documentType: string, status = "ACTIVE", expiryDate: Date | null = null): DocumentFact => ({ documentType, status, expiryDate });
/** A user who owes nothing under FILE. */
const COMPLETE: Subject = {
  firstName: "Ana",
  lastName: "Tan",
  dateOfBirth: new Date("1990-05-01T00:00:00.000Z"),
  nationality: "SG",
  phoneNumber: "+6591234567",
  residentialAddress: { line1: "1 Raffles Place", postalCode: "048616" },
  taxId: "S1234567D",
  emailVerified: false,
  phoneVerified: true,
  documents: [doc("PASSPORT"), doc("PROOF_OF_ADDRESS")],
};

describe("parseRuleSet: a rule set file is checked whole", () => {
  it("accepts a well-formed file as written", () => {
    expect(parseRuleSet(FILE)).toEqual(FILE);
  });

  it("takes an alpha-3 country and stores alpha-2; DEFAULT is the rule set of every other country", () => {
    expect(parseRuleSet({ ...FILE, country: "SGP" }).country).toBe("SG");
    expect(parseRuleSet({ ...FILE, country: "sg" }).country).toBe("SG");
    expect(parseRuleSet({ ...FILE, country: DEFAULT_COUNTRY }).country).toBe("DEFAULT");
  });

  it("takes effective_from as a date or an ISO 8601 instant", () => {
    expect(() => parseRuleSet({ ...FILE, effective_from: "2026-01-01T08:00:00+08:00" })).not.toThrow();
    for (const effective_from of ["2026-02-30", "01/01/2026", "2026-01-01T99:00:00Z", ""])
      expect(
        thrown(() => parseRuleSet({ ...FILE, effective_from }))?.fields?.map((f) => f.field),
        effective_from,
      ).toEqual(["effective_from"]);
  });

  it("refuses a bad file naming every problem by its path in the file", () => {
    const error = thrown(() =>
      parseRuleSet({
        ...FILE,
        country: "XX",
        version: 0,
        required_fields: ["first_name", "shoe_size"],
        documents: [{ name: "Identity", one_of: [] }],
        formats: { postal_code: "([", tax_id: null },
        minimum_age: 121,
        colour: "red",
      }),
    );
    expect(error?.code).toBe("VALIDATION_FAILED");
    expect(error?.fields?.map((f) => f.field).sort()).toEqual([
      "colour",
      "country",
      "documents.0.name",
      "documents.0.one_of",
      "formats.postal_code",
      "minimum_age",
      "required_fields.1",
      "version",
    ]);
    expect(error?.fields?.find((f) => f.field === "colour")).toMatchObject({ code: "unknown_field", message: "colour is not a rule set field." });
  });

  it("refuses two document groups of one name", () => {
    const error = thrown(() => parseRuleSet({ ...FILE, documents: [FILE.documents[0], FILE.documents[0]] }));
    expect(error?.fields).toEqual([expect.objectContaining({ field: "documents", message: "documents: group names must be unique" })]);
  });

  it("refuses a document type that does not exist", () => {
    expect(thrown(() => parseRuleSet({ ...FILE, documents: [{ name: "car", one_of: ["CAR_REGISTRATION"] }] }))?.fields?.map((f) => f.field)).toEqual([
      "documents.0.one_of.0",
    ]);
  });

  it("refuses a value that is not a rule set at all, naming the file", () => {
    expect(thrown(() => parseRuleSet("SG"))?.fields?.map((f) => f.field)).toEqual(["file"]);
    expect(thrown(() => parseRuleSet(null))?.code).toBe("VALIDATION_FAILED");
  });

  it("lists at most 20 problems", () => {
    const required_fields = Array.from({ length: 30 }, (_, i) => `field_${i}`);
    expect(thrown(() => parseRuleSet({ ...FILE, required_fields }))?.fields).toHaveLength(20);
  });
});

describe("effectiveFromOf: when a rule set takes effect", () => {
  it("a date means the start of that day in UTC", () => {
    expect(effectiveFromOf(parseRuleSet(FILE))).toEqual(new Date("2026-01-01T00:00:00.000Z"));
  });

  it("an instant means that instant", () => {
    expect(effectiveFromOf(parseRuleSet({ ...FILE, effective_from: "2026-01-01T08:00:00+08:00" }))).toEqual(new Date("2026-01-01T00:00:00.000Z"));
  });
});

describe("compileRuleSet: formats match a whole value, in any case", () => {
  it("a postal code pattern must match the whole code", () => {
    const { formats } = rulesOf();
    expect(formats.postalCode?.test("048616")).toBe(true);
    expect(formats.postalCode?.test("0486161")).toBe(false);
    expect(formats.postalCode?.test("x048616")).toBe(false);
  });

  it("an alternation is anchored as a whole, not only its first and last branch", () => {
    const { formats } = rulesOf({ formats: { postal_code: "\\d{5}|[A-Z]{2}\\d{3}", tax_id: null } });
    expect(formats.postalCode?.test("12345")).toBe(true);
    expect(formats.postalCode?.test("ab123")).toBe(true);
    expect(formats.postalCode?.test("12345-extra")).toBe(false);
    expect(formats.postalCode?.test("prefix-AB123")).toBe(false);
  });

  it("a format that is null checks nothing", () => {
    expect(rulesOf({ formats: { postal_code: null, tax_id: null } }).formats).toEqual({ postalCode: null, taxId: null });
  });

  it("keeps the row's country, version and start", () => {
    const rules = rulesOf();
    expect(rules).toMatchObject({ country: "SG", version: 1, effectiveFrom: new Date("2026-01-01T00:00:00.000Z") });
  });
});

describe("unsatisfiedGroups: each document group needs a document of its own", () => {
  const groups = parseRuleSet({
    ...FILE,
    documents: [
      { name: "identity", one_of: ["PASSPORT", "DRIVING_LICENSE"] },
      { name: "address", one_of: ["DRIVING_LICENSE", "PROOF_OF_ADDRESS"] },
    ],
  }).documents;
  const names = (docs: DocumentFact[]) => unsatisfiedGroups(groups, docs, now).map((g) => g.name);

  it("no documents satisfy no group", () => {
    expect(names([])).toEqual(["identity", "address"]);
  });

  it("one document counts once, even if two groups accept it", () => {
    expect(names([doc("DRIVING_LICENSE")])).toEqual(["address"]);
    expect(names([doc("DRIVING_LICENSE"), doc("DRIVING_LICENSE")])).toEqual([]);
  });

  it("documents are matched to groups so that as many groups as possible are met", () => {
    expect(names([doc("DRIVING_LICENSE"), doc("PASSPORT")])).toEqual([]);
    expect(names([doc("PROOF_OF_ADDRESS"), doc("DRIVING_LICENSE")])).toEqual([]);
  });

  it("only an ACTIVE document not past its expiry counts", () => {
    expect(names([doc("PASSPORT", "DELETED"), doc("PROOF_OF_ADDRESS", "INVALID")])).toEqual(["identity", "address"]);
    expect(names([doc("PASSPORT", "ACTIVE", new Date("2026-05-31T00:00:00.000Z"))])).toEqual(["identity", "address"]);
    expect(names([doc("PASSPORT", "ACTIVE", now)])).toEqual(["identity", "address"]);
    expect(names([doc("PASSPORT", "ACTIVE", new Date(now.getTime() + 1))])).toEqual(["address"]);
  });

  it("meets as many groups as there are distinct usable documents that fit (property)", () => {
    const type = fc.constantFrom("PASSPORT", "DRIVING_LICENSE", "PROOF_OF_ADDRESS", "SELFIE");
    fc.assert(
      fc.property(fc.array(type, { maxLength: 5 }), (types) => {
        const unmet = names(types.map((t) => doc(t)));
        const licences = types.filter((t) => t === "DRIVING_LICENSE").length;
        const passports = Math.min(1, types.filter((t) => t === "PASSPORT").length);
        const bills = Math.min(1, types.filter((t) => t === "PROOF_OF_ADDRESS").length);
        // each group takes a document only it accepts first; licences fill what is left
        const met = Math.min(2, passports + bills + Math.min(licences, 2 - passports - bills));
        expect(unmet).toHaveLength(2 - met);
      }),
    );
  });
});

describe("evaluate: what a user still owes under a rule set", () => {
  it("a user who gave everything owes nothing", () => {
    expect(evaluate(rulesOf(), COMPLETE, now)).toEqual({ currentlyDue: [], eventuallyDue: [], errors: [] });
  });

  it("a missing or empty required field is due now", () => {
    const r = evaluate(rulesOf(), { ...COMPLETE, firstName: "", dateOfBirth: null, residentialAddress: { line1: "x" } }, now);
    expect(r.currentlyDue).toEqual(["first_name", "date_of_birth", "residential_address.postal_code"]);
    expect(r.errors).toEqual([]);
  });

  it("eventually due are the fields due now and those due later, each once", () => {
    const r = evaluate(rulesOf(), { ...COMPLETE, firstName: null, taxId: null, nationality: null }, now);
    expect(r.currentlyDue).toEqual(["first_name"]);
    expect(r.eventuallyDue).toEqual(["first_name", "tax_id", "nationality"]);
  });

  it("a field both required and eventually due is listed once", () => {
    const r = evaluate(rulesOf({ eventually_due_fields: ["first_name"] }), { ...COMPLETE, firstName: null }, now);
    expect(r.eventuallyDue).toEqual(["first_name"]);
  });

  it("a phone verification rule owes a phone number and its verification", () => {
    const r = evaluate(rulesOf(), { ...COMPLETE, phoneNumber: null, phoneVerified: false }, now);
    expect(r.currentlyDue).toEqual(["phone_number", "phone_verified"]);
  });

  it("an email verification rule owes an email and its verification; without the rule, neither", () => {
    expect(evaluate(rulesOf({ email_verification_required: true }), { ...COMPLETE, email: null }, now).currentlyDue).toEqual(["email", "email_verified"]);
    expect(evaluate(rulesOf(), { ...COMPLETE, email: null }, now).currentlyDue).toEqual([]);
    expect(evaluate(rulesOf({ email_verification_required: true }), { ...COMPLETE, email: "a@example.com", emailVerified: true }, now).currentlyDue).toEqual(
      [],
    );
  });

  it("an unmet document group is due as documents.<name>", () => {
    expect(evaluate(rulesOf(), { ...COMPLETE, documents: [doc("NATIONAL_ID")] }, now).currentlyDue).toEqual(["documents.address"]);
  });

  it("a postal code of the wrong format is an error, and due; spaces around it are forgiven", () => {
    const r = evaluate(rulesOf(), { ...COMPLETE, residentialAddress: { postalCode: "SW1A 1AA" } }, now);
    expect(r.errors).toEqual([
      { field: "residential_address.postal_code", code: "invalid_format", message: "residential_address.postal_code is not a valid postal code in SG." },
    ]);
    expect(r.currentlyDue).toEqual(["residential_address.postal_code"]);
    expect(evaluate(rulesOf(), { ...COMPLETE, residentialAddress: { postalCode: " 048616 " } }, now).errors).toEqual([]);
  });

  it("a tax id of the wrong format is an error; the format is matched in any case", () => {
    expect(evaluate(rulesOf(), { ...COMPLETE, taxId: "123" }, now).errors).toEqual([
      { field: "tax_id", code: "invalid_format", message: "tax_id does not have the format of a tax id in SG." },
    ]);
    expect(evaluate(rulesOf(), { ...COMPLETE, taxId: "s1234567d" }, now).errors).toEqual([]);
  });

  it("a tax id that cannot be read back must be sent again; one never given is not an error", () => {
    const r = evaluate(rulesOf(), { ...COMPLETE, taxId: undefined }, now);
    expect(r.errors).toEqual([{ field: "tax_id", code: "unreadable", message: "tax_id cannot be read back; send it again." }]);
    expect(r.currentlyDue).toEqual(["tax_id"]);
    expect(evaluate(rulesOf(), { ...COMPLETE, taxId: null }, now).errors).toEqual([]);
  });

  it("a user under the minimum age is refused until their birthday", () => {
    const born = (date: string) => evaluate(rulesOf(), { ...COMPLETE, dateOfBirth: new Date(`${date}T00:00:00.000Z`) }, now).errors;
    expect(born("2008-06-01")).toEqual([]);
    expect(born("2008-06-02")).toEqual([{ field: "date_of_birth", code: "under_minimum_age", message: "The user must be at least 18 years old in SG." }]);
    expect(born("2008-07-01").map((e) => e.code)).toEqual(["under_minimum_age"]);
  });

  it("a user born on 29 February comes of age on 1 March in a common year", () => {
    const rules = rulesOf();
    const leapling = { ...COMPLETE, dateOfBirth: new Date("2008-02-29T00:00:00.000Z") };
    expect(evaluate(rules, leapling, new Date("2026-02-28T12:00:00.000Z")).errors.map((e) => e.code)).toEqual(["under_minimum_age"]);
    expect(evaluate(rules, leapling, new Date("2026-03-01T12:00:00.000Z")).errors).toEqual([]);
  });

  it('the DEFAULT rule set speaks of "by default" rather than a country', () => {
    const rules = rulesOf({ country: DEFAULT_COUNTRY });
    expect(evaluate(rules, { ...COMPLETE, taxId: "123" }, now).errors[0]?.message).toBe("tax_id does not have the format of a tax id by default.");
  });

  it("every error's field is also due now (property)", () => {
    const subject = fc.record({
      postalCode: fc.constantFrom("048616", "SW1A 1AA", "", null),
      taxId: fc.constantFrom("S1234567D", "123", null, undefined),
      born: fc.constantFrom("1990-01-01", "2010-01-01", null),
    });
    fc.assert(
      fc.property(subject, ({ postalCode, taxId, born }) => {
        const r = evaluate(
          rulesOf(),
          { ...COMPLETE, residentialAddress: { postalCode }, taxId, dateOfBirth: born ? new Date(`${born}T00:00:00.000Z`) : null },
          now,
        );
        for (const e of r.errors) expect(r.currentlyDue).toContain(e.field);
        expect(r.eventuallyDue.slice(0, r.currentlyDue.length)).toEqual(r.currentlyDue);
      }),
    );
  });
});

describe("blankSubject: what a user of the country owes before giving anything", () => {
  it("is the rule set read as a checklist, without errors", () => {
    const r = evaluate(rulesOf(), blankSubject, now);
    expect(r.errors).toEqual([]);
    expect(r.currentlyDue).toEqual([...FILE.required_fields, "phone_number", "documents.identity", "documents.address", "phone_verified"]);
    expect(r.eventuallyDue).toEqual([...r.currentlyDue, "tax_id", "nationality"]);
  });
});

describe("dueAsFieldErrors: what is due, as the field errors of REQUIREMENTS_DUE", () => {
  it("an item with a specific error keeps it; the others say what is needed", () => {
    const rules = rulesOf();
    const requirements = evaluate(rules, { ...blankSubject, taxId: undefined }, now);
    const errors = dueAsFieldErrors(rules, requirements);
    expect(errors.map((e) => e.field)).toEqual(requirements.currentlyDue);
    const byField = new Map(errors.map((e) => [e.field, e]));
    expect(byField.get("tax_id")).toEqual({ field: "tax_id", code: "unreadable", message: "tax_id cannot be read back; send it again." });
    expect(byField.get("first_name")).toEqual({ field: "first_name", code: "required", message: "first_name is required." });
    expect(byField.get("documents.identity")).toEqual({
      field: "documents.identity",
      code: "required",
      message: "An ACTIVE, unexpired document of one of the types PASSPORT, NATIONAL_ID is needed.",
    });
    expect(byField.get("phone_verified")?.message).toBe("The phone number must be verified by OTP.");
  });

  it("an email verification is described as such", () => {
    const rules = rulesOf({ email_verification_required: true });
    const errors = dueAsFieldErrors(rules, evaluate(rules, { ...COMPLETE, email: "a@example.com" }, now));
    expect(errors).toEqual([{ field: "email_verified", code: "required", message: "The email address must be verified by OTP." }]);
  });

  it("nothing due, no errors", () => {
    const rules = rulesOf();
    expect(dueAsFieldErrors(rules, evaluate(rules, COMPLETE, now))).toEqual([]);
  });
});

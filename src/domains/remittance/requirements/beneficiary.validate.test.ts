/**
 * The dry run: the acceptance cases of the issue, every error in one answer, normalisation, no
 * value echoed in a message, a test-only German (EUR) corridor for what no shipped corridor has,
 * and the time one validation takes.
 */
import { describe, expect, it } from "vitest";
import { MAX_LISTED_PROBLEMS, type FieldError } from "../../../lib/errors.js";
import type { InstitutionRow } from "../remittance.rules.js";
import { MAX_PAYOUT_DOCUMENTS, validatePayout, type PayoutFieldError } from "./beneficiary.validate.js";
import { catalogueIndexOf } from "./requirements.catalogue.js";
import { checkRequirementRow } from "./requirements.rules.js";
import { shippedCatalogue, shippedRequirementRows } from "./requirements.shipped.js";
import type { CorridorFacts, RequirementSpec } from "./requirements.spec.js";

const rows = shippedRequirementRows();
const { corridors, index } = shippedCatalogue();
const corridor = (id: string) => corridors.find((c) => c.id === id)!;
const spec = (id: string) => rows.find((r) => r.corridorId === id)!.spec;
const example = (id: string, n = 0) => structuredClone(spec(id).examples[n].body) as Record<string, any>;
const run = (id: string, body: unknown) => validatePayout({ corridor: corridor(id), spec: spec(id), body }, index);
const errorsOf = (result: ReturnType<typeof run>): PayoutFieldError[] => (result.ok ? [] : result.errors);
const brief = (result: ReturnType<typeof run>) => errorsOf(result).map((e) => `${e.path} ${e.category}`);

const GERMAN_CORRIDOR: CorridorFacts = {
  id: "de-eur-bank",
  receivingCountry: "DE",
  receivingCurrency: "EUR",
  receivingInstitutionType: "BANK",
  minAmount: 1000,
  maxAmount: 5000000,
  status: "ACTIVE",
};

const GERMAN_BANKS: InstitutionRow[] = [
  {
    id: "de-commerzbank",
    name: "Commerzbank",
    type: "BANK",
    country: "DE",
    bic: "COBADEFF",
    localCode: "37040044",
    localCodeType: "DE_BLZ",
    status: "ACTIVE",
    source: "test",
  },
  {
    id: "de-deutsche-bank",
    name: "Deutsche Bank",
    type: "BANK",
    country: "DE",
    bic: null,
    localCode: "50070010",
    localCodeType: "DE_BLZ",
    status: "ACTIVE",
    source: "test",
  },
];

const name = { type: "string", required: true, max_length: 50, pattern: "^[\\p{L}\\p{M}][\\p{L}\\p{M} .'’-]*$" };
const beneficiary = { first_name: "Jonas", last_name: "Weber", iban: "DE89 3704 0044 0532 0130 00" };
const sender = { first_name: "Maria", last_name: "Santos", country: "US" };

const GERMAN_ROW = {
  corridor_id: "de-eur-bank",
  version: 1,
  effective_at: "2026-01-01T00:00:00Z",
  source: "test-only corridor: SEPA credit transfer to an IBAN (ibantools), or account number and BLZ",
  amount: { increment: 1 },
  sender: {
    fields: [
      { key: "first_name", label: "First name", ...name },
      { key: "last_name", label: "Last name", ...name },
      { key: "country", label: "Country of residence", type: "string", required: true, format: "country", pattern: "^[A-Za-z]{2}$" },
      { key: "id_number", label: "Identity document number", type: "string", required: false, upper: true, pattern: "^[A-Za-z0-9]{4,20}$" },
    ],
  },
  beneficiary: {
    fields: [
      { key: "first_name", label: "First name", ...name },
      { key: "last_name", label: "Last name", ...name },
    ],
    alternatives: [
      {
        payout_method: "iban",
        label: "IBAN",
        fields: [
          {
            key: "iban",
            label: "IBAN",
            type: "string",
            required: true,
            format: "iban",
            pattern: "^[A-Za-z]{2}[0-9]{2}( ?[A-Za-z0-9]){11,30}$",
            institution: { by: "local_code", local_code_type: "DE_BLZ" },
          },
        ],
      },
      {
        payout_method: "account_number",
        label: "Account number and bank code",
        fields: [
          {
            key: "bank_code",
            label: "Bankleitzahl",
            type: "string",
            required: true,
            format: "local_code",
            pattern: "^[0-9]{8}$",
            institution: { by: "local_code", local_code_type: "DE_BLZ" },
          },
          { key: "account_number", label: "Account number", type: "string", required: true, pattern: "^[0-9]{1,10}$" },
          { key: "bic", label: "BIC", type: "string", required: false, format: "bic", pattern: "^[A-Za-z0-9]{8}([A-Za-z0-9]{3})?$" },
        ],
      },
    ],
  },
  conditions: [{ when: { amount_at_least: 100000 }, require: ["sender.id_number"], reason: "From 1,000 EUR the sender's identity document number is needed." }],
  purposes: { required: false, source: "test", codes: [{ code: "GIFT", label: "Gift" }] },
  documents: [],
  examples: [
    { title: "By IBAN", body: { amount: 50000, sender, beneficiary } },
    {
      title: "By account number",
      body: {
        amount: 50000,
        sender,
        beneficiary: { first_name: "Jonas", last_name: "Weber", bank_code: "50070010", account_number: "1234567", bic: "DEUTDEFF" },
      },
    },
  ],
  invalid_examples: [
    {
      title: "A German IBAN with a bad checksum",
      body: { amount: 50000, sender, beneficiary: { ...beneficiary, iban: "DE88370400440532013000" } },
      schema_can_tell: false,
      errors: [{ path: "beneficiary.iban", category: "incorrect_format" }],
    },
  ],
};

function germanSpec(): RequirementSpec {
  const errors: FieldError[] = [];
  const row = checkRequirementRow(GERMAN_ROW, (f) => f, errors);
  expect(errors).toEqual([]);
  return row!.spec;
}
const germanIndex = catalogueIndexOf(GERMAN_BANKS, []);
const german = (body: unknown) => validatePayout({ corridor: GERMAN_CORRIDOR, spec: germanSpec(), body }, germanIndex);

describe("the acceptance cases", () => {
  it("India: a real IFSC of an active bank and an account pass, normalised, with the bank and the branch resolved", () => {
    const body = example("in-inr-bank");
    body.beneficiary.ifsc_code = " hdfc0000001 ";
    body.beneficiary.first_name = "  Priya ";
    const result = run("in-inr-bank", body);
    expect(errorsOf(result)).toEqual([]);
    if (!result.ok) return;
    expect(result.value).toMatchObject({
      corridorId: "in-inr-bank",
      amount: 2500000,
      currency: "INR",
      payoutMethod: "account_number",
      purposeOfRemittance: "P1301",
      institution: { id: "in-hdfc", name: expect.stringMatching(/HDFC/) },
      branch: { id: "in-hdfc-hdfc0000001", code: "HDFC0000001" },
    });
    expect(result.value.beneficiary).toEqual({ first_name: "Priya", last_name: "Sharma", ifsc_code: "HDFC0000001", account_number: "50100123456789" });
  });

  it("India: an IFSC in no list, one of a bank we do not know, and one of a bank that stopped are unknown_institution", () => {
    for (const ifsc of ["SBIN0999999", "ABHY0065001", "PYTM0123456"]) {
      const body = example("in-inr-bank");
      body.beneficiary.ifsc_code = ifsc;
      expect(brief(run("in-inr-bank", body)), ifsc).toEqual(["beneficiary.ifsc_code unknown_institution"]);
    }
  });

  it("a German IBAN with a bad checksum on the EUR corridor is incorrect_format naming iban", () => {
    const result = german({
      amount: 50000,
      sender: { first_name: "Maria", last_name: "Santos", country: "US" },
      beneficiary: { first_name: "Jonas", last_name: "Weber", iban: "DE88370400440532013000" },
    });
    expect(errorsOf(result)).toEqual([{ path: "beneficiary.iban", category: "incorrect_format", message: expect.stringContaining("beneficiary.iban") }]);
  });

  it("the same German IBAN with its right checksum passes, in electronic form, its bank found by the BLZ inside it", () => {
    const result = german({
      amount: 50000,
      sender: { first_name: "Maria", last_name: "Santos", country: "us" },
      beneficiary: { first_name: "Jonas", last_name: "Weber", iban: "de89 3704 0044 0532 0130 00" },
    });
    expect(errorsOf(result)).toEqual([]);
    if (result.ok) {
      expect(result.value.beneficiary.iban).toBe("DE89370400440532013000");
      expect(result.value.sender.country).toBe("US");
      expect(result.value.institution).toEqual({ id: "de-commerzbank", name: "Commerzbank" });
    }
  });

  it("Pakistan (the IBAN corridor that ships): a bad checksum is incorrect_format, a bank we do not know is unknown_institution", () => {
    const body = example("pk-pkr-bank");
    body.beneficiary.iban = "PK14HABB0000001123456702";
    expect(brief(run("pk-pkr-bank", body))).toEqual(["beneficiary.iban incorrect_format"]);
    body.beneficiary.iban = "PK36SCBL0000001123456702";
    expect(brief(run("pk-pkr-bank", body))).toEqual(["beneficiary.iban unknown_institution"]);
    body.beneficiary.iban = "pk13 habb 0000 0011 2345 6702";
    const ok = run("pk-pkr-bank", body);
    expect(ok.ok && ok.value.beneficiary.iban).toBe("PK13HABB0000001123456702");
    expect(ok.ok && ok.value.institution.id).toBe("pk-hbl");
  });

  it("Mexico: a CLABE with a wrong check digit fails, each wrong digit", () => {
    const good = "012180012345678909";
    for (let d = 0; d <= 9; d++) {
      if (String(d) === good[17]) continue;
      const body = example("mx-mxn-bank");
      body.beneficiary.clabe = good.slice(0, 17) + d;
      expect(brief(run("mx-mxn-bank", body))).toEqual(["beneficiary.clabe incorrect_format"]);
    }
    const ok = run("mx-mxn-bank", example("mx-mxn-bank"));
    expect(ok.ok && ok.value.institution.id).toBe("mx-bbva-bancomer");
  });

  it("an amount above the corridor's maximum is amount_out_of_range on amount", () => {
    const body = example("in-inr-bank", 2);
    body.amount = corridor("in-inr-bank").maxAmount + 1;
    expect(brief(run("in-inr-bank", body))).toEqual(["amount amount_out_of_range"]);
    body.amount = corridor("in-inr-bank").minAmount - 1;
    expect(brief(run("in-inr-bank", body))).toEqual(["amount amount_out_of_range"]);
  });

  it("an amount off the increment is amount_out_of_range (whole rupees in Pakistan)", () => {
    const body = example("pk-pkr-bank");
    body.amount += 50;
    expect(brief(run("pk-pkr-bank", body))).toEqual(["amount amount_out_of_range"]);
  });

  it("returns every error in one answer, not the first only", () => {
    const body = {
      amount: 999999999999,
      payout_method: "account_number",
      purpose_of_remittance: "HOLIDAY",
      sender: { first_name: "Maria", country: "ZZ", id_type: "LIBRARY_CARD" },
      beneficiary: { first_name: "Priya1", ifsc_code: "SBIN0999999", account_number: "12", nickname: "P" },
      documents: [{ requirement: "sender_identity", document_id: "not-a-uuid" }],
      tip: 5,
    };
    expect(brief(run("in-inr-bank", body)).sort()).toEqual(
      [
        "tip not_allowed",
        "amount amount_out_of_range",
        "purpose_of_remittance not_allowed",
        "sender.last_name field_missing",
        "sender.country incorrect_format",
        "sender.id_type not_allowed",
        "sender.date_of_birth field_missing",
        "sender.id_number field_missing",
        "beneficiary.nickname not_allowed",
        "beneficiary.first_name incorrect_format",
        "beneficiary.last_name field_missing",
        "beneficiary.ifsc_code unknown_institution",
        "beneficiary.account_number incorrect_format",
        "documents.0.document_id incorrect_format",
      ].sort(),
    );
  });

  it("names a missing section once, and a body that is not an object", () => {
    expect(brief(run("ph-php-mobile-wallet", { amount: 100000, purpose_of_remittance: "GIFT" })).sort()).toEqual([
      "beneficiary field_missing",
      "sender field_missing",
    ]);
    expect(brief(run("ph-php-mobile-wallet", [1, 2]))).toEqual([" incorrect_format"]);
    expect(brief(run("ph-php-mobile-wallet", { ...example("ph-php-mobile-wallet"), sender: "Maria" }))).toEqual(["sender incorrect_format"]);
    expect(brief(run("ph-php-mobile-wallet", { ...example("ph-php-mobile-wallet"), amount: "1000.00" }))).toEqual(["amount incorrect_format"]);
  });
});

describe("what the dry run checks and how it answers", () => {
  it("never repeats a submitted value in a message (account and phone numbers are PII)", () => {
    const secrets = ["50100123456789X", "SBIN0999999", "+63 2 8123 4567", "PK14HABB0000001123456702", "0123456789", "Priya1"];
    const results = [
      run("in-inr-bank", {
        ...example("in-inr-bank"),
        beneficiary: { first_name: "Priya1", last_name: "S", ifsc_code: "SBIN0999999", account_number: "50100123456789X" },
      }),
      run("ph-php-mobile-wallet", {
        ...example("ph-php-mobile-wallet"),
        beneficiary: { first_name: "Ana", last_name: "Reyes", institution_id: "ph-gcash", mobile_number: "+63 2 8123 4567" },
      }),
      run("pk-pkr-bank", { ...example("pk-pkr-bank"), beneficiary: { first_name: "Ayesha", last_name: "Khan", iban: "PK14HABB0000001123456702" } }),
      run("ng-ngn-bank", {
        ...example("ng-ngn-bank"),
        beneficiary: { first_name: "Chinedu", last_name: "Okafor", bank_code: "058", account_number: "0123456789" },
      }),
    ];
    const messages = results.flatMap(errorsOf).map((e) => e.message);
    expect(messages.length).toBeGreaterThanOrEqual(5);
    for (const m of messages) for (const s of secrets) expect(m).not.toContain(s);
  });

  it("mobile wallets: a valid mobile of the country, in E.164, and an ACTIVE wallet of the country", () => {
    const body = example("ph-php-mobile-wallet");
    body.beneficiary.mobile_number = "+63 (905) 123-4567";
    const ok = run("ph-php-mobile-wallet", body);
    expect(ok.ok && ok.value.beneficiary.mobile_number).toBe("+639051234567");
    expect(ok.ok && ok.value.institution.id).toBe("ph-gcash");
    body.beneficiary.institution_id = "ph-bdo"; // a bank, not a wallet
    body.beneficiary.mobile_number = "+63 2 8123 4567"; // a Manila landline
    expect(brief(run("ph-php-mobile-wallet", body)).sort()).toEqual([
      "beneficiary.institution_id unknown_institution",
      "beneficiary.mobile_number not_allowed",
    ]);
  });

  it("Nigeria: the NUBAN check digit is checked against the bank the code names", () => {
    const body = example("ng-ngn-bank");
    body.beneficiary.bank_code = "044"; // the same serial at Access Bank has another check digit
    expect(brief(run("ng-ngn-bank", body))).toEqual(["beneficiary.account_number incorrect_format"]);
    body.beneficiary.account_number = "0123456784"; // check digit computed for 044
    expect(brief(run("ng-ngn-bank", body))).toEqual([]);
    body.beneficiary.bank_code = "030"; // Heritage Bank: licence revoked
    expect(brief(run("ng-ngn-bank", body))).toEqual(["beneficiary.bank_code unknown_institution"]);
  });

  it("documents: a known requirement with an id; a wrong entry is reported once", () => {
    const body = example("in-inr-bank", 2);
    body.documents = [{ requirement: "proof_of_address", document_id: "3f2b6a9e-8c1d-4e5f-9a7b-2c4d6e8f0a1b" }];
    expect(brief(run("in-inr-bank", body)).sort()).toEqual(["documents field_missing", "documents.0.requirement not_allowed"]);
    body.documents = [{ requirement: "sender_identity" }];
    expect(brief(run("in-inr-bank", body))).toEqual(["documents.0.document_id field_missing"]);
    body.documents = "passport";
    expect(brief(run("in-inr-bank", body))).toEqual(["documents incorrect_format"]);
    const wallet = example("ph-php-mobile-wallet");
    wallet.documents = [];
    expect(brief(run("ph-php-mobile-wallet", wallet))).toEqual(["documents not_allowed"]);
  });

  it("the German corridor's second payout method: account number and BLZ, its BIC checked and of Germany", () => {
    const body = structuredClone(GERMAN_ROW.examples[1].body) as Record<string, any>;
    const ok = german(body);
    expect(ok.ok && ok.value.payoutMethod).toBe("account_number");
    expect(ok.ok && ok.value.institution.id).toBe("de-deutsche-bank");
    body.beneficiary.bic = "HABBPKKA";
    expect(errorsOf(german(body)).map((e) => `${e.path} ${e.category}`)).toEqual(["beneficiary.bic not_allowed"]);
    body.beneficiary.bic = "DEUT1EFF";
    expect(errorsOf(german(body)).map((e) => `${e.path} ${e.category}`)).toEqual(["beneficiary.bic incorrect_format"]);
  });

  it("a condition on the institution: required for that institution only", () => {
    const row = structuredClone(rows.find((r) => r.corridorId === "ph-php-cash-pickup")!.spec) as any;
    row.beneficiary.fields.push({ key: "city", label: "City", type: "string", required: false });
    row.conditions.push({
      when: { institution_ids: ["ph-lbc-express"] },
      require: ["beneficiary.city"],
      reason: "LBC pays out at the branch of the city named.",
    });
    const errors: FieldError[] = [];
    const checked = checkRequirementRow(
      { corridor_id: "ph-php-cash-pickup", version: 2, effective_at: "2026-06-01T00:00:00Z", source: "test", ...row },
      (f) => f,
      errors,
    );
    expect(errors).toEqual([]);
    const body = example("ph-php-cash-pickup");
    const check = (b: unknown) => validatePayout({ corridor: corridor("ph-php-cash-pickup"), spec: checked!.spec, body: b }, index);
    expect(brief(check(body))).toEqual([]);
    body.beneficiary.institution_id = "ph-lbc-express";
    expect(brief(check(body))).toEqual(["beneficiary.city field_missing"]);
    body.beneficiary.city = "Cebu";
    expect(brief(check(body))).toEqual([]);
  });
});

describe("bounds: what a body built to be large makes the dry run do and answer", () => {
  const omittedOf = (result: ReturnType<typeof run>) => (result.ok ? 0 : result.omitted);
  const unknownKeys = (count: number, length = 8) =>
    Object.fromEntries(Array.from({ length: count }, (_, i) => [`z${String(i).padStart(length - 1, "0")}`, 0]));
  const timed = (body: unknown) => {
    const started = performance.now();
    const result = run("in-inr-bank", body);
    return { result, ms: performance.now() - started };
  };

  it("300,000 zeros in documents: one problem, the list refused whole, its items not walked", () => {
    const { result, ms } = timed({ ...example("in-inr-bank"), documents: new Array(300_000).fill(0) });
    expect(errorsOf(result)).toEqual([
      { path: "documents", category: "incorrect_format", message: `documents holds 300000 entries; at most ${MAX_PAYOUT_DOCUMENTS} are taken.` },
    ]);
    expect(omittedOf(result)).toBe(0);
    expect(ms).toBeLessThan(100);
  });

  it("documents up to the bound are judged item by item, their problems capped", () => {
    const documents = Array.from({ length: MAX_PAYOUT_DOCUMENTS }, () => ({ a: 1, b: 2, document_id: 7 }));
    const result = run("in-inr-bank", { ...example("in-inr-bank"), documents });
    // per entry: two unknown keys, requirement missing, document_id not a UUID
    expect(errorsOf(result)).toHaveLength(MAX_LISTED_PROBLEMS);
    expect(errorsOf(result).length + omittedOf(result)).toBe(MAX_PAYOUT_DOCUMENTS * 4);
  });

  it("the unknown keys a 1 MiB body holds, in each party and at the top: the first MAX_LISTED_PROBLEMS listed, every other one counted", () => {
    const many = unknownKeys(25_000);
    const result = run("in-inr-bank", { ...example("in-inr-bank"), ...many, sender: { ...example("in-inr-bank").sender, ...many }, beneficiary: many });
    const listed = errorsOf(result);
    expect(listed).toHaveLength(MAX_LISTED_PROBLEMS);
    expect(listed[0]).toEqual({ path: "z0000000", category: "not_allowed", message: "z0000000 is not a field of a payout on in-inr-bank." });
    // 75,000 unknown keys, and what the empty beneficiary lacks
    expect(listed.length + omittedOf(result)).toBeGreaterThan(75_000);
  });

  it("a key as long as the body is shown clipped, never whole", () => {
    const key = "k".repeat(500_000);
    const listed = errorsOf(run("in-inr-bank", { ...example("in-inr-bank"), sender: { ...example("in-inr-bank").sender, [key]: 1 } }));
    expect(listed).toHaveLength(1);
    expect(JSON.stringify(listed).length).toBeLessThan(1000);
    expect(listed[0]!.path).toMatch(/^sender\.k+…$/);
  });
});

describe("speed", () => {
  it("one validation takes well under a millisecond", () => {
    const cases: [string, Record<string, unknown>][] = ["in-inr-bank", "pk-pkr-bank", "mx-mxn-bank", "ng-ngn-bank", "ph-php-mobile-wallet", "vn-vnd-bank"].map(
      (id) => [id, example(id, 1)],
    );
    const n = 2000;
    for (const [id, body] of cases) {
      for (let i = 0; i < 200; i++) run(id, body); // warm up
      const times: number[] = [];
      for (let i = 0; i < n; i++) {
        const t = performance.now();
        run(id, body);
        times.push(performance.now() - t);
      }
      times.sort((a, b) => a - b);
      const p50 = times[n / 2];
      const p99 = times[Math.floor(n * 0.99)];
      console.log(`${id}: p50 ${(p50 * 1000).toFixed(1)} µs, p99 ${(p99 * 1000).toFixed(1)} µs`);
      // a loose bound: CI machines are slower and noisier than the figures in the report
      expect(p50, id).toBeLessThan(0.25);
    }
  });
});

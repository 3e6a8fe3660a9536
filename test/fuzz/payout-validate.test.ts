/**
 * Property-based fuzzing (fast-check) of the payout dry run, seeded from what the catalogue ships:
 * each corridor's own example payouts, valid and invalid, mutated field by field (a value swapped
 * for a hostile one, a field dropped, a stray field added, the corridor, amount, method or purpose
 * changed). The route-table fuzz (hostile-input.test.ts) rarely gets past "no such corridor"; these
 * bodies reach the format checks. Properties: never a 5xx; an error is problem+json whose `status`
 * is the HTTP status; a 422 names each problem by a field path and one of the dry run's categories;
 * a 200 is the payout of the corridor asked; no account number comes back in an error; an answer
 * stays small, listing at most MAX_LISTED_PROBLEMS problems and counting the rest (some mutations
 * add dozens of stray keys or a documents list past its bound to reach the caps); and GraphQL's
 * `validateBeneficiary` agrees with REST on every body. Replay: `FUZZ_SEED=… npx vitest run test/fuzz`.
 */
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_PAYOUT_DOCUMENTS } from "../../src/domains/remittance/requirements/beneficiary.validate.js";
import { MAX_LISTED_PROBLEMS } from "../../src/lib/errors.js";
import { fromRoot } from "../../src/lib/paths.js";
import { startTestApp, type TestApp } from "../helpers/app.js";

const scale = Number(process.env.FUZZ_SCALE ?? 1);
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() % 2 ** 31;
const VALIDATE = "/v2/payouts/remittances/beneficiaries/validate";
const CATEGORIES = new Set(["field_missing", "incorrect_format", "not_allowed", "unknown_institution", "amount_out_of_range"]);

type Body = Record<string, unknown> & { sender?: Record<string, unknown>; beneficiary?: Record<string, unknown> };
type ShippedRow = { corridor_id: string; examples: { body: Body }[]; invalid_examples?: { body: Body }[] };
const rows = JSON.parse(readFileSync(fromRoot("data", "remittance", "requirements.json"), "utf8")) as ShippedRow[];
const seeds = rows.flatMap((r) => [...r.examples, ...(r.invalid_examples ?? [])].map((e) => ({ corridor_id: r.corridor_id, ...e.body })));
const corridorIds = rows.map((r) => r.corridor_id);

const hostile = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom("", " ", "x\udfffy", "\u0000", "\u202e", "'; drop table users; --", "{{7*7}}", "%s%n", "x".repeat(10_000)),
  fc.constantFrom("HDFC0000001", "hdfc0000001", "ZZZZ0000001", "DE89370400440532013000", "002010077777777771", "+639171234567", "0123456789"),
  fc.constantFrom([], {}, [1, 2], { a: { b: 1 } }),
  fc.constantFrom(1e308, -1, 0, 2 ** 53 + 1, 0.5),
);

type Mutation = (body: Body) => Body;
const inParty =
  (party: "sender" | "beneficiary", change: (fields: Record<string, unknown>) => Record<string, unknown>): Mutation =>
  (body) => {
    const fields = body[party];
    return { ...body, [party]: fields && typeof fields === "object" && !Array.isArray(fields) ? change({ ...fields }) : change({}) };
  };
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.tuple(fc.constantFrom("sender" as const, "beneficiary" as const), fc.nat(20), hostile).map(([party, i, value]) =>
    inParty(party, (fields) => {
      const keys = Object.keys(fields);
      return keys.length ? { ...fields, [keys[i % keys.length]!]: value } : fields;
    }),
  ),
  fc.tuple(fc.constantFrom("sender" as const, "beneficiary" as const), fc.nat(20)).map(([party, i]) =>
    inParty(party, (fields) => {
      const keys = Object.keys(fields);
      if (keys.length) delete fields[keys[i % keys.length]!];
      return fields;
    }),
  ),
  fc
    .tuple(fc.constantFrom("sender" as const, "beneficiary" as const), fc.constantFrom("iban", "clabe", "msisdn", "x", "__proto__"), hostile)
    .map(([party, key, value]) => inParty(party, (fields) => ({ ...fields, [key]: value }))),
  fc.tuple(fc.constantFrom("amount", "payout_method", "purpose_of_remittance", "documents", "sender", "beneficiary"), hostile).map(
    ([key, value]): Mutation =>
      (body) => ({ ...body, [key]: value }),
  ),
  fc.constantFrom(...corridorIds, "no-such-corridor").map(
    (id): Mutation =>
      (body) => ({ ...body, corridor_id: id }),
  ),
  // past the caps: stray keys by the dozen in a party or at the top, a documents list past its bound
  fc.tuple(fc.constantFrom("sender" as const, "beneficiary" as const, null), fc.integer({ min: 10, max: 60 }), hostile).map(([party, count, value]) => {
    const stray = Object.fromEntries(Array.from({ length: count }, (_, i) => [`stray_${i}`, value]));
    return party ? inParty(party, (fields) => ({ ...fields, ...stray })) : (body: Body) => ({ ...body, ...stray });
  }),
  fc
    .tuple(
      fc.integer({ min: MAX_PAYOUT_DOCUMENTS - 2, max: MAX_PAYOUT_DOCUMENTS + 2000 }),
      fc.constantFrom<unknown>(0, null, "x", {}, { requirement: "sender_identity", stray: 1 }),
    )
    .map(
      ([count, item]): Mutation =>
        (body) => ({ ...body, documents: new Array(count).fill(item) }),
    ),
  fc.constantFrom("amount", "payout_method", "purpose_of_remittance", "sender", "beneficiary").map(
    (key): Mutation =>
      (body) => {
        const { [key]: _, ...rest } = body;
        return rest;
      },
  ),
);
const payout = fc
  .tuple(fc.constantFrom(...seeds), fc.array(mutation, { minLength: 0, maxLength: 4 }))
  .map(([start, changes]) => changes.reduce((body, change) => change(body), structuredClone(start) as Body));

/** The REST body as the GraphQL input names it (its top-level names in camelCase; the parties as given). */
const graphqlInput = ({ corridor_id, payout_method, purpose_of_remittance, ...rest }: Body) => ({
  corridorId: corridor_id,
  ...(payout_method !== undefined && { payoutMethod: payout_method }),
  ...(purpose_of_remittance !== undefined && { purposeOfRemittance: purpose_of_remittance }),
  ...rest,
});

/** account numbers, IBANs and CLABEs of the body: never to be read back in an error */
const secretsOf = (body: Body) =>
  Object.entries(body.beneficiary && typeof body.beneficiary === "object" ? body.beneficiary : {})
    .filter(([k, v]) => /account_number|iban|clabe/.test(k) && typeof v === "string" && /\d{8,}/.test(v))
    .map(([, v]) => v as string);

describe("payout dry run under generated payouts", () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp("pglite");
    key = (await t.createClient("Fuzz sender", ["lookups:read"])).key;
  }, 60_000);
  afterAll(() => t?.stop());

  const runs = Math.max(20, Math.round(300 * scale));
  it(`answers ${runs} mutated example payouts alike on REST and GraphQL, each error named by path and category`, async () => {
    await fc.assert(
      fc.asyncProperty(payout, async (body) => {
        const rest = await t.rest("POST", VALIDATE, { key, body });
        expect(rest.status).toBeLessThan(500);
        expect(JSON.stringify(rest.body).length).toBeLessThan(16 * 1024);
        if (rest.status === 200) expect(rest.body.payout.corridor_id).toBe(body.corridor_id);
        else {
          expect(rest.headers.get("content-type")).toContain("application/problem+json");
          expect(rest.body.status).toBe(rest.status);
          for (const secret of secretsOf(body)) expect(JSON.stringify(rest.body)).not.toContain(secret);
        }
        if (rest.status >= 400) {
          expect(rest.body.errors?.length ?? 0).toBeLessThanOrEqual(MAX_LISTED_PROBLEMS);
          if (rest.body.errors_omitted !== undefined) expect(rest.body.errors).toHaveLength(MAX_LISTED_PROBLEMS);
        }
        if (rest.body.code === "BENEFICIARY_INVALID") {
          expect(rest.status).toBe(422);
          for (const error of rest.body.errors as { field: string; code: string }[]) {
            expect(typeof error.field).toBe("string");
            expect(CATEGORIES.has(error.code), error.code).toBe(true);
          }
        }
        const gql = await t.gql(key, "query ($input: ValidateBeneficiaryInput!) { validateBeneficiary(input: $input) { corridorId payout } }", {
          input: graphqlInput(body),
        });
        expect(gql.status).toBeLessThan(500);
        if (rest.status === 200) expect(gql.data?.validateBeneficiary?.payout).toEqual(rest.body.payout);
        else {
          expect(gql.errors?.[0]?.extensions.code).toBe(rest.body.code);
          if (rest.body.code === "BENEFICIARY_INVALID") expect(gql.errors?.[0]?.extensions.errorsOmitted).toBe(rest.body.errors_omitted);
        }
      }),
      { numRuns: runs, seed, endOnFailure: true },
    );
  }, 180_000);
});

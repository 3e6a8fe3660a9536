/**
 * Payout requirements, the beneficiary dry run and the corridor change feed, end to end: REST and
 * GraphQL on the real server, the schema checked by a third-party validator (Ajv 2020), an import
 * announcing its change by webhook, GET /v2/events and the corridorUpdated subscription, and a second
 * instance serving it at once.
 */
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, multiInstance, startTestApp, startTwoInstances, type TestApp } from "../../../test/helpers/app.js";
import { within } from "../../../test/helpers/eventually.js";
import { sseSubscription } from "../../../test/helpers/sse.js";
import { registerEndpoint, startWebhookReceiver, type WebhookReceiver } from "../../../test/helpers/webhook-receiver.js";
import { fromRoot } from "../../lib/paths.js";
import { importReferenceFile } from "./remittance.import.js";
import { SCHEMA_ANNOTATIONS } from "./requirements/requirements.json-schema.js";

const SHIPPED = JSON.parse(readFileSync(fromRoot("data", "remittance", "requirements.json"), "utf8")) as Record<string, any>[];
const shipped = (corridorId: string) => structuredClone(SHIPPED.find((r) => r.corridor_id === corridorId)!);
const VALIDATE = "/v2/payouts/remittances/beneficiaries/validate";
const requirementsOf = (id: string, query = "") => `/v2/payouts/remittances/corridors/${id}/requirements${query}`;

const INDIA = {
  corridor_id: "in-inr-bank",
  amount: 2_500_000,
  purpose_of_remittance: "P1301",
  sender: { first_name: "Maria", last_name: "Santos", country: "US" },
  beneficiary: { first_name: "Priya", last_name: "Sharma", ifsc_code: "hdfc0000001", account_number: "50100123456789" },
};
/** A test-only euro corridor paid to an IBAN: there is none in the shipped catalogue. */
function euroCatalogue() {
  const pakistan = shipped("pk-pkr-bank");
  return {
    institutions: [{ id: "de-test-bank", name: "Testbank", type: "BANK", country: "DE", bic: null, local_code: "10020030", local_code_type: "DE_BLZ" }],
    corridors: [
      {
        id: "de-eur-bank",
        receiving_country: "DE",
        receiving_currency: "EUR",
        receiving_institution_type: "BANK",
        min_amount: 100,
        max_amount: 1_000_000,
        delivery_estimate: { min_hours: 0, max_hours: 24, description: "Same day (SEPA)" },
        required_fields: ["first_name", "last_name", "iban"],
      },
    ],
    requirements: [{ ...pakistan, corridor_id: "de-eur-bank", source: "EPC SEPA Credit Transfer rulebook: IBAN" }],
  };
}

describe.each(backends)("payout requirements on %s", (backend) => {
  let t: TestApp;
  let key: string;
  let receiver: WebhookReceiver;
  let dir: string;

  beforeAll(async () => {
    t = await startTestApp(backend, { WEBHOOK_ALLOW_PRIVATE: "1" });
    key = (await t.createClient("Sender", ["lookups:read", "users:read", "webhooks:manage"])).key;
    receiver = await startWebhookReceiver();
    await registerEndpoint(t, receiver, key, "/corridors", ["reference.corridor.updated"]);
    dir = await mkdtemp(path.join(tmpdir(), "requirements-"));
  }, 60_000);
  afterAll(async () => {
    await receiver?.close();
    await t?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("serves each corridor's requirements as JSON Schema 2020-12 that Ajv compiles and its examples pass, with ETag and Cache-Control", async () => {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    for (const format of SCHEMA_ANNOTATIONS.formats) ajv.addFormat(format, true);
    for (const row of SHIPPED) {
      const res = await t.rest("GET", requirementsOf(row.corridor_id), { key });
      expect(res.status, `${row.corridor_id} ${JSON.stringify(res.body)}`).toBe(200);
      const schema = res.body.requirements.schema;
      expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
      const check = ajv.compile(schema);
      for (const example of row.examples) expect(check(example.body), `${row.corridor_id} ${JSON.stringify(check.errors)}`).toBe(true);
      expect(check({}), row.corridor_id).toBe(false);
    }
    const india = await t.rest("GET", requirementsOf("in-inr-bank"), { key });
    expect(india.headers.get("etag")).toBeTruthy();
    expect(india.headers.get("cache-control")).toContain("max-age");
    expect(india.body).toMatchObject({
      corridor_id: "in-inr-bank",
      requirements: { version: 1, source: expect.stringContaining("IFSC") },
      future_requirements: null,
    });
    expect((await t.rest("GET", requirementsOf("in-inr-bank"), { key, headers: { "if-none-match": india.headers.get("etag")! } })).status).toBe(304);
    expect((await t.rest("GET", requirementsOf("zz-none-bank"), { key })).status).toBe(404);

    const gql = await t.gql(key, `{ corridorRequirements(corridorId: "in-inr-bank", amount: 2500000) { corridorId requirements { version schema } } }`);
    expect(gql.errors).toBeUndefined();
    expect(gql.data.corridorRequirements.requirements.schema.properties.amount).toBeTruthy();
  });

  it("validates a payout: the normalised payout, or every problem in one 422 with its path and category", async () => {
    const ok = await t.rest("POST", VALIDATE, { key, body: INDIA });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toMatchObject({
      corridor_id: "in-inr-bank",
      requirements_version: 1,
      payout: { beneficiary: expect.objectContaining({ ifsc_code: "HDFC0000001" }) },
    });

    const unknownBank = await t.rest("POST", VALIDATE, { key, body: { ...INDIA, beneficiary: { ...INDIA.beneficiary, ifsc_code: "ZZZZ0000001" } } });
    expect(unknownBank.status).toBe(422);
    expect(unknownBank.body).toMatchObject({ code: "BENEFICIARY_INVALID", errors: [{ field: "beneficiary.ifsc_code", code: "unknown_institution" }] });

    // every error at once: an unknown IFSC, an amount above the maximum, a missing last name
    const many = await t.rest("POST", VALIDATE, {
      key,
      body: { ...INDIA, amount: 150_000_001, beneficiary: { first_name: "Priya", ifsc_code: "ZZZZ0000001", account_number: "50100123456789" } },
    });
    expect(many.status).toBe(422);
    const codes = (many.body.errors as { field: string; code: string }[]).map((e) => `${e.field}:${e.code}`);
    expect(codes).toEqual(
      expect.arrayContaining(["amount:amount_out_of_range", "beneficiary.ifsc_code:unknown_institution", "beneficiary.last_name:field_missing"]),
    );
    expect(JSON.stringify(many.body)).not.toContain("50100123456789"); // an account number is never echoed

    const mexico = await t.rest("POST", VALIDATE, {
      key,
      body: {
        corridor_id: "mx-mxn-bank",
        ...shipped("mx-mxn-bank").examples[0].body,
        beneficiary: { ...shipped("mx-mxn-bank").examples[0].body.beneficiary, clabe: "002010077777777770" },
      },
    });
    expect(mexico.status).toBe(422);
    expect(mexico.body.errors).toEqual([expect.objectContaining({ field: "beneficiary.clabe", code: "incorrect_format" })]);

    const inactive = await t.rest("POST", VALIDATE, { key, body: { ...INDIA, corridor_id: "ng-usd-bank" } });
    expect(inactive).toMatchObject({ status: 409, body: { code: "CORRIDOR_INACTIVE" } });

    const gql = await t.gql(key, `query ($input: ValidateBeneficiaryInput!) { validateBeneficiary(input: $input) { corridorId requirementsVersion payout } }`, {
      input: { corridorId: "in-inr-bank", amount: 200_000_000, purposeOfRemittance: "P1301", sender: INDIA.sender, beneficiary: INDIA.beneficiary },
    });
    expect(gql.errors?.[0]?.extensions).toMatchObject({ code: "BENEFICIARY_INVALID" });
    expect(JSON.stringify(gql.errors)).toContain("amount_out_of_range");
  });

  it("checks an IBAN's checksum on a euro corridor imported for the purpose", async () => {
    const file = path.join(dir, "euro.json");
    await writeFile(file, JSON.stringify(euroCatalogue()));
    expect(await importReferenceFile(t.app.services, file)).toMatchObject({ corridors: 1, requirements: 1 });
    const body = { corridor_id: "de-eur-bank", ...shipped("pk-pkr-bank").examples[0].body, amount: 10_000 };
    const bad = await t.rest("POST", VALIDATE, { key, body: { ...body, beneficiary: { ...body.beneficiary, iban: "DE89370400440532013001" } } });
    expect(bad.status, JSON.stringify(bad.body)).toBe(422);
    expect(bad.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: "beneficiary.iban", code: "incorrect_format" })]));
  });

  it("announces a changed requirement once per client, by webhook and GET /v2/events, and serves the change at once; a future version waits", async () => {
    const before = await t.rest("GET", requirementsOf("in-inr-bank"), { key });
    const changed = shipped("in-inr-bank");
    changed.purposes.codes.push({ code: "P1201", label: "Family maintenance and savings" });
    const file = path.join(dir, "requirements.json");
    await writeFile(file, JSON.stringify([changed]));
    await importReferenceFile(t.app.services, file);

    const delivered = await within(
      "reference.corridor.updated webhook",
      () => receiver.at("/corridors").filter((d) => JSON.parse(d.body).data.corridor_id === "in-inr-bank"),
      (d) => d.length > 0 && d.every((one) => one.verified === true),
    );
    expect(delivered).toHaveLength(1);
    const event = JSON.parse(delivered[0]!.body);
    expect(event).toMatchObject({ type: "reference.corridor.updated", data: { change: "requirements", version: 1, previous_version: 1 } });
    expect(event.data.diff).toEqual([
      expect.objectContaining({ op: "add", path: "/purposes/codes/-", value: { code: "P1201", label: "Family maintenance and savings" } }),
    ]);
    // the catch-up list holds back what committed after the oldest transaction still running (on a
    // shared server, another suite's): it lists the event once that one ends
    const listed = await within(
      "reference.corridor.updated in GET /v2/events",
      async () =>
        ((await t.rest("GET", "/v2/events?types=reference.corridor.updated", { key })).body.data as any[]).filter(
          (e) => e.data.corridor_id === "in-inr-bank" && e.data.change === "requirements",
        ),
      (found) => found.length > 0,
    );
    expect(listed).toHaveLength(1);

    const after = await t.rest("GET", requirementsOf("in-inr-bank"), { key });
    expect(after.headers.get("etag")).not.toBe(before.headers.get("etag"));
    expect(JSON.stringify(after.body.requirements.schema)).toContain("P1201");
    expect((await t.rest("POST", VALIDATE, { key, body: { ...INDIA, purpose_of_remittance: "P1201" } })).status).toBe(200);

    // a version for later is served beside the one in effect until its time comes
    const next = Object.assign(shipped("in-inr-bank"), { version: 2, effective_at: "2099-01-01T00:00:00Z" });
    next.beneficiary.alternatives[0].fields[1].pattern = "^[0-9]{11,18}$";
    await writeFile(file, JSON.stringify([next]));
    await importReferenceFile(t.app.services, file);
    const both = await t.rest("GET", requirementsOf("in-inr-bank"), { key });
    expect(both.body).toMatchObject({ requirements: { version: 1 }, future_requirements: { version: 2, effective_at: "2099-01-01T00:00:00.000Z" } });
    const announced = (await t.rest("GET", "/v2/events?types=reference.corridor.updated", { key })).body.data as any[];
    expect(announced.find((e) => e.data.version === 2)).toMatchObject({ data: { previous_version: 1, effective_at: "2099-01-01T00:00:00.000Z" } });
  });

  it("streams a changed requirement to a corridorUpdated subscriber with lookups:read; one without is refused when it subscribes", async () => {
    const query = `subscription { corridorUpdated { corridorId change version previousVersion effectiveAt diff } }`;
    const { key: noLookups } = await t.createClient("No lookups", ["users:read"]);
    // refused when it subscribes, before any change
    const refused = await sseSubscription(t, noLookups, query);
    const denied = await refused.next();
    expect(denied.errors?.[0]?.extensions.code).toBe("FORBIDDEN");
    await expect(refused.next()).rejects.toThrow("stream ended");
    const stream = await sseSubscription(t, key, query);
    const heard = stream.next();
    await new Promise((r) => setTimeout(r, 200)); // a subscription listens from its first read; with Redis, once subscribed there
    // a corridor no other test here changes, so the first event heard is this import's
    const changed = shipped("ph-php-bank");
    changed.purposes.codes.push({ code: "REMITTANCE_TEST", label: "Test purpose" });
    const file = path.join(dir, "requirements.json"); // a bare list is imported by its file name
    await writeFile(file, JSON.stringify([changed]));
    await importReferenceFile(t.app.services, file);

    const event = await heard;
    expect(event.errors).toBeUndefined();
    expect(event.data.corridorUpdated).toEqual({
      corridorId: "ph-php-bank",
      change: "requirements",
      version: 1,
      previousVersion: 1,
      effectiveAt: "2026-01-01T00:00:00.000Z",
      diff: [{ op: "add", path: "/purposes/codes/-", value: { code: "REMITTANCE_TEST", label: "Test purpose" } }],
    });
    await stream.close();
  });
});

describe.runIf(multiInstance)("payout requirements across instances", () => {
  it("a second instance serves an imported change within a second", async () => {
    const { a, b, stop } = await startTwoInstances();
    const dir = await mkdtemp(path.join(tmpdir(), "requirements-two-"));
    try {
      const { key } = await a.createClient("Two", ["lookups:read"]);
      expect(JSON.stringify((await b.rest("GET", requirementsOf("ke-kes-bank"), { key })).body)).not.toContain("P9999");
      const changed = shipped("ke-kes-bank");
      changed.purposes.codes.push({ code: "P9999", label: "Test purpose" });
      const file = path.join(dir, "requirements.json");
      await writeFile(file, JSON.stringify([changed]));
      await importReferenceFile(a.app.services, file);
      const started = Date.now();
      await within(
        "instance b serving the change",
        async () => JSON.stringify((await b.rest("GET", requirementsOf("ke-kes-bank"), { key })).body),
        (text) => text.includes("P9999"),
        1_000,
      );
      expect(Date.now() - started).toBeLessThan(1_000);
    } finally {
      await stop();
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

/**
 * /openapi.json is a valid OpenAPI 3.1 document (checked by a maintained validator), names every
 * route of the table, and every route's live 2xx answer validates against the schema it declares.
 * A route added without a sample request here fails the coverage test: describe how to call it.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliverWebhook } from "../src/domains/webhooks/webhooks.delivery.js";
import { routes } from "../src/rest/routes.js";
import { ADMIN_KEY, startTestApp, type TestApp } from "./helpers/app.js";

const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a2d6c9a90000000049454e44ae426082",
  "hex",
);
const file = (name: string) => ({ file_name: name, mime_type: "image/png", content_base64: PNG.toString("base64") });

type Spec = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>>; components: object };

describe("OpenAPI", () => {
  let t: TestApp;
  let spec: Spec;
  const checked = new Set<string>();
  let validateBody: (route: string, method: string, status: number, body: unknown) => void;
  beforeAll(async () => {
    t = await startTestApp("pglite", { WEBHOOK_ALLOW_PRIVATE: "1" });
    spec = (await t.rest("GET", "/openapi.json")).body;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    (addFormats as unknown as (a: Ajv2020) => void)(ajv);
    ajv.addSchema({ $id: "openapi", components: spec.components });
    validateBody = (route, method, status, body) => {
      const content = spec.paths[route][method.toLowerCase()].responses[String(status)]?.content;
      expect(content, `${method} ${route} documents ${status}`).toBeDefined();
      const schema = content!["application/json"]?.schema;
      if (!schema) return; // a binary answer: its bytes are checked by the documents tests
      const validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components', '"openapi#/components')));
      expect(validate(body), `${method} ${route}: ${JSON.stringify(validate.errors?.slice(0, 3))}`).toBe(true);
    };
  });
  afterAll(() => t?.stop());

  it("is a valid OpenAPI 3.1 document", async () => {
    const result = await new Validator().validate(spec as never);
    expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("describes every route of the table, with its body and query parameters", () => {
    for (const r of routes) expect(spec.paths[r.path]?.[r.method.toLowerCase()], `${r.method} ${r.path}`).toBeDefined();
    const create = spec.paths["/v2/users"].post as any;
    // names required, and an email or a phone number: "this and (that or that)"
    const [fields, either] = create.requestBody.content["application/json"].schema.allOf;
    expect(fields).toMatchObject({ additionalProperties: false, required: ["first_name", "last_name"] });
    expect(either.anyOf.map((branch: { required: string[] }) => branch.required)).toEqual([["email"], ["phone_number"]]);
  });

  it("states what the server does: nullability, headers, every status, auth schemes and problem members", () => {
    const op = (method: string, route: string) => (spec.paths[route] as any)[method];
    const params = (method: string, route: string) => Object.fromEntries(op(method, route).parameters.map((p: any) => [`${p.in} ${p.name}`, p.required]));
    // non-null GraphQL fields are non-null here; nullable ones allow null
    const user = op("get", "/v2/users/{user_id}").responses["200"].content["application/json"].schema;
    expect(user.properties.user_id).toEqual({ type: "string" });
    expect(user.properties.middle_name).toEqual({ anyOf: [{ type: "string" }, { type: "null" }] });
    // conditional reads and writes
    expect(op("get", "/v2/users/{user_id}").responses["304"]).toBeDefined();
    expect(op("get", "/payouts/remittances/utilities/currencies").responses["304"]).toBeDefined();
    expect(params("get", "/v2/users/{user_id}")).toMatchObject({ "header If-None-Match": false });
    expect(params("put", "/v2/users/{user_id}")).toMatchObject({ "header If-Match": false });
    expect(Object.keys(op("put", "/v2/users/{user_id}").responses)).toContain("412");
    // every status the route can answer
    expect(Object.keys(op("post", "/v2/users").responses)).toEqual(
      expect.arrayContaining(["201", "400", "401", "403", "409", "413", "415", "422", "429", "500", "503"]),
    );
    expect(op("post", "/v2/users").responses["429"].headers["Retry-After"]).toBeDefined();
    // a v1 user id may come in the header, so the body's is not required
    expect(params("post", "/v2/users/trigger/otp/sms")).toMatchObject({ "header X-Auth-User-ID": false });
    expect(op("post", "/v2/users/trigger/otp/sms").requestBody.content["application/json"].schema.required ?? []).not.toContain("user_id");
    // a query parameter the server requires is required
    expect(params("get", "/v2/compliance/requirements")).toMatchObject({ "query country": true });
    // every way of presenting a key
    expect(Object.keys((spec.components as any).securitySchemes).sort()).toEqual(["apiKey", "basic", "bearer"]);
    expect((spec.components as any).securitySchemes.apiKey).toEqual({ type: "apiKey", in: "header", name: "X-Api-Key" });
    expect(op("get", "/v2/users").security).toContainEqual({ apiKey: [] });
    // the members callers act on
    expect(Object.keys((spec.components as any).schemas.Problem.properties)).toEqual(
      expect.arrayContaining(["currently_due", "attempts_remaining", "retry_after", "error_id"]),
    );
  });

  it("answers every route with a body its schema accepts", async () => {
    const { key, clientId } = await t.createClient("OpenAPI");
    const call = async (method: string, route: string, path: string, init: { body?: unknown; key?: string; headers?: Record<string, string> } = {}) => {
      const res = await t.rest(method, path, { key: init.key ?? key, body: init.body, headers: init.headers });
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
      if (res.status !== 204) validateBody(route, method, res.status, res.body);
      checked.add(`${method} ${route}`);
      return res.body;
    };
    // operator
    const other = await call("POST", "/admin/clients", "/admin/clients", { key: ADMIN_KEY, body: { name: "Other", mode: "SANDBOX" } });
    const rotated = await call("POST", "/admin/clients/{client_id}/keys/rotate", `/admin/clients/${other.client_id}/keys/rotate`, { key: ADMIN_KEY, body: {} });
    await call("DELETE", "/admin/keys/{key_id}", `/admin/keys/${rotated.key_id}`, { key: ADMIN_KEY });
    // users, OTP, documents, verification
    const body = {
      first_name: "Ana",
      last_name: "Cruz",
      email: "ana.openapi@example.com",
      phone_number: "+6591234567",
      date_of_birth: "1990-05-17",
      nationality: "SG",
      country_of_residence: "SG",
      residential_address: { line1: "1 Orchard Rd", city: "Singapore", postal_code: "238801", country: "SG" },
    };
    const user = await call("POST", "/v2/users", "/v2/users", { body });
    await call("PUT", "/v2/users/{user_id}", `/v2/users/${user.user_id}`, { body: { middle_name: "Maria" } });
    await t.checksSettled(); // a settling check run moves the user's risk between the two transports' reads
    await call("GET", "/v2/users/{user_id}", `/v2/users/${user.user_id}`);
    await call("GET", "/v2/users", "/v2/users?sort_fields=last_name");
    const codeOf = async (channel: string) =>
      (await call("GET", "/v2/sandbox/messages", `/v2/sandbox/messages?user_id=${user.user_id}&channel=${channel}`)).data[0].code;
    await call("POST", "/v2/users/trigger/otp/sms", "/v2/users/trigger/otp/sms", { body: { user_id: user.user_id } });
    await call("POST", "/v2/users/verify/otp", "/v2/users/verify/otp", { body: { user_id: user.user_id, channel: "SMS", code: await codeOf("SMS") } });
    await t.db.user.update({ where: { id: user.user_id }, data: { emailVerified: true } });
    await call("PUT", "/v2/users/{user_id}", `/v2/users/${user.user_id}`, { body: { email: "ana.new@example.com" } });
    await call("POST", "/v2/users/trigger/otp/email", "/v2/users/trigger/otp/email", { body: { user_id: user.user_id } });
    await call("PUT", "/v2/users/verify/otp", "/v2/users/verify/otp", { body: { user_id: user.user_id, channel: "EMAIL", code: await codeOf("EMAIL") } });
    const passport = await call("POST", "/v2/users/authentications/documents", "/v2/users/authentications/documents", {
      body: {
        user_id: user.user_id,
        document_type: "PASSPORT",
        document_number: "E1234567",
        issuing_country: "SG",
        issue_date: "2020-01-15",
        expiry_date: "2030-01-14",
        file: file("passport.png"),
      },
    });
    await call("POST", "/v2/users/authentications/documents", "/v2/users/authentications/documents", {
      body: { user_id: user.user_id, document_type: "PROOF_OF_ADDRESS", file: file("bill.png") },
    });
    await call("PUT", "/v2/users/authentications/documents", "/v2/users/authentications/documents", {
      body: { document_id: passport.document_id, expiry_date: "2031-01-14" },
    });
    await call("GET", "/v2/users/authentications/documents", `/v2/users/authentications/documents?user_id=${user.user_id}`);
    await call("GET", "/v2/users/authentications/documents/{document_id}", `/v2/users/authentications/documents/${passport.document_id}`);
    await call("GET", "/v2/users/authentications/documents/{document_id}/file", `/v2/users/authentications/documents/${passport.document_id}/file`);
    await call("GET", "/v2/compliance/requirements", "/v2/compliance/requirements?country=SGP");
    await call("POST", "/v2/users/verify", "/v2/users/verify", { body: { user_id: user.user_id } });
    // the verification's checks run in the background: settled first, so the two transports read the same runs
    await t.checksSettled();
    await call("GET", "/v2/users/{user_id}/checks", `/v2/users/${user.user_id}/checks`);
    const manual = await call("POST", "/v2/users/{user_id}/checks", `/v2/users/${user.user_id}/checks`, { body: { type: "KYC" } });
    await call("POST", "/v2/checks/{check_id}/result", `/v2/checks/${manual.check_id}/result`, {
      key: ADMIN_KEY,
      body: { status: "CLEAR", reasons: ["reviewed by hand"] },
    });
    const spare = await call("POST", "/v2/users/authentications/documents", "/v2/users/authentications/documents", {
      body: { user_id: user.user_id, document_type: "SELFIE", file: file("me.png") },
    });
    await call("DELETE", "/v2/users/authentications/documents/{document_id}", `/v2/users/authentications/documents/${spare.document_id}`);
    // wallets and cards (a wallet needs an ACTIVE user: approval is the checks engine's, set here directly)
    await t.db.user.update({ where: { id: user.user_id }, data: { status: "ACTIVE" } });
    const wallet = await call("POST", "/v2/users/wallets", "/v2/users/wallets", { body: { user_id: user.user_id, currency: "SGD" } });
    await call("GET", "/v2/users/wallets/{wallet_id}", `/v2/users/wallets/${wallet.wallet_id}`);
    const card = await call("POST", "/v2/users/wallets/cards", "/v2/users/wallets/cards", { body: { wallet_id: wallet.wallet_id, card_type: "VIRTUAL" } });
    await call("GET", "/v2/users/wallets/cards/{card_id}", `/v2/users/wallets/cards/${card.card_id}`);
    await call("POST", "/v2/users/wallets/cards/{card_id}/cancel", `/v2/users/wallets/cards/${card.card_id}/cancel`, { body: {} });
    // v1 (legacy)
    const legacy = await call("POST", "/v1/users", "/v1/users", { body: { first_name: "Leg", last_name: "Acy", email: "legacy.openapi@example.com" } });
    await call("PUT", "/v1/users", "/v1/users", { body: { user_id: legacy.user_id, middle_name: "V" } });
    const address = { line1: "1 Old Rd", city: "Singapore", postal_code: "049315", country: "SG" };
    await call("PUT", "/v1/users/addresses/residential", "/v1/users/addresses/residential", { body: { user_id: legacy.user_id, address } });
    await call("PUT", "/v1/users/addresses/billing", "/v1/users/addresses/billing", { body: { user_id: legacy.user_id, address } });
    const selfie = await call("POST", "/v1/users/authentications/documents", "/v1/users/authentications/documents", {
      body: { user_id: legacy.user_id, document_type: "SELFIE", file: file("me.png") },
    });
    await call("PUT", "/v1/users/authentications/documents", "/v1/users/authentications/documents", {
      body: { document_id: selfie.document_id, expiry_date: "2031-01-01" },
    });
    await t.db.user.update({ where: { id: legacy.user_id }, data: { status: "ACTIVE" } });
    const legacyWallet = await call("POST", "/v1/users/wallets", "/v1/users/wallets", { body: { user_id: legacy.user_id, currency: "USD" } });
    await call("POST", "/v1/users/wallets/cards/", "/v1/users/wallets/cards", { body: { wallet_id: legacyWallet.wallet_id, card_type: "PHYSICAL" } });
    // webhooks: one delivery made directly (the job engine that schedules them is not there yet)
    const receiver = createServer((_req, res) => res.end("ok"));
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const hook = await call("POST", "/v2/webhooks", "/v2/webhooks", { body: { url, event_types: ["user.status.updated"] } });
      await call("GET", "/v2/webhooks", "/v2/webhooks");
      await call("GET", "/v2/webhooks/{webhook_id}", `/v2/webhooks/${hook.webhook_id}`);
      await call("PUT", "/v2/webhooks/{webhook_id}", `/v2/webhooks/${hook.webhook_id}`, {
        body: { event_types: ["user.status.updated", "check.kyc.updated"] },
      });
      await call("POST", "/v2/webhooks/{webhook_id}/rotate-secret", `/v2/webhooks/${hook.webhook_id}/rotate-secret`, { body: {} });
      const event = { id: "evt_openapi_1", type: "user.status.updated", createdAt: new Date(), data: { user_id: user.user_id } };
      await deliverWebhook(t.app.services as never, hook.webhook_id, event);
      await call("GET", "/v2/webhooks/{webhook_id}/attempts", `/v2/webhooks/${hook.webhook_id}/attempts`);
      await call("POST", "/v2/webhooks/{webhook_id}/redeliver", `/v2/webhooks/${hook.webhook_id}/redeliver`, { body: { event_id: event.id } });
      await call("POST", "/v2/webhooks/{webhook_id}/test", `/v2/webhooks/${hook.webhook_id}/test`, { body: { type: "review.opened" } });
      await call("DELETE", "/v2/webhooks/{webhook_id}", `/v2/webhooks/${hook.webhook_id}`);
    } finally {
      receiver.close();
    }
    // events catch-up: a status change is an event of this client
    await call("PUT", "/v2/users/{user_id}", `/v2/users/${legacy.user_id}`, { body: { status: "CLOSED" } });
    const events = await call("GET", "/v2/events", "/v2/events?types=user.status.updated");
    expect(events.data.length).toBeGreaterThan(0);
    // reviews: a possible sanctions match opens one; two reviewers reject it, four eyes
    const reviewerKey = async (name: string) =>
      (
        await call("POST", "/admin/clients/{client_id}/reviewers", `/admin/clients/${clientId}/reviewers`, {
          key: ADMIN_KEY,
          body: { name, email: `${name.toLowerCase()}@example.com` },
        })
      ).reviewer_id as string;
    const rotatedKey = async (reviewerId: string) =>
      (
        await call("POST", "/admin/clients/{client_id}/reviewers/{reviewer_id}/keys/rotate", `/admin/clients/${clientId}/reviewers/${reviewerId}/keys/rotate`, {
          key: ADMIN_KEY,
          body: {},
        })
      ).api_key as string;
    const [ada, ben] = [await rotatedKey(await reviewerKey("Ada")), await rotatedKey(await reviewerKey("Ben"))];
    const listed = await call("POST", "/v2/users", "/v2/users", { body: { first_name: "Qassem", last_name: "Soleymani", email: "q.openapi@example.com" } });
    await t.checksSettled();
    await call("GET", "/v2/reviews/reason-codes", "/v2/reviews/reason-codes", { key: ada });
    const queue = await call("GET", "/v2/reviews", "/v2/reviews?status=OPEN&type=SANCTIONS_SCREENING", { key: ada });
    const opened = queue.data.find((r: { user_id: string }) => r.user_id === listed.user_id);
    const review = await call("GET", "/v2/reviews/{review_id}", `/v2/reviews/${opened.review_id}`, { key: ada });
    await call("POST", "/v2/reviews/{review_id}/assign", `/v2/reviews/${review.review_id}/assign`, { key: ada, body: {} });
    await call("POST", "/v2/reviews/{review_id}/decision", `/v2/reviews/${review.review_id}/decision`, {
      key: ada,
      body: {
        outcome: "REJECT",
        reason_code: "confirmed_sanctions_match",
        hits: review.hits.map((h: { hit_id: string }) => ({ hit_id: h.hit_id, decision: "TRUE_MATCH" })),
      },
    });
    await call("POST", "/v2/reviews/{review_id}/approve", `/v2/reviews/${review.review_id}/approve`, { key: ben, body: {} });
    // the sandbox's simulation routes, and its reset last but the lookups (it deletes the client's users)
    const runs = (await call("GET", "/v2/users/{user_id}/checks", `/v2/users/${listed.user_id}/checks`)).data;
    const kyc = runs.find((run: { type: string; decided_by: string }) => run.type === "KYC" && run.decided_by === "SYSTEM");
    await call("POST", "/v2/sandbox/checks/{check_id}/simulate", `/v2/sandbox/checks/${kyc.check_id}/simulate`, { body: { status: "CLEAR" } });
    await call("POST", "/v2/sandbox/users/{user_id}/alerts", `/v2/sandbox/users/${listed.user_id}/alerts`, { body: { reasons: ["structuring"] } });
    await t.checksSettled();
    await call("GET", "/v2/sandbox/clock", "/v2/sandbox/clock");
    await call("POST", "/v2/sandbox/clock/advance", "/v2/sandbox/clock/advance", { body: { hours: 1 } });
    await call("POST", "/v2/sandbox/clock/reset", "/v2/sandbox/clock/reset", { body: {} });
    await t.checksSettled();
    await call("POST", "/v2/sandbox/reset", "/v2/sandbox/reset", { body: {} });
    // lookups
    await call("GET", "/v2/payouts/remittances/corridors/{id}/requirements", "/v2/payouts/remittances/corridors/in-inr-bank/requirements?amount=2500000");
    await call("POST", "/v2/payouts/remittances/beneficiaries/validate", "/v2/payouts/remittances/beneficiaries/validate", {
      body: {
        corridor_id: "in-inr-bank",
        amount: 2_500_000,
        purpose_of_remittance: "P1301",
        sender: { first_name: "Maria", last_name: "Santos", country: "US" },
        beneficiary: { first_name: "Priya", last_name: "Sharma", ifsc_code: "HDFC0000001", account_number: "50100123456789" },
      },
    });
    await call(
      "GET",
      "/users/wallets/payouts/remittances/corridors/{receiving_country}/institutions/{receiving_institution_type}",
      "/users/wallets/payouts/remittances/corridors/PHL/institutions/bank",
    );
    await call(
      "GET",
      "/users/wallets/payouts/remittances/{receiving_institution_type}/branches/{receiving_institution_id}",
      "/users/wallets/payouts/remittances/BANK/branches/in-sbin?records_per_page=2",
    );
    await call("GET", "/payouts/remittances/utilities/countries", "/payouts/remittances/utilities/countries?destination_country_code=PH,IN");
    await call("GET", "/payouts/remittances/utilities/currencies", "/payouts/remittances/utilities/currencies?search=peso");
    await call("GET", "/users/wallet/payouts/remittances/corridors", "/users/wallet/payouts/remittances/corridors?receiving_country=PH");
    await call("GET", "/users/wallets/payouts/remittances/corridors/{country}/details", "/users/wallets/payouts/remittances/corridors/IND/details");
    await call("GET", "/users/wallet/payouts/remittances/corridors/{id}", "/users/wallet/payouts/remittances/corridors/ph-php-mobile-wallet");
    expect(clientId).toBeTruthy();
    // the check has teeth: a user body with a wrong type or a missing field is refused
    expect(() => validateBody("/v2/users/{user_id}", "GET", 200, { ...user, user_id: 1 })).toThrow();
    expect(() => validateBody("/v2/users/{user_id}", "GET", 200, { ...user, requirements: undefined })).toThrow();
    const missing = routes.map((r) => `${r.method} ${r.path}`).filter((r) => !checked.has(r));
    expect(missing, "routes with no live sample in test/openapi.test.ts").toEqual([]);
  }, 120_000);
});

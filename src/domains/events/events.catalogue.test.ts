/** The event catalogue is what the service sends: every type, published twice, and every real event valid against its schema. */
import { createServer, type Server } from "node:http";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY, startTestApp, type TestApp } from "../../../test/helpers/app.js";
import { within } from "../../../test/helpers/eventually.js";
import { eventCatalogue } from "./events.catalogue.js";
import { PUBLIC_EVENT_TYPES } from "../../kernel/event-types.js";

describe("the event catalogue", () => {
  let t: TestApp;
  let hooks: Server;
  const received: string[] = [];
  beforeAll(async () => {
    t = await startTestApp("pglite", { WEBHOOK_ALLOW_PRIVATE: "1" });
    hooks = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        received.push(body);
        res.end("ok");
      });
    });
    await new Promise<void>((resolve) => hooks.listen(0, "127.0.0.1", resolve));
  });
  afterAll(async () => {
    await t?.stop();
    await new Promise((resolve) => hooks?.close(resolve));
  });

  it("lists every type a client can hear of, at /docs/events without a key and as the OpenAPI document's webhooks", async () => {
    const catalogue = eventCatalogue();
    expect(Object.keys(catalogue).sort()).toEqual([...PUBLIC_EVENT_TYPES].sort());
    const published = await t.rest("GET", "/docs/events");
    expect(published.status).toBe(200);
    expect(published.body).toEqual({ events: JSON.parse(JSON.stringify(catalogue)) });
    const webhooks = (await t.rest("GET", "/openapi.json")).body.webhooks;
    expect(Object.keys(webhooks).sort()).toEqual(Object.keys(catalogue).sort());
    expect(webhooks["user.status.updated"].post.requestBody.content["application/json"].schema).toEqual(catalogue["user.status.updated"]!.schema);
  });

  it("describes every event the service sends, by webhook and from GET /v2/events", async () => {
    const { key, clientId } = await t.createClient("Catalogue");
    const url = `http://127.0.0.1:${(hooks.address() as { port: number }).port}/hooks`;
    expect((await t.rest("POST", "/v2/webhooks", { key, body: { url, event_types: ["*"] } })).status).toBe(201);
    const user = (await t.rest("POST", "/v2/users", { key, body: { first_name: "Cat", last_name: "Alogue", email: "cat@example.com" } })).body;
    await t.checksSettled(); // the three runs: a check event each, and the user's first risk level
    expect((await t.rest("PUT", `/v2/users/${user.user_id}`, { key, body: { status: "CLOSED" } })).status).toBe(200);
    // a possible sanctions match opens a review; a reviewer decides it
    await t.rest("POST", "/v2/users", { key, body: { first_name: "Qassem", last_name: "Soleymani", email: "q.cat@example.com" } });
    await t.checksSettled();
    const reviewer = (await t.rest("POST", `/admin/clients/${clientId}/reviewers`, { key: ADMIN_KEY, body: { name: "Cat", email: "cat@example.com" } })).body
      .api_key as string;
    const [review] = (await t.rest("GET", "/v2/reviews", { key: reviewer })).body.data;
    const hits = review.hits.map((h: { hit_id: string }) => ({ hit_id: h.hit_id, decision: "TRUE_MATCH" }));
    const body = { outcome: "REJECT", reason_code: "confirmed_sanctions_match", hits };
    expect((await t.rest("POST", `/v2/reviews/${review.review_id}/decision`, { key: reviewer, body })).status).toBe(200);
    // the operator raises a corridor's maximum: every client hears of it
    const corridor = `mutation { upsertCorridor(input: { id: "gh-ghs-bank", receivingCountry: "GH", receivingCurrency: "GHS", receivingInstitutionType: BANK,
      minAmount: 1000, maxAmount: 20000000, deliveryEstimate: { minHours: 0, maxHours: 24, description: "Within 24 hours" },
      requiredFields: ["first_name", "last_name", "account_number"] }) { id } }`;
    expect((await t.gql(ADMIN_KEY, corridor)).errors).toBeUndefined();

    const typeOf = (body: string) => JSON.parse(body).type as string;
    await within(
      "a webhook of every type",
      () => new Set(received.map(typeOf)),
      (types) => PUBLIC_EVENT_TYPES.every((type) => types.has(type)),
      20_000,
    );
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    (addFormats as unknown as (a: Ajv2020) => void)(ajv);
    const catalogue = eventCatalogue();
    const validate = (event: { type: string }) => {
      const check = ajv.compile(catalogue[event.type]!.schema);
      expect(check(event), `${event.type}: ${JSON.stringify(check.errors)}`).toBe(true);
    };
    for (const body of received) validate(JSON.parse(body));
    const listed = (await t.rest("GET", "/v2/events?records_per_page=50", { key })).body.data;
    expect(new Set(listed.map((e: { type: string }) => e.type))).toEqual(new Set(PUBLIC_EVENT_TYPES));
    for (const event of listed) validate(event);
  });
});

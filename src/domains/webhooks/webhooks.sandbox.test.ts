/**
 * The webhook sandbox (#33), for SANDBOX keys only: an endpoint whose path ends /sandbox-fail-3 has the
 * first three attempts of each event answered 500 without sending, and POST /v2/webhooks/{id}/test
 * sends a signed sample event of a chosen type. A LIVE key's same endpoint behaves normally, and a LIVE
 * key gets 404 for test events. Every delivery reaches a local receiver that verifies its Standard
 * Webhooks signature; a LIVE endpoint must be https, so a TLS front (a certificate made here and
 * trusted by this test's process only) forwards to the same receiver.
 */
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import tls from "node:tls";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, startTestApp, type TestApp } from "../../../test/helpers/app.js";
import { eventually } from "../../../test/helpers/eventually.js";
import { startWebhookReceiver, type WebhookReceiver } from "../../../test/helpers/webhook-receiver.js";
import { eventCatalogue } from "../events/events.catalogue.js";
import { PUBLIC_EVENT_TYPES } from "../../kernel/event-types.js";
import { checkEventType, sandboxFailingAttempts } from "./webhooks.rules.js";

/** retries 0.2 s, 0.3 s, 0.4 s, 0.5 s after the 1st, 2nd, … failure: distinct, so the attempts show the schedule was followed */
const FAST = { WEBHOOK_ALLOW_PRIVATE: "1", WEBHOOK_RETRY_SCHEDULE: "0.2,0.3,0.4,0.5" };
/** a type nothing in these tests raises: an endpoint subscribed to it gets only what a test sends it */
const QUIET = ["review.decided"];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type Client = { key: string; clientId: string };
type Attempt = {
  attempt_id: string;
  event_id: string;
  event_type: string;
  attempt_number: number;
  outcome: string;
  status_code: number | null;
  duration_ms: number;
  response_snippet: string | null;
  attempted_at: string;
  next_retry_at: string | null;
};

const TEST_ENDPOINT = `mutation($input: TestWebhookEndpointInput!) { testWebhookEndpoint(input: $input) { eventId eventType attemptNumber outcome statusCode durationMs nextRetryAt } }`;
const ATTEMPTS = `query($endpointId: ID!, $eventId: String) {
  webhookAttempts(endpointId: $endpointId, eventId: $eventId, first: 20) { edges { node { attemptNumber outcome statusCode } } } }`;

describe("webhook sandbox rules", () => {
  it("fails 3 attempts for a SANDBOX endpoint whose path ends /sandbox-fail-3, in any case, never for LIVE", () => {
    expect(sandboxFailingAttempts("SANDBOX", "https://hooks.example/acme/sandbox-fail-3")).toBe(3);
    expect(sandboxFailingAttempts("SANDBOX", "http://127.0.0.1:9/Sandbox-Fail-3?from=test")).toBe(3);
    expect(sandboxFailingAttempts("LIVE", "https://hooks.example/acme/sandbox-fail-3")).toBe(0);
    for (const url of [
      "https://hooks.example/sandbox-fail-3/",
      "https://hooks.example/sandbox-fail-30",
      "https://hooks.example/x?p=/sandbox-fail-3",
      "not a url",
    ])
      expect(sandboxFailingAttempts("SANDBOX", url), url).toBe(0);
  });

  it("takes one known event type for a test event and names every allowed one otherwise", () => {
    expect(checkEventType(" review.opened ")).toBe("review.opened");
    expect(() => checkEventType("*")).toThrow(`Unknown event type "*": use one of ${PUBLIC_EVENT_TYPES.join(", ")}.`);
  });
});

/** An https server forwarding every request to the receiver as it came (path, headers, body), and its answer back. */
async function startTlsFront(receiver: WebhookReceiver) {
  const pem = execFileSync(
    "openssl",
    ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "-", "-out", "-", "-subj", "/CN=127.0.0.1"].concat([
      "-addext",
      "subjectAltName=IP:127.0.0.1",
      "-days",
      "1",
    ]),
    { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] },
  );
  const [key, cert] = ["PRIVATE KEY", "CERTIFICATE"].map((label) => new RegExp(`-----BEGIN ${label}-----[\\s\\S]+?-----END ${label}-----`).exec(pem)![0]);
  const trusted = tls.getCACertificates("default");
  tls.setDefaultCACertificates([...trusted, cert!]); // the app's https requests take the default store
  const server = https.createServer({ key, cert }, (req, res) => {
    const forward = http.request(receiver.url(req.url ?? "/"), { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(forward);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: (path: string) => `https://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    close: () =>
      new Promise<void>((r) => {
        tls.setDefaultCACertificates(trusted);
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe.each(backends)("the webhook sandbox on %s", (backend) => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let front: Awaited<ReturnType<typeof startTlsFront>>;
  let sandbox: Client;
  let live: Client;
  let stranger: Client;
  const validate = envelopeValidator();

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    front = await startTlsFront(receiver);
    t = await startTestApp(backend, FAST);
    sandbox = await t.createClient("Sandboxed");
    live = await t.createClient("Live one", undefined, "LIVE");
    stranger = await t.createClient("Stranger");
  });
  afterAll(async () => {
    await t?.stop();
    await front?.close();
    await receiver?.close();
  });

  /** An endpoint of `client` at `url`, whose receiver path checks signatures with its secret. */
  async function endpoint(client: Client, path: string, url: string, eventTypes = ["user.status.updated"]) {
    const res = await t.rest("POST", "/v2/webhooks", { key: client.key, body: { url, event_types: eventTypes } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    receiver.sign(path, res.body.secret);
    return res.body.webhook_id as string;
  }
  /** A user of `client` closed: one committed `user.status.updated` event, whose id this returns. */
  async function closedUserEvent(client: Client) {
    const created = await t.rest("POST", "/v2/users", { key: client.key, body: { first_name: "Hook", last_name: "Ed", email: `${randomUUID()}@example.com` } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect((await t.rest("PUT", `/v2/users/${created.body.user_id}`, { key: client.key, body: { status: "CLOSED" } })).status).toBe(200);
    const event = await t.db.event.findFirstOrThrow({
      where: {
        type: "user.status.updated",
        AND: [{ data: { path: ["userId"], equals: created.body.user_id } }, { data: { path: ["status"], equals: "CLOSED" } }],
      },
    });
    return event.id;
  }
  /** GET /v2/webhooks/{id}/attempts of one event, oldest first, once `done` holds */
  const attemptsOf = (client: Client, endpointId: string, eventId: string, done: (a: Attempt[]) => boolean) =>
    eventually(
      async (): Promise<Attempt[]> => (await t.rest("GET", `/v2/webhooks/${endpointId}/attempts?event_id=${eventId}`, { key: client.key })).body.data.reverse(),
      done,
      15_000,
      50,
    );
  const retryDelays = (attempts: Attempt[]) => attempts.map((a) => a.next_retry_at && (Date.parse(a.next_retry_at) - Date.parse(a.attempted_at)) / 1000);

  it("fails the first three attempts of each event to a SANDBOX /sandbox-fail-3 endpoint with a 500, nothing sent, and sends the fourth", async () => {
    const path = `/${randomUUID().slice(0, 8)}/sandbox-fail-3`;
    const id = await endpoint(sandbox, path, receiver.url(path));
    const events = [await closedUserEvent(sandbox), await closedUserEvent(sandbox)];
    await receiver.until("each event, once", () => events.every((e) => receiver.at(path).some((d) => d.id === e)));
    for (const eventId of events) {
      const attempts = await attemptsOf(sandbox, id, eventId, (a) => a.length >= 4);
      expect(attempts.map((a) => [a.attempt_number, a.outcome, a.status_code])).toEqual([
        [1, "HTTP_ERROR", 500],
        [2, "HTTP_ERROR", 500],
        [3, "HTTP_ERROR", 500],
        [4, "SUCCEEDED", 200],
      ]);
      expect(retryDelays(attempts)).toEqual([0.2, 0.3, 0.4, null]); // WEBHOOK_RETRY_SCHEDULE, as for a receiver's own 500
      expect(attempts[0]!.response_snippet).toMatch(/^Simulated by the sandbox, nothing sent/);
      const gql = await t.gql(sandbox.key, ATTEMPTS, { endpointId: id, eventId });
      expect(gql.data.webhookAttempts.edges.map((e: { node: unknown }) => e.node).reverse()).toEqual([
        { attemptNumber: 1, outcome: "HTTP_ERROR", statusCode: 500 },
        { attemptNumber: 2, outcome: "HTTP_ERROR", statusCode: 500 },
        { attemptNumber: 3, outcome: "HTTP_ERROR", statusCode: 500 },
        { attemptNumber: 4, outcome: "SUCCEEDED", statusCode: 200 },
      ]);
    }
    await new Promise((r) => setTimeout(r, 700)); // a fifth attempt, or a second request, would have come by now
    for (const eventId of events) {
      const got = receiver.at(path).filter((d) => d.id === eventId);
      expect(got.map((d) => [d.status, d.verified])).toEqual([[200, true]]);
      expect(JSON.parse(got[0]!.body)).toMatchObject({ id: eventId, type: "user.status.updated", data: { status: "CLOSED" } });
    }
  });

  it("sends a LIVE client's /sandbox-fail-3 endpoint every event from the first attempt, like any other", async () => {
    const path = `/${randomUUID().slice(0, 8)}/sandbox-fail-3`;
    const id = await endpoint(live, path, front.url(path));
    const eventId = await closedUserEvent(live);
    await receiver.until("the LIVE event", () => receiver.at(path).some((d) => d.id === eventId));
    const attempts = await attemptsOf(live, id, eventId, (a) => a.length >= 1);
    expect(attempts.map((a) => [a.attempt_number, a.outcome, a.status_code, a.next_retry_at])).toEqual([[1, "SUCCEEDED", 200, null]]);
    expect(receiver.at(path).map((d) => [d.id, d.verified])).toEqual([[eventId, true]]);
    // and a LIVE receiver's own 500 is retried as usual
    receiver.answer(path, 500, 200);
    const second = await closedUserEvent(live);
    const retried = await attemptsOf(live, id, second, (a) => a.length >= 2);
    expect(retried.map((a) => [a.attempt_number, a.outcome, a.status_code])).toEqual([
      [1, "HTTP_ERROR", 500],
      [2, "SUCCEEDED", 200],
    ]);
    expect(
      receiver
        .at(path)
        .filter((d) => d.id === second)
        .map((d) => [d.status, d.verified]),
    ).toEqual([
      [500, true],
      [200, true],
    ]);
  });

  it("sends a signed test event of every type, valid against the event catalogue, whatever the endpoint subscribes to", async () => {
    const path = `/${randomUUID().slice(0, 8)}/tests`;
    const id = await endpoint(sandbox, path, receiver.url(path), QUIET);
    for (const type of PUBLIC_EVENT_TYPES) {
      const res = await t.rest("POST", `/v2/webhooks/${id}/test`, { key: sandbox.key, body: { type } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toMatchObject({ webhook_id: id, event_type: type, attempt_number: 1, outcome: "SUCCEEDED", status_code: 200, next_retry_at: null });
      expect(res.body.duration_ms).toEqual(expect.any(Number));
      const [got] = receiver.at(path).filter((d) => d.id === res.body.event_id);
      expect(got?.verified, type).toBe(true);
      const envelope = JSON.parse(got!.body);
      expect(envelope).toMatchObject({ id: res.body.event_id, type, test: true });
      expect(envelope.id).toMatch(UUID);
      validate(envelope);
    }
    // no type: user.status.updated; GraphQL alike
    const byDefault = await t.rest("POST", `/v2/webhooks/${id}/test`, { key: sandbox.key, body: {} });
    expect(byDefault.body).toMatchObject({ event_type: "user.status.updated", outcome: "SUCCEEDED" });
    const gql = await t.gql(sandbox.key, TEST_ENDPOINT, { input: { webhookId: id, type: "review.decided" } });
    expect(gql.data.testWebhookEndpoint).toMatchObject({
      eventType: "review.decided",
      attemptNumber: 1,
      outcome: "SUCCEEDED",
      statusCode: 200,
      nextRetryAt: null,
    });
    expect(receiver.at(path).find((d) => d.id === gql.data.testWebhookEndpoint.eventId)?.verified).toBe(true);
    // the receiver's failure is the answer, recorded, and no retry follows
    receiver.answer(path, 503, 200);
    const failed = await t.rest("POST", `/v2/webhooks/${id}/test`, { key: sandbox.key, body: { type: "check.kyc.updated" } });
    expect(failed.body).toMatchObject({ outcome: "HTTP_ERROR", status_code: 503, next_retry_at: null });
    const listed = await t.rest("GET", `/v2/webhooks/${id}/attempts?records_per_page=100`, { key: sandbox.key });
    expect(listed.body.pagination.total_records).toBe(PUBLIC_EVENT_TYPES.length + 3);
    expect(listed.body.data[0]).toMatchObject({ event_id: failed.body.event_id, outcome: "HTTP_ERROR", status_code: 503 });
  });

  it("fails a test event to a /sandbox-fail-3 endpoint like any event: redelivered, the fourth attempt is sent, still marked a test", async () => {
    const path = `/${randomUUID().slice(0, 8)}/sandbox-fail-3`;
    const id = await endpoint(sandbox, path, receiver.url(path), QUIET);
    const first = await t.rest("POST", `/v2/webhooks/${id}/test`, { key: sandbox.key, body: { type: "review.opened" } });
    expect(first.body).toMatchObject({ attempt_number: 1, outcome: "HTTP_ERROR", status_code: 500, next_retry_at: null });
    const redeliver = () => t.rest("POST", `/v2/webhooks/${id}/redeliver`, { key: sandbox.key, body: { event_id: first.body.event_id } });
    const again = [await redeliver(), await redeliver(), await redeliver()];
    expect(again.map((r) => [r.body.attempt_number, r.body.outcome, r.body.status_code])).toEqual([
      [2, "HTTP_ERROR", 500],
      [3, "HTTP_ERROR", 500],
      [4, "SUCCEEDED", 200],
    ]);
    const got = receiver.at(path);
    expect(got.map((d) => [d.id, d.verified])).toEqual([[first.body.event_id, true]]);
    expect(JSON.parse(got[0]!.body)).toMatchObject({ type: "review.opened", test: true });
  });

  it("refuses test events: LIVE keys 404, another client's endpoint 404, a disabled one 409, an unknown type 400, no scope 403; nothing sent", async () => {
    const path = `/${randomUUID().slice(0, 8)}/refused`;
    const livePath = `${path}-live`;
    const id = await endpoint(sandbox, path, receiver.url(path), QUIET);
    const liveId = await endpoint(live, livePath, front.url(livePath), QUIET);
    const test = (client: Client, webhookId: string, body: unknown = { type: "user.status.updated" }) =>
      t.rest("POST", `/v2/webhooks/${webhookId}/test`, { key: client.key, body });

    const liveRest = await test(live, liveId);
    expect([liveRest.status, liveRest.body.code]).toEqual([404, "NOT_FOUND"]);
    const liveGql = await t.gql(live.key, TEST_ENDPOINT, { input: { webhookId: liveId } });
    expect(liveGql.errors?.[0]?.extensions.code).toBe("NOT_FOUND");
    expect((await test(stranger, id)).status).toBe(404);
    const strangerGql = await t.gql(stranger.key, TEST_ENDPOINT, { input: { webhookId: id } });
    expect(strangerGql.errors?.[0]?.extensions.code).toBe("NOT_FOUND");

    const unknown = await test(sandbox, id, { type: "user.deleted" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0]).toMatchObject({
      field: "type",
      message: `Unknown event type "user.deleted": use one of ${PUBLIC_EVENT_TYPES.join(", ")}.`,
    });
    const unknownGql = await t.gql(sandbox.key, TEST_ENDPOINT, { input: { webhookId: id, type: "*" } });
    expect(unknownGql.errors?.[0]?.extensions).toMatchObject({ code: "VALIDATION_FAILED" });

    const { key: reader } = await t.createClient("Reader", ["users:read"]);
    expect((await t.rest("POST", `/v2/webhooks/${id}/test`, { key: reader, body: {} })).status).toBe(403);

    expect((await t.rest("PUT", `/v2/webhooks/${id}`, { key: sandbox.key, body: { enabled: false } })).status).toBe(200);
    const disabled = await test(sandbox, id);
    expect([disabled.status, disabled.body.code]).toEqual([409, "WEBHOOK_ENDPOINT_DISABLED"]);
    const disabledGql = await t.gql(sandbox.key, TEST_ENDPOINT, { input: { webhookId: id } });
    expect(disabledGql.errors?.[0]?.extensions.code).toBe("WEBHOOK_ENDPOINT_DISABLED");

    expect(receiver.at(path)).toEqual([]);
    expect(receiver.at(livePath)).toEqual([]);
    expect(await t.db.webhookAttempt.count({ where: { endpointId: { in: [id, liveId] } } })).toBe(0);
  });
});

/** Checks an envelope against the event catalogue's JSON Schema for its type (formats too: uuid, date-time). */
function envelopeValidator() {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  const catalogue = eventCatalogue();
  return (envelope: { type: string }) => {
    const check = ajv.compile(catalogue[envelope.type]!.schema);
    expect(check(envelope), `${envelope.type}: ${JSON.stringify(check.errors)}`).toBe(true);
  };
}

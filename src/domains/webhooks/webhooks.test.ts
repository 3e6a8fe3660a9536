import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, startTestApp, type TestApp } from "../../../test/helpers/app.js";
import { loadConfig } from "../../config.js";
import { deliverWebhook, type WebhookEvent } from "./webhooks.delivery.js";
import { checkEventTypes, DEFAULT_RETRY_SCHEDULE_MS, failingSince, nextRetryAt, shouldDisable } from "./webhooks.rules.js";
import { isPublicAddress, resolveTarget } from "./webhooks.ssrf-guard.js";

describe("webhook rules", () => {
  it("retries after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then stops", () => {
    const at = new Date("2026-01-01T00:00:00Z");
    const delays = [1, 2, 3, 4, 5, 6, 7].map((n) => (nextRetryAt(n, at)!.getTime() - at.getTime()) / 1000);
    expect(delays).toEqual([5, 300, 1800, 7200, 18000, 36000, 36000]);
    expect(nextRetryAt(8, at)).toBeNull();
    expect(nextRetryAt(2, at, [1000, 2000])!.getTime() - at.getTime()).toBe(2000);
    expect(DEFAULT_RETRY_SCHEDULE_MS).toHaveLength(7);
  });

  it("disables an endpoint whose attempts have all failed for 5 days, not one that succeeded since", () => {
    const day = (d: number) => new Date(Date.UTC(2026, 0, 1 + d));
    const fail = (d: number) => ({ attemptedAt: day(d), succeeded: false });
    expect(failingSince([])).toBeNull();
    expect(failingSince([fail(0), { attemptedAt: day(1), succeeded: true }])).toBeNull();
    expect(failingSince([fail(3), { attemptedAt: day(1), succeeded: true }, fail(2)])).toEqual(day(2));
    expect(shouldDisable(failingSince([fail(0), fail(4)]), day(4))).toBe(false);
    expect(shouldDisable(failingSince([fail(0), fail(5)]), day(5))).toBe(true);
    expect(shouldDisable(null, day(9))).toBe(false);
  });

  it("takes known event types or *, and names the field otherwise", () => {
    expect(checkEventTypes(["check.kyc.updated", "check.kyc.updated", "user.status.updated"])).toEqual(["check.kyc.updated", "user.status.updated"]);
    expect(checkEventTypes(["*", "check.kyc.updated"])).toEqual(["*"]);
    expect(() => checkEventTypes(["user.deleted"])).toThrow(/Unknown event type "user.deleted"/);
    expect(() => checkEventTypes([])).toThrow(/at least one/);
  });

  it("classifies addresses: only public unicast passes", () => {
    for (const ip of [
      "127.0.0.1",
      "10.1.2.3",
      "172.16.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "224.0.0.1",
      "0.0.0.0",
      "255.255.255.255",
      "::1",
      "::",
      "fe80::1",
      "fc00::1",
      "ff02::1",
      "::ffff:127.0.0.1",
      "::ffff:8.8.8.8",
      "64:ff9b::a00:1",
      "2002:a00:1::",
      "not-an-ip",
    ])
      expect(isPublicAddress(ip), ip).toBe(false);
    for (const ip of ["8.8.8.8", "93.184.216.34", "2606:4700:4700::1111"]) expect(isPublicAddress(ip), ip).toBe(true);
  });

  it("judges every IPv6 form that carries an IPv4 as no public host: compatible, mapped, translated, NAT64, 6to4, Teredo", () => {
    const forms = [
      "::7f00:1",
      "::127.0.0.1",
      "::a9fe:a9fe",
      "::a00:1",
      "::c0a8:101", // IPv4-compatible ::/96 (ipaddr.js has no range for it)
      "::ffff:a9fe:a9fe",
      "::ffff:0:7f00:1", // IPv4-mapped, IPv4-translated
      "64:ff9b::7f00:1",
      "64:ff9b::a9fe:a9fe",
      "64:ff9b:1::a00:1", // NAT64, well-known and local-use prefixes
      "2002:7f00:1::",
      "2002:a9fe:a9fe::1",
      "2002:c0a8:101::1", // 6to4 around 127.0.0.1, 169.254.169.254, 192.168.1.1
      "2001:0:4136:e378:8000:63bf:80ff:fffe",
      "2001:0:7f00:1::1", // Teredo: client 127.0.0.1 (obfuscated), server 127.0.0.1
      "::808:808",
      "::ffff:808:808",
      "64:ff9b::808:808",
      "2002:808:808::1", // a public IPv4 carried: reached by its IPv4 address, not this way
      "100::1",
      "5f00::1",
      "3fff::1", // discard, segment routing, documentation
    ];
    for (const ip of forms) expect(isPublicAddress(ip), ip).toBe(false);
  });

  it("refuses a name when any address it resolves to is private, and LIVE http", async () => {
    const resolve = async () => [
      { address: "93.184.216.34", family: 4 },
      { address: "10.0.0.7", family: 4 },
    ];
    await expect(resolveTarget("https://rebind.example/hook", { mode: "SANDBOX", allowPrivate: false, resolve })).rejects.toThrow(/non-public/);
    const target = await resolveTarget("https://rebind.example/hook", { mode: "SANDBOX", allowPrivate: true, resolve });
    expect(target).toMatchObject({ address: "93.184.216.34", family: 4 });
    await expect(resolveTarget("http://8.8.8.8/hook", { mode: "LIVE", allowPrivate: true })).rejects.toThrow(/https/);
    await expect(resolveTarget("https://[::ffff:7f00:1]/hook", { mode: "LIVE", allowPrivate: false })).rejects.toThrow(/non-public/);
    await expect(resolveTarget("ftp://8.8.8.8/", { mode: "SANDBOX", allowPrivate: true })).rejects.toThrow(/https/);
  });

  it("reads WEBHOOK_ALLOW_PRIVATE as 0 or 1 and refuses anything else naming the variable", () => {
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE: "1" }).webhookAllowPrivate).toBe(true);
    expect(loadConfig({}).webhookAllowPrivate).toBe(false);
    expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE: "yes" })).toThrow(/^WEBHOOK_ALLOW_PRIVATE/);
  });
});

type Received = { headers: IncomingHttpHeaders; body: string; url: string };
/** A local receiver answering from a script of statuses (the last one repeats); `hang` never answers. */
async function startReceiver() {
  const received: Received[] = [];
  let script: (number | "hang")[] = [200];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      received.push({ headers: req.headers, body, url: req.url ?? "" });
      const next = script.length > 1 ? script.shift()! : script[0];
      if (next === "hang") return;
      if (next >= 300 && next < 400) res.setHeader("location", "/elsewhere");
      // echoes the signature header, which the stored snippet must not keep; /big answers 5 KB
      res.writeHead(next).end(req.url === "/big" ? "x".repeat(5000) : `status ${next} ${req.headers["webhook-signature"]}`);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    received,
    url: `http://127.0.0.1:${port}/hook`,
    answer(...statuses: (number | "hang")[]) {
      script = statuses;
      received.length = 0;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const event = (type = "check.kyc.updated"): WebhookEvent => ({
  id: `evt_${randomUUID()}`,
  type,
  createdAt: new Date(),
  data: { user_id: randomUUID(), check: { status: "CLEAR" } },
});
const CREATE = `mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { id url eventTypes enabled secret } }`;

describe.each(backends)("webhooks on %s", (backend) => {
  let t: TestApp;
  let key: string;
  let stranger: string;
  let live: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const deliver = (id: string, e: WebhookEvent) => deliverWebhook(t.app.services, id, e);
  /** WEBHOOK_ALLOW_PRIVATE for the rest of one test: the app's settings object is what every request reads */
  async function strict<T>(fn: () => Promise<T>) {
    t.app.services.webhooks.allowPrivate = false;
    try {
      return await fn();
    } finally {
      t.app.services.webhooks.allowPrivate = true;
    }
  }
  async function endpoint(eventTypes = ["*"]) {
    const res = await t.rest("POST", "/v2/webhooks", { key, body: { url: receiver.url, event_types: eventTypes } });
    expect(res.status).toBe(201);
    return res.body as { webhook_id: string; secret: string };
  }

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startTestApp(backend, { WEBHOOK_ALLOW_PRIVATE: "1" });
    key = (await t.createClient("Hooked")).key;
    stranger = (await t.createClient("Stranger")).key;
    live = (await t.createClient("Live one", undefined, "LIVE")).key;
  });
  afterAll(async () => {
    await t?.stop();
    await receiver?.close();
  });

  it("creates an endpoint with a whsec_ secret shown once, over REST and GraphQL", async () => {
    expect(t.app.services.webhooks.allowPrivate).toBe(true); // from WEBHOOK_ALLOW_PRIVATE=1
    const created = await endpoint(["check.kyc.updated", "user.status.updated"]);
    expect(created).toMatchObject({ url: receiver.url, event_types: ["check.kyc.updated", "user.status.updated"], enabled: true, disabled_reason: null });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const read = await t.rest("GET", `/v2/webhooks/${created.webhook_id}`, { key });
    expect(read.status).toBe(200);
    expect(read.body.secret).toBeNull();
    const list = await t.rest("GET", "/v2/webhooks?records_per_page=100", { key });
    expect(list.body.data.find((e: any) => e.webhook_id === created.webhook_id)).toMatchObject({ secret: null });
    const stored = await t.db.webhookEndpoint.findUniqueOrThrow({ where: { id: created.webhook_id } });
    expect(stored.secretEncrypted).not.toContain(created.secret.slice(6, 20));
    const gql = await t.gql(key, CREATE, { input: { url: receiver.url, eventTypes: ["*"] } });
    expect(gql.data.createWebhookEndpoint).toMatchObject({ eventTypes: ["*"], enabled: true, secret: expect.stringMatching(/^whsec_/) });
    const again = await t.gql(key, `query($id: ID!) { webhookEndpoint(id: $id) { secret } }`, { id: gql.data.createWebhookEndpoint.id });
    expect(again.data.webhookEndpoint.secret).toBeNull();
  });

  it("refuses unknown event types naming event_types, and writes nothing", async () => {
    const before = await t.db.webhookEndpoint.count();
    const res = await t.rest("POST", "/v2/webhooks", { key, body: { url: receiver.url, event_types: ["user.deleted"] } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ field: "event_types" });
    const gql = await t.gql(key, CREATE, { input: { url: receiver.url, eventTypes: [] } });
    expect(gql.errors?.[0].extensions).toMatchObject({ code: "VALIDATION_FAILED" });
    expect(await t.db.webhookEndpoint.count()).toBe(before);
  });

  it("delivers a signed envelope that verifies with the endpoint secret", async () => {
    const { webhook_id, secret } = await endpoint(["check.kyc.updated"]);
    receiver.answer(200);
    const e = event();
    const result = await deliver(webhook_id, e);
    expect(result).toMatchObject({ retryAt: null, attempt: { outcome: "SUCCEEDED", statusCode: 200, attemptNumber: 1, nextRetryAt: null } });
    expect(receiver.received).toHaveLength(1);
    const [got] = receiver.received;
    expect(got.headers["webhook-id"]).toBe(e.id);
    expect(got.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const payload = new Webhook(secret).verify(got.body, got.headers as Record<string, string>);
    expect(payload).toEqual({ id: e.id, type: "check.kyc.updated", created_at: new Date(e.createdAt).toISOString(), data: e.data });
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString("base64")}`).verify(got.body, got.headers as Record<string, string>)).toThrow();
    // an event type the endpoint did not subscribe to is not sent
    expect(await deliver(webhook_id, event("user.risk_level.updated"))).toEqual({ skipped: "not_subscribed" });
    expect(receiver.received).toHaveLength(1);
  });

  it("records four attempts for 500 three times then 200: one success, the same webhook-id, retries on the schedule", async () => {
    const { webhook_id } = await endpoint();
    receiver.answer(500, 500, 500, 200);
    const e = event();
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await deliver(webhook_id, e));
    expect(new Set(receiver.received.map((r) => r.headers["webhook-id"]))).toEqual(new Set([e.id]));
    const res = await t.rest("GET", `/v2/webhooks/${webhook_id}/attempts?event_id=${e.id}`, { key });
    expect(res.status).toBe(200);
    expect(res.body.pagination.total_records).toBe(4);
    const attempts = [...res.body.data].reverse();
    expect(attempts.map((a: any) => [a.attempt_number, a.outcome, a.status_code])).toEqual([
      [1, "HTTP_ERROR", 500],
      [2, "HTTP_ERROR", 500],
      [3, "HTTP_ERROR", 500],
      [4, "SUCCEEDED", 200],
    ]);
    expect(attempts.map((a: any) => a.next_retry_at && (Date.parse(a.next_retry_at) - Date.parse(a.attempted_at)) / 1000)).toEqual([5, 300, 1800, null]);
    expect(results.map((r) => ("retryAt" in r ? r.retryAt !== null : "skipped"))).toEqual([true, true, true, false]);
    // the receiver echoed the signature: the snippet keeps the status text, not the signature
    expect(attempts[0].response_snippet).toBe("status 500 v1,[redacted]");
    const metrics = await (await t.app.fetch("/metrics")).text();
    expect(metrics).toMatch(/webhook_deliveries_total\{outcome="HTTP_ERROR"\} [3-9]/);
    expect(metrics).toMatch(/webhook_deliveries_total\{outcome="SUCCEEDED"\} \d/);
  });

  it("refuses 127.0.0.1 and names resolving to it without WEBHOOK_ALLOW_PRIVATE, and http for LIVE clients", () =>
    strict(async () => {
      for (const url of [
        "http://127.0.0.1:9/hook",
        "http://localhost:9/hook",
        "http://[::1]:9/",
        "http://169.254.169.254/latest/meta-data",
        "http://[::7f00:1]:9/hook",
        "http://[::127.0.0.1]:9/hook",
        "http://[::a9fe:a9fe]/latest/meta-data",
        "http://[::ffff:a9fe:a9fe]/",
        "http://[64:ff9b::7f00:1]:9/",
        "http://[2002:7f00:1::]:9/",
        "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]:9/",
      ]) {
        const res = await t.rest("POST", "/v2/webhooks", { key, body: { url, event_types: ["*"] } });
        expect(res.status, url).toBe(400);
        expect(res.body.errors[0]).toMatchObject({ field: "url" });
      }
      const liveLocal = await t.rest("POST", "/v2/webhooks", { key: live, body: { url: "http://127.0.0.1:9/hook", event_types: ["*"] } });
      expect(liveLocal.status).toBe(400);
      const liveHttp = await t.gql(live, CREATE, { input: { url: "http://93.184.216.34/hook", eventTypes: ["*"] } });
      expect(liveHttp.errors?.[0].extensions).toMatchObject({ code: "VALIDATION_FAILED", fields: [{ field: "url" }] });
      expect(liveHttp.errors?.[0].message).toMatch(/https/);
    }));

  it("checks the address again at delivery: an endpoint now resolving to a private address is BLOCKED, nothing sent", async () => {
    const { webhook_id } = await endpoint();
    receiver.answer(200);
    const result = await strict(() => deliver(webhook_id, event()));
    expect(result).toMatchObject({ attempt: { outcome: "BLOCKED", statusCode: null } });
    expect(receiver.received).toHaveLength(0);
  });

  it("does not follow a redirect: a 3xx is a failed attempt", async () => {
    const { webhook_id } = await endpoint();
    receiver.answer(302, 200);
    const result = await deliver(webhook_id, event());
    expect(result).toMatchObject({ attempt: { outcome: "REDIRECTED", statusCode: 302 } });
    expect(receiver.received.map((r) => r.url)).toEqual(["/hook"]);
  });

  it("connects to the address it checked, not to a second DNS answer, and keeps at most 1 KB of the answer", async () => {
    const settings = t.app.services.webhooks;
    // a name only this resolver knows: the request can reach the receiver only through the pinned address
    settings.resolve = async (host) => (host === "hooks.pinned.test" ? [{ address: "127.0.0.1", family: 4 }] : Promise.reject(new Error("ENOTFOUND")));
    try {
      const res = await t.rest("POST", "/v2/webhooks", {
        key,
        body: { url: receiver.url.replace("127.0.0.1", "hooks.pinned.test").replace(/\/hook$/, "/big"), event_types: ["*"] },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      receiver.answer(200);
      const result = await deliver(res.body.webhook_id, event());
      expect(result).toMatchObject({ attempt: { outcome: "SUCCEEDED" } });
      expect(receiver.received[0].headers.host).toMatch(/^hooks\.pinned\.test:/);
      expect("attempt" in result && result.attempt.responseSnippet).toBe("x".repeat(1024));
      // the name stops resolving: a network failure to retry, not a refusal
      settings.resolve = async () => [];
      expect(await deliver(res.body.webhook_id, event())).toMatchObject({
        attempt: { outcome: "NETWORK_ERROR", responseSnippet: expect.stringContaining("does not resolve") },
      });
    } finally {
      delete settings.resolve;
    }
  });

  it("times out a receiver that does not answer", async () => {
    const { webhook_id } = await endpoint();
    receiver.answer("hang");
    const services = t.app.services;
    const result = await deliverWebhook({ ...services, webhooks: { ...services.webhooks, timeoutMs: 300 } }, webhook_id, event());
    expect(result).toMatchObject({ attempt: { outcome: "TIMEOUT", statusCode: null } });
  });

  it("rotates the secret: the new one is shown once and the old one still verifies during the grace period", async () => {
    const { webhook_id, secret: old } = await endpoint();
    const rotated = await t.rest("POST", `/v2/webhooks/${webhook_id}/rotate-secret`, { key });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(old);
    receiver.answer(200);
    await deliver(webhook_id, event());
    const [got] = receiver.received;
    expect(String(got.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    for (const secret of [old, rotated.body.secret]) expect(new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).toBeTruthy();
    // past the grace period only the new secret signs
    receiver.answer(200);
    await deliverWebhook({ ...t.app.services, now: () => new Date(Date.now() + 25 * 3600 * 1000) }, webhook_id, event());
    expect(String(receiver.received[0].headers["webhook-signature"]).split(" ")).toHaveLength(1);
  });

  it("redelivers an event as a new attempt with the same webhook-id; an unknown event is 404", async () => {
    const { webhook_id } = await endpoint();
    receiver.answer(500, 200);
    const e = event();
    await deliver(webhook_id, e);
    const rest = await t.rest("POST", `/v2/webhooks/${webhook_id}/redeliver`, { key, body: { event_id: e.id } });
    expect(rest.status).toBe(201);
    expect(rest.body).toMatchObject({ event_id: e.id, attempt_number: 2, outcome: "SUCCEEDED", next_retry_at: null });
    expect(receiver.received.map((r) => r.headers["webhook-id"])).toEqual([e.id, e.id]);
    const gql = await t.gql(key, `mutation($input: RedeliverWebhookEventInput!) { redeliverWebhookEvent(input: $input) { attemptNumber outcome } }`, {
      input: { endpointId: webhook_id, eventId: e.id },
    });
    expect(gql.data.redeliverWebhookEvent).toEqual({ attemptNumber: 3, outcome: "SUCCEEDED" });
    const unknown = await t.rest("POST", `/v2/webhooks/${webhook_id}/redeliver`, { key, body: { event_id: "evt_nope" } });
    expect(unknown.status).toBe(404);
  });

  it("updates url, event types and enabled; a disabled endpoint gets nothing", async () => {
    const { webhook_id } = await endpoint(["check.kyc.updated"]);
    const res = await t.rest("PUT", `/v2/webhooks/${webhook_id}`, { key, body: { event_types: ["user.status.updated"], enabled: false } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ event_types: ["user.status.updated"], enabled: false, secret: null });
    expect(await deliver(webhook_id, event("user.status.updated"))).toEqual({ skipped: "endpoint_disabled" });
    const bad = await strict(() => t.rest("PUT", `/v2/webhooks/${webhook_id}`, { key, body: { url: "http://10.0.0.1/" } }));
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe("url");
    const redeliver = await t.rest("POST", `/v2/webhooks/${webhook_id}/redeliver`, { key, body: { event_id: "evt_x" } });
    expect(redeliver.status).toBe(409);
    expect(redeliver.body.code).toBe("WEBHOOK_ENDPOINT_DISABLED");
  });

  it("disables an endpoint whose deliveries have failed for 5 days, and enabling it again clears the reason", async () => {
    const { webhook_id } = await endpoint();
    receiver.answer(500);
    await deliver(webhook_id, event());
    const later = await deliverWebhook({ ...t.app.services, now: () => new Date(Date.now() + 5 * 24 * 3600 * 1000 + 1000) }, webhook_id, event());
    expect(later).toMatchObject({ disabled: true, retryAt: null, attempt: { nextRetryAt: null } });
    const read = await t.rest("GET", `/v2/webhooks/${webhook_id}`, { key });
    expect(read.body).toMatchObject({ enabled: false, disabled_reason: expect.stringContaining("5 days") });
    const enabled = await t.rest("PUT", `/v2/webhooks/${webhook_id}`, { key, body: { enabled: true } });
    expect(enabled.body).toMatchObject({ enabled: true, disabled_reason: null });
  });

  it("answers 404 for another client's endpoint on every route, and deletes its own", async () => {
    const { webhook_id } = await endpoint();
    for (const [method, path, body] of [
      ["GET", `/v2/webhooks/${webhook_id}`],
      ["PUT", `/v2/webhooks/${webhook_id}`, { enabled: false }],
      ["DELETE", `/v2/webhooks/${webhook_id}`],
      ["POST", `/v2/webhooks/${webhook_id}/rotate-secret`],
      ["GET", `/v2/webhooks/${webhook_id}/attempts`],
      ["POST", `/v2/webhooks/${webhook_id}/redeliver`, { event_id: "evt_1" }],
    ] as const) {
      const res = await t.rest(method, path, { key: stranger, body });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    const gql = await t.gql(stranger, `query($id: ID!) { webhookEndpoint(id: $id) { id } }`, { id: webhook_id });
    expect(gql.errors?.[0].extensions.code).toBe("NOT_FOUND");
    const list = await t.rest("GET", "/v2/webhooks", { key: stranger });
    expect(list.body.data).toEqual([]);
    expect((await t.rest("DELETE", `/v2/webhooks/${webhook_id}`, { key })).status).toBe(204);
    expect((await t.rest("GET", `/v2/webhooks/${webhook_id}`, { key })).status).toBe(404);
    expect(await deliver(webhook_id, event())).toEqual({ skipped: "endpoint_deleted" });
  });

  it("asks for the webhooks:manage scope", async () => {
    const { key: readOnly } = await t.createClient("Reader", ["users:read"]);
    expect((await t.rest("GET", "/v2/webhooks", { key: readOnly })).status).toBe(403);
  });
});

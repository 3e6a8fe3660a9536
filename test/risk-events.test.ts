/**
 * Issue 13's acceptance, end to end: a user renamed to a listed person is screened in the background
 * and the check.sanctions_screening.updated event reaches a graphql-ws subscriber, an SSE subscriber
 * and a signed webhook; a clean user gets CLEAR; another client hears nothing of it.
 */
import { createServer, type Server } from "node:http";
import { createClient } from "graphql-ws";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { backends, multiInstance, startTestApp, startTwoInstances, type TestApp } from "./helpers/app.js";

const CHECK_UPDATED = `subscription($id: ID!, $types: [CheckType!]) { checkUpdated(userId: $id, types: $types) { id type status result { score matches } } }`;
const LISTED = { first_name: "Qasem", last_name: "Soleimani", date_of_birth: "1957-03-11", nationality: "IR" };

/** A subscription over SSE: `next()` is the next event's payload. */
async function sse(t: TestApp, key: string, query: string, variables: Record<string, unknown>) {
  const res = await t.app.fetch("/graphql", {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ query, variables }),
  });
  const reader = res.body!.getReader();
  let buffer = "";
  const next = async (): Promise<any> => {
    for (;;) {
      const at = buffer.indexOf("\n\n");
      if (at >= 0) {
        const chunk = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        const data = /^data: (.+)$/m.exec(chunk);
        if (data?.[1].trim()) return JSON.parse(data[1]);
        continue;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error("stream ended");
      buffer += new TextDecoder().decode(value);
    }
  };
  return { next, close: () => reader.cancel() };
}

/** A webhook receiver on 127.0.0.1 that keeps what it was sent. */
async function receiver() {
  const received: { headers: Record<string, string>; body: string }[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      received.push({ headers: req.headers as Record<string, string>, body });
      res.end("ok");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}/hooks`, received, close: () => new Promise((r) => server.close(r)) };
}

async function until<T>(read: () => T | Promise<T>, ok: (v: T) => boolean, what: string, ms = 20_000) {
  for (const end = Date.now() + ms; ; ) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.each(backends)("risk events end to end on %s", (backend) => {
  let t: TestApp;
  let hooks: Awaited<ReturnType<typeof receiver>>;
  let a: { key: string; clientId: string };
  let b: { key: string; clientId: string };
  let secret: string;
  beforeAll(async () => {
    t = await startTestApp(backend, { WEBHOOK_ALLOW_PRIVATE: "1" });
    a = await t.createClient("A");
    b = await t.createClient("B");
    hooks = await receiver();
    const endpoint = await t.rest("POST", "/v2/webhooks", { key: a.key, body: { url: hooks.url, event_types: ["check.sanctions_screening.updated"] } });
    expect(endpoint.status).toBe(201);
    secret = endpoint.body.secret;
  });
  afterAll(async () => {
    await t?.stop();
    await hooks?.close();
  });

  it("a listed name reaches graphql-ws, SSE and a signed webhook with the match; client B hears nothing", async () => {
    const user = (await t.rest("POST", "/v2/users", { key: a.key, body: { first_name: "Reza", last_name: "Karimi", email: "reza@example.com" } })).body;
    const other = (await t.rest("POST", "/v2/users", { key: b.key, body: { first_name: "Bea", last_name: "Other", email: "bea@example.com" } })).body;
    const screened = (userId: string, key: string) =>
      until(
        async () => (await t.rest("GET", `/v2/users/${userId}/checks`, { key })).body.data,
        (runs: any[]) => runs.some((r) => r.type === "SANCTIONS_SCREENING" && r.completed_at),
        "the first screening",
      );
    await screened(user.user_id, a.key); // the screening its creation queued: not the one this test watches
    await screened(other.user_id, b.key);

    const port = await t.app.start(0, "127.0.0.1");
    const ws = createClient({
      url: `ws://127.0.0.1:${port}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${a.key}` },
      retryAttempts: 0,
    });
    const connected = new Promise((resolve) => ws.on("connected", resolve));
    const viaWs = new Promise<any>((resolve, reject) =>
      ws.subscribe(
        { query: CHECK_UPDATED, variables: { id: user.user_id, types: ["SANCTIONS_SCREENING"] } },
        { next: resolve, error: reject, complete: () => {} },
      ),
    );
    const viaSse = await sse(t, a.key, CHECK_UPDATED, { id: user.user_id });
    // B listens to its own user's screenings (done already): it must hear nothing of A's
    const bStream = await sse(t, b.key, CHECK_UPDATED, { id: other.user_id, types: ["SANCTIONS_SCREENING"] });
    let bHeard: unknown = null;
    void bStream.next().then(
      (e) => {
        bHeard = e;
      },
      () => {},
    );
    const sseEvent = viaSse.next();
    await connected; // a loaded machine may take a while to open the socket: the change must come after
    await new Promise((r) => setTimeout(r, 300));

    expect((await t.rest("PUT", `/v2/users/${user.user_id}`, { key: a.key, body: LISTED })).status).toBe(200);

    const fromWs = (await viaWs).data.checkUpdated;
    expect(fromWs).toMatchObject({ type: "SANCTIONS_SCREENING", status: "REJECTED" });
    expect(fromWs.result.matches[0]).toMatchObject({ entryId: "10481", name: "SOLEIMANI, Qasem" });
    // SSE without a type filter hears the KYC and monitoring runs too: find the screening
    let fromSse = (await sseEvent).data.checkUpdated;
    while (fromSse.type !== "SANCTIONS_SCREENING") fromSse = (await viaSse.next()).data.checkUpdated;
    expect(fromSse).toEqual(fromWs);

    const hook = (await until(() => hooks.received.find((h) => JSON.parse(h.body).data.check?.check_id === fromWs.id), Boolean, "the webhook"))!;
    const verified = new Webhook(secret).verify(hook.body, hook.headers) as any; // throws on a bad signature
    expect(verified).toMatchObject({
      type: "check.sanctions_screening.updated",
      data: { user_id: user.user_id, check: { status: "REJECTED" }, user: { status: "PENDING", risk_level: "HIGH" } },
    });
    expect(hook.headers["webhook-id"]).toBe(verified.id);

    await new Promise((r) => setTimeout(r, 300));
    expect(bHeard).toBeNull();
    expect(hooks.received.every((h) => JSON.parse(h.body).data.user_id !== other.user_id)).toBe(true);
    await ws.dispose();
    await viaSse.close();
    await bStream.close();
  });

  it("a clean name comes back CLEAR", async () => {
    const user = (
      await t.rest("POST", "/v2/users", {
        key: a.key,
        body: { first_name: "John", last_name: "Smith", date_of_birth: "1980-01-01", email: "john@example.com", nationality: "GB" },
      })
    ).body;
    const run = await until(
      async () => (await t.rest("GET", `/v2/users/${user.user_id}/checks`, { key: a.key })).body.data.find((r: any) => r.type === "SANCTIONS_SCREENING"),
      (r: any) => r?.completed_at,
      "the screening",
    );
    expect(run).toMatchObject({ status: "CLEAR", result: { matches: [] } });
    const hook = (await until(() => hooks.received.find((h) => JSON.parse(h.body).data.check?.check_id === run.check_id), Boolean, "the webhook"))!;
    expect(JSON.parse(hook.body).data.check.status).toBe("CLEAR");
  });
});

describe.runIf(multiInstance)("check events across instances (Redis)", () => {
  let pair: Awaited<ReturnType<typeof startTwoInstances>>;
  beforeAll(async () => {
    pair = await startTwoInstances();
  }, 90_000);
  afterAll(() => pair?.stop());

  it("a checkUpdated subscriber on instance 2 hears a run completed from a change made on instance 1", async () => {
    const { a, b } = pair;
    const { key } = await a.createClient("Pair");
    const user = (await a.rest("POST", "/v2/users", { key, body: { first_name: "Lin", last_name: "Tao", email: "lin@example.com" } })).body;
    await a.checksSettled();
    const stream = await sse(b, key, CHECK_UPDATED, { id: user.user_id, types: ["SANCTIONS_SCREENING"] });
    const event = stream.next();
    await new Promise((r) => setTimeout(r, 300));
    await a.rest("PUT", `/v2/users/${user.user_id}`, { key, body: LISTED });
    expect((await event).data.checkUpdated).toMatchObject({ type: "SANCTIONS_SCREENING", status: "REJECTED" });
    await stream.close();
  });
});

/**
 * graphql-ws and SSE apply every rule HTTP applies: the body limit (as a frame limit), caps on open
 * subscriptions, revocation and rotation of a key on what it already opened, the rate limit,
 * mutations only where idempotency applies, introspection and armour.
 */
import { createClient, type Client } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { ADMIN_KEY, multiInstance, startTestApp, startTwoInstances, type TestApp } from "./helpers/app.js";
import { within } from "./helpers/eventually.js";

const SUBSCRIPTION = "subscription($id: ID!) { userStatusChanged(userId: $id) { id status } }";
type Outcome = { errors?: { message: string; extensions?: Record<string, any> }[]; data?: any; closed?: number };

const ports = new WeakMap<TestApp, Promise<number>>();

/** A real server for `t` (one per app), and graphql-ws clients on it that report what became of each operation. */
async function served(t: TestApp) {
  if (!ports.has(t)) ports.set(t, t.app.start(0, "127.0.0.1"));
  const port = await ports.get(t)!;
  const clients: Client[] = [];
  const connect = (key: string, closes: number[] = []) => {
    const client = createClient({
      url: `ws://127.0.0.1:${port}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${key}` },
      retryAttempts: 0,
      on: { closed: (event: any) => closes.push(event.code) },
    });
    clients.push(client);
    return client;
  };
  /** The first thing an operation answers: its first result, its `error` message, or the socket's close. */
  const first = (client: Client, query: string, variables: Record<string, unknown> = {}) => {
    let stop = () => {};
    const outcome = new Promise<Outcome>((resolve) => {
      stop = client.subscribe(
        { query, variables },
        {
          next: (result) => resolve(result as Outcome),
          error: (error: any) => resolve(Array.isArray(error) ? { errors: error } : { closed: error?.code }),
          complete: () => resolve({}),
        },
      );
    });
    return { outcome, stop: () => stop() };
  };
  const sse = async (key: string, body: Record<string, unknown>, signal?: AbortSignal) =>
    fetch(`http://127.0.0.1:${port}/graphql`, {
      method: "POST",
      signal,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify(body),
    });
  const close = () => Promise.all(clients.map((c) => c.dispose()));
  return { port, connect, first, sse, close };
}

async function newClient(t: TestApp, name: string) {
  const created = await t.rest("POST", "/admin/clients", { key: ADMIN_KEY, body: { name, mode: "SANDBOX" } });
  const { client_id: clientId, api_key: key, key_id: keyId } = created.body as Record<string, string>;
  const user = (
    await t.rest("POST", "/v2/users", { key, body: { first_name: "Live", last_name: "Wire", email: `${name.replace(/\W/g, "").toLowerCase()}@example.com` } })
  ).body;
  return { clientId, key, keyId, userId: user.user_id as string };
}

/** Everything an SSE response sends until it ends, or until `ms` pass (then `ended` is false). */
async function readStream(res: Response, ms: number) {
  const reader = res.body!.getReader();
  let text = "";
  const until = Date.now() + ms;
  for (;;) {
    const left = until - Date.now();
    const chunk = left > 0 ? await Promise.race([reader.read(), new Promise<null>((r) => setTimeout(() => r(null), left))]) : null;
    if (!chunk) {
      void reader.cancel().catch(() => {});
      return { text, ended: false };
    }
    if (chunk.done) return { text, ended: true };
    text += new TextDecoder().decode(chunk.value);
  }
}

// one app for what needs no setting of its own: the caps per key (50) and per socket (20) are the defaults
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp("pglite", { MAX_BODY_BYTES: "65536", MAX_SUBSCRIPTIONS: "70" });
});
afterAll(() => t?.stop());

describe("graphql-ws frames", () => {
  it("closes with 1009 a frame over MAX_BODY_BYTES, sent before any key, and keeps serving", async () => {
    const { port, connect, first, close } = await served(t);
    const socket = new WebSocket(`ws://127.0.0.1:${port}/graphql`, "graphql-transport-ws");
    await new Promise((resolve, reject) => {
      socket.once("open", resolve);
      socket.once("error", reject);
    });
    const closed = new Promise<number>((resolve) => socket.once("close", resolve));
    socket.send(JSON.stringify({ type: "connection_init", payload: { pad: "x".repeat(70_000) } }));
    expect(await closed).toBe(1009);
    expect((await t.rest("GET", "/healthz")).status).toBe(200);
    const { key } = await newClient(t, "Frames");
    expect((await first(connect(key), "{ __typename }").outcome).data).toEqual({ __typename: "Query" });
    await close();
  });
});

describe("subscription caps", () => {
  it("refuses a crowd past the per-socket and per-key caps with RATE_LIMITED, and a freed slot is taken again", async () => {
    const { connect, first, sse, close } = await served(t);
    const { key, keyId, userId } = await newClient(t, "Crowd");
    const sockets = [connect(key), connect(key), connect(key)];
    const operations = sockets.flatMap((socket) => Array.from({ length: 30 }, () => first(socket, SUBSCRIPTION, { id: userId })));
    const refused: Outcome[] = [];
    const answered = new Set<number>();
    operations.forEach(
      (op, n) =>
        void op.outcome.then((o) => {
          refused.push(o);
          answered.add(n);
        }),
    );
    // 3 × 30 asked: each socket holds at most 20, the key at most 50
    await within(
      "refusals and held slots",
      () => refused.length + t.app.live.held(keyId),
      (n) => n === 90,
    );
    expect(t.app.live.held(keyId)).toBe(50);
    expect(refused).toHaveLength(40);
    for (const outcome of refused) {
      expect(outcome.errors?.[0].extensions).toMatchObject({ code: "RATE_LIMITED", retryAfter: expect.any(Number) });
      expect(outcome.errors?.[0].message).toMatch(/maximum/);
    }
    // the same key over SSE is counted in the same budget
    const overSse = await sse(key, { query: SUBSCRIPTION, variables: { id: userId } });
    expect(overSse.status).toBe(429);
    expect(Number(overSse.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await readStream(overSse, 2000)).text).toContain('"code":"RATE_LIMITED"');
    // a stopped subscription gives back its slot
    operations.find((_, n) => !answered.has(n))!.stop();
    await within(
      "a completed subscription released",
      () => t.app.live.held(keyId),
      (n) => n === 49,
    );
    const again = first(sockets[0], SUBSCRIPTION, { id: userId });
    await within(
      "the freed slot taken",
      () => t.app.live.held(keyId),
      (n) => n === 50,
    );
    // a closed socket gives back all it held
    await sockets[1].dispose();
    await within(
      "a closed socket's slots released",
      () => t.app.live.held(keyId),
      (n) => n < 50,
    );
    again.stop();
    await close();
    await within(
      "every slot released",
      () => t.app.live.held(),
      (n) => n === 0,
    );
  });

  it("gives back the slot of an HTTP subscription answered 406 (an Accept it cannot stream to), so such requests cannot exhaust the caps", async () => {
    const { port } = await served(t);
    const { key, keyId, userId } = await newClient(t, "Unstreamable");
    const query = `subscription { userStatusChanged(userId: "${userId}") { id } }`;
    // yoga streams a subscription only as SSE: multipart or JSON alone is refused, once the subscription has opened
    for (const accept of ["multipart/mixed", "application/json"]) {
      for (const method of ["GET", "POST"]) {
        const res = await fetch(`http://127.0.0.1:${port}/graphql${method === "GET" ? `?query=${encodeURIComponent(query)}` : ""}`, {
          method,
          headers: { authorization: `Bearer ${key}`, accept, ...(method === "POST" ? { "content-type": "application/json" } : {}) },
          ...(method === "POST" ? { body: JSON.stringify({ query }) } : {}),
        });
        expect(res.status, `${method} ${accept}`).toBe(406);
        await res.arrayBuffer();
      }
    }
    await within(
      "every refused subscription's slot released",
      () => t.app.live.held(keyId),
      (n) => n === 0,
      2000,
    );
  });

  it("refuses past the process-wide cap with UNAVAILABLE, 503 and Retry-After over SSE", async () => {
    const { connect, first, sse, close } = await served(t);
    const crowd = await Promise.all([1, 2, 3].map((n) => newClient(t, `Wide ${n}`)));
    // 3 keys × 20 on one socket each, then 10 more: the 70 the process holds
    const held = crowd.flatMap(({ key, userId }) => {
      const s = connect(key);
      return Array.from({ length: 20 }, () => first(s, SUBSCRIPTION, { id: userId }));
    });
    const extra = Array.from({ length: 10 }, () => first(connect(crowd[0].key), SUBSCRIPTION, { id: crowd[0].userId }));
    await within(
      "the process full",
      () => t.app.live.held(),
      (n) => n === 70,
    );
    const { key, userId } = await newClient(t, "Latecomer");
    const refused = await first(connect(key), SUBSCRIPTION, { id: userId }).outcome;
    expect(refused.errors?.[0].extensions).toMatchObject({ code: "UNAVAILABLE", retryAfter: expect.any(Number) });
    const overSse = await sse(key, { query: SUBSCRIPTION, variables: { id: userId } });
    expect(overSse.status).toBe(503);
    expect(overSse.headers.get("retry-after")).toMatch(/^\d+$/);
    expect((await readStream(overSse, 2000)).text).toContain('"code":"UNAVAILABLE"');
    // an SSE stream that opens holds a slot, and gives it back when its caller goes
    extra[0].stop();
    await within(
      "one slot free",
      () => t.app.live.held(),
      (n) => n === 69,
    );
    const leaving = new AbortController();
    const open = await sse(key, { query: SUBSCRIPTION, variables: { id: userId } }, leaving.signal);
    expect(open.status).toBe(200);
    await within(
      "the SSE stream holds a slot",
      () => t.app.live.held(),
      (n) => n === 70,
    );
    leaving.abort();
    await within(
      "the SSE stream's slot released",
      () => t.app.live.held(),
      (n) => n === 69,
    );
    for (const op of [...held, ...extra]) op.stop();
    await close();
    await within(
      "every slot released",
      () => t.app.live.held(),
      (n) => n === 0,
    );
  });
});

describe("revocation and rotation on open sockets and streams", () => {
  for (const change of ["revoked", "rotated"] as const) {
    it(`closes a graphql-ws socket (4401) and ends an SSE stream within 2 s of the key being ${change}`, async () => {
      const { connect, first, sse, close } = await served(t);
      const { clientId, key, keyId, userId } = await newClient(t, `Changed ${change}`);
      const bystander = await newClient(t, `Bystander ${change}`);
      const closes: number[] = [];
      const ws = first(connect(key, closes), SUBSCRIPTION, { id: userId });
      const other = first(connect(bystander.key), SUBSCRIPTION, { id: bystander.userId });
      const stream = await sse(key, { query: SUBSCRIPTION, variables: { id: userId } });
      expect(stream.status).toBe(200);
      await within(
        "both subscriptions open",
        () => t.app.live.held(),
        (n) => n === 3,
      );
      const answer =
        change === "revoked"
          ? await t.rest("DELETE", `/admin/keys/${keyId}`, { key: ADMIN_KEY })
          : await t.rest("POST", `/admin/clients/${clientId}/keys/rotate`, { key: ADMIN_KEY });
      expect(answer.status).toBeLessThan(300);
      const started = Date.now();
      const gaveUp = new Promise<Outcome>((resolve) => setTimeout(() => resolve({}), 2000));
      const [wsOutcome, sseOutcome] = await Promise.all([Promise.race([ws.outcome, gaveUp]), readStream(stream, 2000)]);
      expect(Date.now() - started).toBeLessThan(2000);
      expect(wsOutcome.closed).toBe(4401);
      expect(closes).toEqual([4401]);
      expect(sseOutcome.ended).toBe(true);
      expect(sseOutcome.text).toContain('"code":"UNAUTHENTICATED"');
      expect(sseOutcome.text).toContain("event: complete");
      // another client's socket is left alone
      await within(
        "only the bystander's slot held",
        () => t.app.live.held(),
        (n) => n === 1,
      );
      other.stop();
      await close();
    });
  }
});

describe.runIf(multiInstance)("revocation across instances (Redis)", () => {
  let a: TestApp;
  let b: TestApp;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ a, b, stop } = await startTwoInstances());
  });
  afterAll(() => stop?.());

  it("a key revoked on one instance closes its socket and stream on another within 2 s", async () => {
    const { connect, first, sse, close } = await served(b);
    const { key, keyId, userId } = await newClient(a, "Elsewhere");
    const ws = first(connect(key), SUBSCRIPTION, { id: userId });
    const stream = await sse(key, { query: SUBSCRIPTION, variables: { id: userId } });
    await within(
      "both open on the other instance",
      () => b.app.live.held(),
      (n) => n === 2,
    );
    expect((await a.rest("DELETE", `/admin/keys/${keyId}`, { key: ADMIN_KEY })).status).toBe(200);
    const gaveUp = new Promise<Outcome>((resolve) => setTimeout(() => resolve({}), 2000));
    const [wsOutcome, sseOutcome] = await Promise.all([Promise.race([ws.outcome, gaveUp]), readStream(stream, 2000)]);
    expect(wsOutcome.closed).toBe(4401);
    expect(sseOutcome.ended).toBe(true);
    await close();
  });
});

describe("graphql-ws and the rate limit, mutations", () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await startTestApp("pglite", { RATE_LIMIT_PER_MINUTE: "3" });
  });
  afterAll(() => limited?.stop());

  it("counts every operation against the key's rate limit, shared with HTTP, and refuses past it with RATE_LIMITED", async () => {
    const { connect, first, close } = await served(limited);
    const created = await limited.rest("POST", "/admin/clients", { key: ADMIN_KEY, body: { name: "Counted", mode: "SANDBOX" } });
    const key = created.body.api_key as string;
    const socket = connect(key);
    // a new minute may start on the way: the limit of 3 is passed within 8 operations whatever the clock
    let outcome: Outcome = {};
    for (let n = 0; n < 8 && !outcome.errors; n++) outcome = await first(socket, "{ __typename }").outcome;
    expect(outcome.errors?.[0].extensions).toMatchObject({ code: "RATE_LIMITED", retryAfter: expect.any(Number) });
    expect(outcome.errors?.[0].extensions?.retryAfter).toBeGreaterThan(0);
    // the same budget as HTTP's
    expect((await limited.gql(key, "{ __typename }")).status).toBe(429);
    await close();
  });

  it("refuses a mutation with METHOD_NOT_ALLOWED, pointing to HTTP POST", async () => {
    const { connect, first, close } = await served(limited);
    const created = await limited.rest("POST", "/admin/clients", { key: ADMIN_KEY, body: { name: "Mutator", mode: "SANDBOX" } });
    const input = { firstName: "A", lastName: "B", email: "ab@example.com" };
    const outcome = await first(connect(created.body.api_key), "mutation($input: CreateUserInput!) { createUser(input: $input) { id } }", { input }).outcome;
    expect(outcome.errors?.[0].extensions?.code).toBe("METHOD_NOT_ALLOWED");
    expect(outcome.errors?.[0].message).toMatch(/HTTP POST/);
    expect(await limited.db.user.count({ where: { email: "ab@example.com" } })).toBe(0);
    await close();
  });
});

const INTROSPECTION = "{ __schema { queryType { name } } }";
// past armour's depth of 12 (introspection fields are not counted: this is a real path)
const TOO_DEEP = `{ users(first: 1) { edges { node { ${"documents { user { ".repeat(4)}documents { id }${" } }".repeat(4)} } } } }`;

describe("introspection and armour over graphql-ws", () => {
  let production: TestApp;
  beforeAll(async () => {
    production = await startTestApp("pglite", { GRAPHIQL: "0" });
  });
  afterAll(() => production?.stop());

  it("refuses introspection over graphql-ws exactly as over HTTP while GraphiQL is off, and allows it while on", async () => {
    const off = await served(production);
    const key = (await production.createClient("Prod")).key;
    const overHttp = await production.gql(key, INTROSPECTION);
    expect(overHttp.errors?.[0].message).toMatch(/introspection has been disabled/);
    const overWs = await off.first(off.connect(key), INTROSPECTION).outcome;
    expect(overWs.errors?.map((e) => [e.message, e.extensions?.code])).toEqual(overHttp.errors?.map((e) => [e.message, e.extensions.code]));
    await off.close();
    const on = await served(t);
    const devKey = (await t.createClient("Dev")).key;
    expect((await on.first(on.connect(devKey), INTROSPECTION).outcome).data).toEqual({ __schema: { queryType: { name: "Query" } } });
    await on.close();
  });

  it("refuses a query past the depth limit over graphql-ws as over HTTP", async () => {
    const { connect, first, close } = await served(t);
    const key = (await t.createClient("Deep")).key;
    const overHttp = await t.gql(key, TOO_DEEP);
    expect(overHttp.errors?.[0].message).toMatch(/depth/i);
    const overWs = await first(connect(key), TOO_DEEP).outcome;
    expect(overWs.errors?.map((e) => [e.message, e.extensions?.code])).toEqual(overHttp.errors?.map((e) => [e.message, e.extensions.code]));
    await close();
  });
});

describe("graphql-ws and refused keys", () => {
  let guarded: TestApp;
  beforeAll(async () => {
    guarded = await startTestApp("pglite", { UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: "2" });
  });
  afterAll(() => guarded?.stop());

  it("counts a refused key against its address as HTTP does: past the budget the socket closes 4429, and a good key still connects", async () => {
    const { connect, first, close } = await served(guarded);
    const codes: number[] = [];
    for (let i = 0; i < 3; i++) codes.push((await first(connect("ogk_sandbox_not-a-key"), "{ __typename }").outcome).closed!);
    expect(codes).toEqual([4401, 4401, 4429]);
    const key = (await guarded.createClient("Good")).key;
    expect((await first(connect(key), "{ __typename }").outcome).data).toEqual({ __typename: "Query" });
    await close();
  });
});

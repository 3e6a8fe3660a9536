/**
 * The HTTP edge under hostile requests, over a real socket where it matters: bodies counted as they
 * arrive, authentication of GraphiQL's path, CSRF, security headers, CORS, idempotency of queries
 * and its purge, and the rate limits of the operator key and of refused keys.
 */
import { once } from "node:events";
import { request, type IncomingHttpHeaders } from "node:http";
import { connect } from "node:net";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY as ADMIN, startTestApp, type TestApp } from "./helpers/app.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const MiB = 1024 * 1024;

type Answer = { status: number; headers: IncomingHttpHeaders; body: any; sent: number };

/**
 * A POST whose body (`total` bytes after `prefix`) is streamed in 64 KiB chunks with no length
 * (Transfer-Encoding: chunked), until the server answers; `peak` is the most this process's
 * memory (heap and buffers) grew meanwhile, the server's included (it runs in this process).
 */
async function streamPost(port: number, path: string, headers: Record<string, string>, total: number, prefix = "") {
  gc();
  const base = memory();
  let peak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, memory() - base);
  }, 5);
  const req = request({ host: "127.0.0.1", port, path, method: "POST", headers });
  let answered = false;
  const answer = new Promise<Answer>((resolve, reject) => {
    req.on("response", (res) => {
      answered = true;
      let text = "";
      res.on("data", (c) => {
        text += c;
      });
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : null, sent }));
      res.on("error", reject);
    });
    // once answered, the server closes the connection under the unsent rest: EPIPE or a reset is expected then
    req.on("error", (error) => {
      if (!answered) reject(error);
    });
  });
  let sent = 0;
  const chunk = Buffer.alloc(64 * 1024, "x");
  if (prefix) {
    req.write(prefix);
    sent += prefix.length;
  }
  while (!answered && !req.destroyed && sent < total) {
    sent += chunk.length;
    if (!req.write(chunk)) await Promise.race([once(req, "drain"), once(req, "close"), answer.catch(() => {})]);
  }
  if (!answered && !req.destroyed) req.end();
  const result = await answer;
  req.destroy();
  clearInterval(sampler);
  peak = Math.max(peak, memory() - base);
  return { ...result, peak };
}

const memory = () => {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};

async function get(port: number, path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe("bodies are counted as they arrive, on every path, before any plugin reads them", () => {
  let t: TestApp;
  let port: number;
  let key: string;
  let noScopes: string;
  beforeAll(async () => {
    t = await startTestApp("pglite", { GRAPHIQL: "1", REDIS_URL: "" });
    port = await t.app.start(0, "127.0.0.1");
    key = (await t.createClient("Bodies")).key;
    noScopes = (await t.createClient("No scopes", [])).key;
  });
  afterAll(() => t?.stop());

  const cases: [string, string, () => Record<string, string>, string][] = [
    [
      "/graphql without a key, while GraphiQL is on (the introspection check reads a few KiB of it)",
      "/graphql",
      () => ({ "content-type": "application/json" }),
      '{"query":"{ __typename }","pad":"',
    ],
    [
      "a REST POST with an Idempotency-Key, by a key with no scopes (the idempotency hash reads it)",
      "/v2/users",
      () => ({ "content-type": "application/json", authorization: `Bearer ${noScopes}`, "idempotency-key": "k-1" }),
      '{"first_name":"',
    ],
    ["a REST POST (the route reads it)", "/v2/users", () => ({ "content-type": "application/json", authorization: `Bearer ${key}` }), '{"first_name":"'],
    [
      "a GraphQL POST with a key (yoga's parser reads it)",
      "/graphql",
      () => ({ "content-type": "application/json", authorization: `Bearer ${key}` }),
      '{"query":"{ __typename }","pad":"',
    ],
  ];

  it.each(cases)("answers 413 to 20 MiB sent chunked to %s, without holding it, and stays up", async (_, path, headers, prefix) => {
    const started = Date.now();
    const res = await streamPost(port, path, headers(), 20 * MiB, prefix);
    const keyless = !headers().authorization;
    // without a key, only a few KiB are read (GraphiQL's schema fetch): more is refused for want of one
    expect(res.status).toBe(keyless ? 401 : 413);
    expect(res.body.code ?? res.body.errors?.[0]?.extensions?.code).toBe(keyless ? "UNAUTHENTICATED" : "PAYLOAD_TOO_LARGE");
    if (!keyless) expect(res.headers.connection).toBe("close");
    expect(res.sent).toBeLessThan(20 * MiB); // answered before the body was all sent
    expect(res.peak).toBeLessThan(10 * MiB);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect((await get(port, "/healthz")).status).toBe(200);
  });

  it("answers 413 to a chunked GraphQL multipart body past the upload allowance, and stays up", async () => {
    const boundary = "b0undary";
    const res = await streamPost(
      port,
      "/graphql",
      { "content-type": `multipart/form-data; boundary=${boundary}`, authorization: `Bearer ${key}`, "x-graphql-yoga-csrf": "1" },
      40 * MiB,
      `--${boundary}\r\ncontent-disposition: form-data; name="operations"\r\n\r\n{"query":"{ __typename }"}\r\n--${boundary}\r\ncontent-disposition: form-data; name="0"; filename="a.pdf"\r\ncontent-type: application/pdf\r\n\r\n`,
    );
    expect(res.status).toBe(413);
    expect(res.body.errors[0].extensions.code).toBe("PAYLOAD_TOO_LARGE");
    expect(res.headers.connection).toBe("close");
    expect((await get(port, "/healthz")).status).toBe(200);
  });

  it("still reads a chunked body within the limit", async () => {
    const res = await streamPost(
      port,
      "/graphql",
      { "content-type": "application/json", authorization: `Bearer ${key}` },
      0,
      JSON.stringify({ query: "{ users(first: 1) { totalCount } }" }),
    );
    expect(res.status).toBe(200);
    expect(res.body.data.users.totalCount).toEqual(expect.any(Number));
  });
});

describe("GET /graphql with Accept: text/html", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp("pglite", { GRAPHIQL: "0", REDIS_URL: "" });
  });
  afterAll(() => t?.stop());

  it("needs a key when GraphiQL is off (production): no page answers it, so it is an API call", async () => {
    const res = await t.app.fetch("/graphql?query={users{totalCount}}", { headers: { accept: "text/html" } });
    expect(res.status).toBe(401);
    expect((await res.json()).errors[0].extensions.code).toBe("UNAUTHENTICATED");
  });
});

describe("what /graphql reads", () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp("pglite", { REDIS_URL: "" });
    key = (await t.createClient("Forms")).key;
  });
  afterAll(() => t?.stop());
  const basic = () => `Basic ${Buffer.from(`${key}:`).toString("base64")}`;
  const post = (body: string | FormData, headers: Record<string, string>) =>
    t.app.fetch("/graphql", { method: "POST", headers: { authorization: basic(), ...headers }, body });

  it("answers a text/plain body 415 with a GraphQL error, not an empty body", async () => {
    const res = await post(JSON.stringify({ query: "{ __typename }" }), { "content-type": "text/plain" });
    expect(res.status).toBe(415);
    expect((await res.json()).errors[0].extensions.code).toBe("UNSUPPORTED_MEDIA_TYPE");
  });

  it("refuses a form or multipart POST (no CORS preflight: a cross-site page could send it with the browser's Basic login) without the CSRF header, and runs nothing", async () => {
    const email = `csrf-${Date.now()}@example.com`;
    const mutation = `mutation { createUser(input: { firstName: "C", lastName: "S", email: "${email}" }) { id } }`;
    const form = new URLSearchParams({ query: mutation }).toString();
    const refused = await post(form, { "content-type": "application/x-www-form-urlencoded" });
    expect(refused.status).toBe(403);
    expect((await refused.json()).errors[0].extensions.code).toBe("PREFLIGHT_REQUIRED");
    const multipart = new FormData();
    multipart.set("operations", JSON.stringify({ query: mutation }));
    const refusedMultipart = await post(multipart, {});
    expect(refusedMultipart.status).toBe(403);
    expect(await t.db.user.count({ where: { email } })).toBe(0);

    const allowed = await post(new URLSearchParams({ query: "{ users(first: 1) { totalCount } }" }).toString(), {
      "content-type": "application/x-www-form-urlencoded",
      "x-graphql-yoga-csrf": "1",
    });
    expect(allowed.status).toBe(200);
    expect((await allowed.json()).data.users.totalCount).toEqual(expect.any(Number));
    // JSON needs a preflight already: no header asked
    expect((await post(JSON.stringify({ query: "{ __typename }" }), { "content-type": "application/json" })).status).toBe(200);
  });
});

describe("security headers, on yoga's answers and the lanes' alike", () => {
  let t: TestApp;
  let port: number;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp("pglite", { GRAPHIQL: "1", TRUST_PROXY: "1", REDIS_URL: "" });
    port = await t.app.start(0, "127.0.0.1");
    key = (await t.createClient("Headers")).key;
  });
  afterAll(() => t?.stop());
  const auth = () => ({ authorization: `Bearer ${key}` });

  const expectApiHeaders = (headers: Headers, what: string) => {
    expect(headers.get("x-content-type-options"), what).toBe("nosniff");
    expect(headers.get("x-frame-options"), what).toBe("DENY");
    expect(headers.get("referrer-policy"), what).toBe("no-referrer");
    expect(headers.get("content-security-policy"), what).toBe("default-src 'none'; frame-ancestors 'none'");
  };

  it("keeps every API answer out of caches and frames: yoga's (REST, GraphQL, a refusal) and the lanes'", async () => {
    const lanes = async () =>
      ((await t.app.metrics.registry.getSingleMetric("http_lane_requests_total")?.get())?.values ?? []).reduce((n, v) => n + v.value, 0);
    const before = await lanes();
    const created = await t.app.fetch("/v2/users", {
      method: "POST",
      headers: { ...auth(), "content-type": "application/json" },
      body: JSON.stringify({ first_name: "H", last_name: "S", email: `h-${Date.now()}@example.com` }),
    });
    const answers: [string, Response][] = [
      ["yoga REST", created],
      [
        "yoga GraphQL",
        await t.app.fetch("/graphql", {
          method: "POST",
          headers: { ...auth(), "content-type": "application/json" },
          body: JSON.stringify({ query: "{ users(first: 1) { totalCount } }" }),
        }),
      ],
      ["yoga 401", await t.app.fetch("/v2/users")],
      ["REST lane", await fetch(`http://127.0.0.1:${port}/v2/users`, { headers: auth() })],
      [
        "GraphQL lane",
        await fetch(`http://127.0.0.1:${port}/graphql`, {
          method: "POST",
          headers: { ...auth(), "content-type": "application/json" },
          body: JSON.stringify({ query: "{ users(first: 1) { totalCount } }" }),
        }),
      ],
    ];
    expect((await lanes()) - before).toBe(2); // the last two were the lanes'
    for (const [what, res] of answers) {
      expect(res.status, what).toBeLessThan(500);
      expectApiHeaders(res.headers, what);
      expect(res.headers.get("cache-control"), what).toBe("no-store");
      expect(res.headers.get("strict-transport-security"), what).toBeNull(); // plain HTTP, no proxy's word
    }
    // an answer that may be cached says so itself: the shared lookups
    const lookup = await fetch(`http://127.0.0.1:${port}/payouts/remittances/utilities/currencies?search=peso`, { headers: auth() });
    expect(lookup.headers.get("cache-control")).not.toBe("no-store");
    expectApiHeaders(lookup.headers, "lookup");
  });

  it("sends HSTS when a trusted proxy says the request came over TLS, on yoga and the lanes", async () => {
    for (const path of ["/v2/users", "/v2/nowhere"]) {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { ...auth(), "x-forwarded-proto": "https", "x-forwarded-for": "203.0.113.9" } });
      expect(res.headers.get("strict-transport-security"), path).toBe("max-age=31536000");
    }
  });

  it("gives GraphiQL and /docs a policy that allows what they load, and nothing inline but GraphiQL's own scripts", async () => {
    const page = await t.app.fetch("/graphql", { headers: { accept: "text/html" } });
    const html = await page.text();
    const policy = page.headers.get("content-security-policy")!;
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
    expect(scripts.length).toBeGreaterThan(0);
    const { createHash } = await import("node:crypto");
    for (const script of scripts) expect(policy).toContain(`'sha256-${createHash("sha256").update(script).digest("base64")}'`);
    expect(policy).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    expect(policy).toMatch(/worker-src 'self' blob:/);
    expect(policy).toMatch(/frame-ancestors 'none'/);
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    const docs = await t.app.fetch("/docs");
    expect(docs.headers.get("content-security-policy")).toMatch(/^default-src 'self'; script-src 'self';/);
    expect(docs.headers.get("cache-control")).toBe("public, max-age=3600");
    expect(await docs.text()).not.toMatch(/<script>[^<]/); // its scripts are files, so none inline
  });
});

describe("CORS", () => {
  const preflight = (t: TestApp, origin: string) =>
    t.app.fetch("/graphql", {
      method: "OPTIONS",
      headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "authorization,content-type" },
    });

  it("answers only the origins CORS_ORIGINS names, never null, and never with credentials", async () => {
    const t = await startTestApp("pglite", { CORS_ORIGINS: "https://app.example.com,http://localhost:3000", REDIS_URL: "" });
    try {
      for (const origin of ["https://app.example.com", "http://localhost:3000"]) {
        const res = await preflight(t, origin);
        expect(res.headers.get("access-control-allow-origin"), origin).toBe(origin);
        expect(res.headers.get("access-control-allow-credentials")).toBeNull();
      }
      for (const origin of ["https://evil.example", "null", "https://app.example.com.evil.example"])
        expect((await preflight(t, origin)).headers.get("access-control-allow-origin"), origin).toBeNull();
    } finally {
      await t.stop();
    }
  });

  it("answers any origin but null in development, and none in production unless named", async () => {
    const dev = await startTestApp("pglite", { REDIS_URL: "" });
    try {
      expect((await preflight(dev, "https://anything.example")).headers.get("access-control-allow-origin")).toBe("https://anything.example");
      expect((await preflight(dev, "null")).headers.get("access-control-allow-origin")).toBeNull();
    } finally {
      await dev.stop();
    }
    const production = await startTestApp("pglite", { NODE_ENV: "production", REDIS_URL: "" });
    try {
      expect((await preflight(production, "https://anything.example")).headers.get("access-control-allow-origin")).toBeNull();
    } finally {
      await production.stop();
    }
  });
});

/** A fixed one-minute window must not turn over in the middle of a test that counts to its limit. */
async function freshWindow() {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 15_000) await new Promise((r) => setTimeout(r, left + 50));
}

describe("rate limits of the operator key and of refused keys, on yoga and the lanes", () => {
  let t: TestApp;
  let port: number;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp("pglite", { OPERATOR_RATE_LIMIT_PER_MINUTE: "4", UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: "3", TRUST_PROXY: "1", REDIS_URL: "" });
    port = await t.app.start(0, "127.0.0.1");
    key = (await t.createClient("Limits")).key; // the operator's first request
  });
  afterAll(() => t?.stop());
  const send = (path: string, headers: Record<string, string>, method = "GET", body?: string) =>
    fetch(`http://127.0.0.1:${port}${path}`, { method, headers: { "content-type": "application/json", ...headers }, body });

  it("counts the operator key in a budget of its own, whichever way its requests come", async () => {
    await freshWindow();
    const before = await t.app.fetch("/payouts/remittances/utilities/currencies", { headers: { authorization: `Bearer ${ADMIN}` } });
    const remaining = Number(before.headers.get("ratelimit-remaining"));
    expect(before.headers.get("ratelimit-limit")).toBe("4");
    const statuses: number[] = [];
    for (let i = 0; i < remaining; i++) statuses.push((await send("/payouts/remittances/utilities/currencies", { authorization: `Bearer ${ADMIN}` })).status); // the GET lane
    expect(statuses.every((s) => s === 200)).toBe(true);
    const over = await t.app.fetch("/admin/clients", {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "One too many", mode: "SANDBOX" }),
    });
    expect(over.status).toBe(429);
    expect(over.headers.get("retry-after")).toMatch(/^\d+$/);
    expect((await over.json()).code).toBe("RATE_LIMITED");
    // a tenant's key has its own budget
    expect((await send("/v2/users", { authorization: `Bearer ${key}` })).status).toBe(200);
  });

  it("turns refused keys from one address into 429 past its budget (lane GET, yoga POST and GraphQL alike), without locking out a valid key", async () => {
    await freshWindow();
    const from = (address: string) => ({ "x-forwarded-for": address });
    const attempts = [
      await send("/v2/users", from("198.51.100.7")), // no key, on the GET lane
      await send("/v2/users", { ...from("198.51.100.7"), authorization: "Bearer ogk_sandbox_guess" }, "POST", "{}"),
      await send("/graphql", { ...from("198.51.100.7"), "x-api-key": "ogk_sandbox_guess2" }, "POST", JSON.stringify({ query: "{ users { totalCount } }" })),
    ];
    expect(attempts.map((r) => r.status)).toEqual([401, 401, 401]);
    for (const [path, method, body] of [
      ["/v2/users", "GET", undefined],
      ["/graphql", "POST", JSON.stringify({ query: "{ users { totalCount } }" })],
    ] as const) {
      const over = await send(path, { ...from("198.51.100.7"), authorization: "Bearer ogk_sandbox_guess3" }, method, body);
      expect(over.status, path).toBe(429);
      expect(over.headers.get("retry-after"), path).toMatch(/^\d+$/);
    }
    // another address has its own budget; a valid key from the refused one still works
    expect((await send("/v2/users", from("198.51.100.8"))).status).toBe(401);
    expect((await send("/v2/users", { ...from("198.51.100.7"), authorization: `Bearer ${key}` })).status).toBe(200);
  });
});

describe("idempotency keys", () => {
  let t: TestApp;
  let key: string;
  let clientId: string;
  beforeAll(async () => {
    t = await startTestApp("pglite", { REDIS_URL: "" });
    ({ key, clientId } = await t.createClient("Idempotent"));
  });
  afterAll(() => t?.stop());
  const post = (body: BodyInit, headers: Record<string, string>) =>
    t.app.fetch("/graphql", { method: "POST", headers: { authorization: `Bearer ${key}`, ...headers }, body });
  const newUser = (email: string) => `mutation { createUser(input: { firstName: "I", lastName: "K", email: "${email}" }) { id } }`;

  it("runs a GraphQL query posted with a key afresh each time, and stores nothing for it", async () => {
    const query = JSON.stringify({ query: "{ users { totalCount } }" });
    const first = await post(query, { "content-type": "application/json", "idempotency-key": "q-1" });
    const before = (await first.json()).data.users.totalCount;
    await t.rest("POST", "/v2/users", { key, body: { first_name: "New", last_name: "One", email: `q-${Date.now()}@example.com` } });
    const second = await post(query, { "content-type": "application/json", "idempotency-key": "q-1" });
    expect(second.headers.get("idempotent-replayed")).toBeNull();
    expect((await second.json()).data.users.totalCount).toBe(before + 1);
    expect(await t.db.idempotencyKey.count({ where: { clientId, key: "q-1" } })).toBe(0);
  });

  it("still replays a mutation, JSON or multipart", async () => {
    const json = JSON.stringify({ query: newUser(`m-${Date.now()}@example.com`) });
    const first = await post(json, { "content-type": "application/json", "idempotency-key": "m-1" });
    const again = await post(json, { "content-type": "application/json", "idempotency-key": "m-1" });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect((await again.json()).data.createUser.id).toBe((await first.json()).data.createUser.id);
    // the same bytes twice (a FormData would pick a new boundary each time: another body)
    const form = `--b\r\ncontent-disposition: form-data; name="operations"\r\n\r\n${JSON.stringify({ query: newUser("multipart@example.com") })}\r\n--b--\r\n`;
    const headers = { "content-type": "multipart/form-data; boundary=b", "x-graphql-yoga-csrf": "1", "idempotency-key": "m-2" };
    const one = await post(form, headers);
    const two = await post(form, headers);
    expect(one.status).toBe(200);
    expect(two.headers.get("idempotent-replayed")).toBe("true");
    expect(await t.db.user.count({ where: { email: "multipart@example.com" } })).toBe(1);
  });

  it("purges expired keys in bounded batches, and keeps the live ones", async () => {
    const { IDEMPOTENCY_PURGE_JOB, purgeExpiredIdempotencyKeys } = await import("../src/server/plugins/use-idempotency.js");
    expect((await t.app.services.jobs.boss.getSchedules()).map((s) => s.name)).toContain(IDEMPOTENCY_PURGE_JOB);
    const now = new Date();
    const row = (k: string, expiresAt: Date) => ({ clientId, key: k, requestHash: "h", expiresAt });
    await t.db.idempotencyKey.createMany({
      data: [
        row("old-1", new Date(now.getTime() - 1000)),
        row("old-2", new Date(now.getTime() - 3600_000)),
        row("old-3", now),
        row("live", new Date(now.getTime() + 3600_000)),
      ],
    });
    expect(await purgeExpiredIdempotencyKeys(t.db, now, 2)).toBe(3);
    expect((await t.db.idempotencyKey.findMany({ where: { clientId, key: { in: ["old-1", "old-2", "old-3", "live"] } } })).map((r) => r.key)).toEqual(["live"]);
  });
});

/**
 * One request over its own raw socket: `head` (request line and headers, with the blank line that
 * ends them unless they are to stay unfinished), then `bodyBytes` of body; what the server wrote
 * back until a whole final answer came, it closed, or `ms` passed. Nothing more of the body is
 * sent: a server that waits for it answers nothing.
 */
async function rawRequest(port: number, head: string, bodyBytes: number, ms: number) {
  const socket = connect(port, "127.0.0.1");
  let text = "";
  let closed = false;
  let answered: () => void = () => {};
  const whole = new Promise<void>((resolve) => {
    answered = resolve;
  });
  socket.on("data", (d) => {
    text += d.toString("latin1");
    if (finalAnswer(text)) answered();
  });
  socket.on("error", () => {});
  const ended = new Promise<void>((resolve) =>
    socket.on("close", () => {
      closed = true;
      resolve();
    }),
  );
  await once(socket, "connect");
  socket.write(head);
  if (bodyBytes) socket.write(Buffer.alloc(bodyBytes, "a"));
  await Promise.race([ended, whole, new Promise((r) => setTimeout(r, ms))]);
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
  return { text, status, closed, socket };
}

/** A final (not 1xx) answer's head is in, and as much body as its Content-Length says. */
function finalAnswer(text: string) {
  const answer = text.replace(/^(HTTP\/1\.1 1\d\d[^\r]*\r\n\r\n)+/, "");
  const end = answer.indexOf("\r\n\r\n");
  const length = /^content-length:\s*(\d+)$/im.exec(answer.slice(0, end))?.[1];
  return end >= 0 && /^HTTP\/1\.1 [2-5]/.test(answer) && answer.length - end - 4 >= Number(length ?? 0);
}

const declaredMiB = (path: string, headers: string[] = []) =>
  `${[`POST ${path} HTTP/1.1`, "host: gateway", "content-type: application/json", `content-length: ${MiB}`, ...headers].join("\r\n")}\r\n\r\n`;

/** An app on a loopback port for a describe block (stopped after it), and with `client` a key of a client so named. */
function listening(env: Record<string, string>, client?: string) {
  const app = { t: undefined as TestApp | undefined, port: 0, key: "" };
  beforeAll(async () => {
    app.t = await startTestApp("pglite", { REDIS_URL: "", ...env });
    app.port = await app.t.app.start(0, "127.0.0.1");
    if (client) app.key = (await app.t.createClient(client)).key;
  });
  afterAll(() => app.t?.stop());
  return app;
}

describe("a request without a valid key is refused before its body is read", () => {
  for (const graphiql of ["0", "1"]) {
    describe(`GRAPHIQL=${graphiql}`, () => {
      const app = listening({ GRAPHIQL: graphiql, UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: "0" });

      it.each([
        ["a REST write the lane takes", "/v2/users", []],
        ["a REST write with an Idempotency-Key (yoga's)", "/v2/users", ["idempotency-key: k-1"]],
        ["a GraphQL POST", "/graphql", []],
        ["a GraphQL POST with a refused key", "/graphql", ["authorization: Bearer ogk_sandbox_guess"]],
        ["a REST write with a refused key", "/v2/users", ["x-api-key: ogk_sandbox_guess"]],
      ])("answers 401 to %s that declares 1 MiB and sends 64 KiB of it", async (_, path, headers) => {
        const sent = await rawRequest(app.port, declaredMiB(path, headers), 64 * 1024, 3000);
        sent.socket.destroy();
        expect(sent.status, sent.text.slice(0, 300)).toBe(401);
      });

      if (graphiql === "1")
        it("still answers GraphiQL's schema fetch without a key, a body within the few KiB allowed", async () => {
          const introspection = await fetch(`http://127.0.0.1:${app.port}/graphql`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ query: "{ __schema { queryType { name } } }" }),
          });
          expect(introspection.status, await introspection.clone().text()).toBe(200);
          const padded = await rawRequest(app.port, declaredMiB("/graphql").replace(`${MiB}`, String(65 * 1024)), 65 * 1024, 3000);
          padded.socket.destroy();
          expect(padded.status).toBe(401);
        });
    });
  }
});

describe("connections are bounded", () => {
  const app = listening({ MAX_CONNECTIONS: "8", REQUEST_TIMEOUT_SECONDS: "2", HEADERS_TIMEOUT_SECONDS: "1" }, "Connections");

  it("closes a connection past MAX_CONNECTIONS at once, and serves again once they are gone", async () => {
    const open = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const socket = connect(app.port, "127.0.0.1").on("error", () => {});
        await once(socket, "connect");
        return socket;
      }),
    );
    await new Promise((r) => setTimeout(r, 100));
    const extra = await rawRequest(app.port, "GET /healthz HTTP/1.1\r\nhost: gateway\r\n\r\n", 0, 2000);
    expect(extra.closed, "the connection past the cap is closed").toBe(true);
    expect(extra.status).toBe(0);
    for (const socket of open) socket.destroy();
    await new Promise((r) => setTimeout(r, 100));
    expect((await get(app.port, "/healthz")).status).toBe(200);
  });

  it("ends a request whose headers or body do not arrive in time with 408", async () => {
    const slowHeaders = rawRequest(app.port, "GET /v2/users HTTP/1.1\r\nhost: gateway\r\nx-slow: 1", 0, 6000);
    const slowBody = rawRequest(app.port, declaredMiB("/v2/users", [`authorization: Bearer ${app.key}`]), 1024, 6000);
    for (const sent of await Promise.all([slowHeaders, slowBody])) {
      sent.socket.destroy();
      expect(sent.status, sent.text.slice(0, 200)).toBe(408);
      expect(sent.text).toMatch(/\r\nconnection: close\r\n/i);
    }
  });
});

describe("a body over the limit gets a 413 the client can read", () => {
  const app = listening({}, "Oversize");
  const UPLOAD = "/v2/users/authentications/documents";
  const oversize = Buffer.alloc(15 * MiB, "a");

  it("answers 413 to a declared length over the limit with Expect: 100-continue, before any 100 Continue", async () => {
    const head = [
      `POST ${UPLOAD} HTTP/1.1`,
      "host: gateway",
      "content-type: application/json",
      `content-length: ${oversize.length}`,
      `authorization: Bearer ${app.key}`,
    ];
    const sent = await rawRequest(app.port, `${[...head, "expect: 100-continue"].join("\r\n")}\r\n\r\n`, 0, 3000);
    sent.socket.destroy();
    expect(sent.text.slice(0, 40)).toMatch(/^HTTP\/1\.1 413/);
  });

  it("goes on with Expect: 100-continue within the limit", async () => {
    const head = [`POST /v2/users HTTP/1.1`, "host: gateway", "content-type: application/json", "content-length: 2", `authorization: Bearer ${app.key}`];
    const sent = await rawRequest(app.port, `${[...head, "expect: 100-continue"].join("\r\n")}\r\n\r\n`, 0, 1000);
    expect(sent.text).toMatch(/^HTTP\/1\.1 100 Continue\r\n/);
    let rest = "";
    sent.socket.on("data", (d) => {
      rest += d.toString("latin1");
    });
    sent.socket.write("{}");
    for (const until = Date.now() + 5000; !finalAnswer(rest) && Date.now() < until; ) await new Promise((r) => setTimeout(r, 50));
    sent.socket.destroy();
    expect(rest).toMatch(/^HTTP\/1\.1 4\d\d /);
  });

  it("answers each of several 15 MiB uploads sent whole by fetch with a 413 it reads, never a network error", async () => {
    const outcomes: string[] = [];
    for (let i = 0; i < 8; i++) {
      const answer = await fetch(`http://127.0.0.1:${app.port}${UPLOAD}`, {
        method: "POST",
        headers: { authorization: `Bearer ${app.key}`, "content-type": "application/json" },
        body: oversize,
      }).then(
        async (res) => `${res.status} ${((await res.json()) as { code?: string }).code}`,
        (error: Error) => `${error.message}: ${(error.cause as Error | undefined)?.message}`,
      );
      outcomes.push(answer);
    }
    expect(outcomes).toEqual(Array(8).fill("413 PAYLOAD_TOO_LARGE"));
  });
});

/**
 * Property-based fuzzing (fast-check) of the long-lived transports against a real server: graphql-ws
 * sessions of random and malformed protocol messages (bad JSON, wrong types, huge ids, unknown
 * types, subscribe before init, duplicate ids, random payloads, frames over the limit), and GraphQL
 * requests for SSE (`Accept: text/event-stream`) of any shape. Properties: the server never answers
 * with a stack trace or driver text; every error carries a code; a socket is only ever closed with
 * a protocol code, never 4500 for a throw of ours; SSE never answers 5xx; no subscription slot
 * outlives its session; and afterwards the process still answers /healthz and an authenticated
 * query over both transports. A failure prints the seed to replay it
 * (`FUZZ_SEED=… npx vitest run test/fuzz/graphql-ws.test.ts`).
 */
import fc from "fast-check";
import { createClient } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { within } from "../helpers/eventually.js";

const scale = Number(process.env.FUZZ_SCALE ?? 1);
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() % 2 ** 31;
const MAX_FRAME = 64 * 1024;
const LEAK =
  /\n\s+at |\bat [\w$.<>]+ \(|\.[cm]?[jt]s:\d+|node_modules|\bSELECT\b|\bINSERT INTO\b|Prisma|PGlite|invalid input syntax|ECONNREFUSED|URIError|RangeError|TypeError/;
/** How graphql-ws itself closes on a protocol breach; 4500 only for a message type a client may not send. */
const PROTOCOL_CLOSES = new Set([1000, 1005, 1006, 1009, 4400, 4401, 4403, 4406, 4408, 4409, 4429]);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const jsonish = fc.jsonValue({ maxDepth: 3 });
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.oneof(fc.constant(undefined), arb);

function documents(userId: string) {
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        "{ __typename }",
        "{ users(first: 1) { totalCount } }",
        "mutation { __typename }",
        "{ __schema { queryType { name } } }",
        `subscription { userStatusChanged(userId: "${userId}") { id status } }`,
        `subscription { checkUpdated(userId: "${userId}", types: [KYC]) { id } }`,
        'subscription { userStatusChanged(userId: "00000000-0000-0000-0000-000000000000") { id } }',
        "subscription S($id: ID!) { userStatusChanged(userId: $id) { id } }",
        "query A { __typename } query B { __typename }",
        `{ users(first: 1) { edges { node { ${"documents { user { ".repeat(6)}id${" } }".repeat(6)} } } } }`,
        "{",
        "",
        "{ nope }",
        "subscription { __typename }",
        `{ ${"a: __typename ".repeat(40)}}`,
        "x".repeat(20_000),
      ),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
  );
}

function frames(key: string, userId: string) {
  const id = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom("1", "2", "3", "a") },
    fc.string({ maxLength: 6 }),
    fc.constant("i".repeat(20_000)),
    fc.integer(),
    fc.constant(null),
    jsonish,
  );
  const payload = fc.oneof(
    {
      weight: 5,
      arbitrary: fc.record(
        {
          query: fc.oneof({ weight: 8, arbitrary: documents(userId) }, jsonish),
          variables: maybe(fc.oneof(fc.constant({ id: userId }), jsonish)),
          operationName: maybe(fc.oneof(fc.constantFrom("A", "B", "S"), jsonish)),
          extensions: maybe(jsonish),
        },
        { requiredKeys: ["query"] },
      ),
    },
    { weight: 1, arbitrary: jsonish },
  );
  const json = (m: Record<string, unknown>) => JSON.stringify(m);
  // well-formed operations most of the time, so sessions reach the server's own hooks, not only the parser's refusal
  const wellFormed = fc
    .record({
      id: fc.constantFrom("1", "2", "3", "a"),
      payload: fc.record(
        {
          query: documents(userId),
          variables: maybe(fc.constantFrom({ id: userId }, { id: "nope" }, {})),
          operationName: maybe(fc.constantFrom("A", "B", "S")),
        },
        { requiredKeys: ["query"] },
      ),
    })
    .map((m) => json({ type: "subscribe", ...m }));
  const subscribe = fc.record({ id, payload }).map((m) => json({ type: "subscribe", ...m }));
  const housekeeping = fc.record({ type: fc.constantFrom("ping", "pong", "complete"), id, payload: maybe(jsonish) }, { requiredKeys: ["type"] }).map(json);
  const type = fc.oneof(
    fc.constantFrom("connection_init", "ping", "pong", "subscribe", "complete", "next", "error", "connection_ack"),
    fc.string({ maxLength: 8 }),
    jsonish,
  );
  const anyMessage = fc.record({ type, id, payload }, { requiredKeys: [] }).map(json);
  const init = fc
    .constantFrom({ authorization: `Bearer ${key}` }, { headers: { "X-Api-Key": key } }, { authorization: "Bearer nope" }, undefined, {
      authorization: 42,
    } as never)
    .map((p) => json({ type: "connection_init", payload: p }));
  const raw = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.constantFrom("{", "null", "[]", "1", '"x"', '{"type":', "\u0000", "\ud800", "x".repeat(MAX_FRAME + 10)),
  );
  const binary = fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b));
  return fc.oneof(
    { weight: 16, arbitrary: wellFormed },
    { weight: 2, arbitrary: subscribe },
    { weight: 2, arbitrary: housekeeping },
    { weight: 2, arbitrary: anyMessage },
    { weight: 1, arbitrary: init },
    { weight: 1, arbitrary: raw },
    { weight: 1, arbitrary: binary },
  );
}

describe("graphql-ws and SSE under hostile messages", () => {
  let t: TestApp;
  let port: number;
  let key: string;
  let userId: string;
  beforeAll(async () => {
    t = await startTestApp("pglite", { MAX_BODY_BYTES: String(MAX_FRAME), RATE_LIMIT_PER_MINUTE: "0", JOBS: "0" });
    port = await t.app.start(0, "127.0.0.1");
    key = (await t.createClient("Fuzz")).key;
    userId = (await t.rest("POST", "/v2/users", { key, body: { first_name: "Fuzz", last_name: "Socket", email: "fuzz@socket.example" } })).body.user_id;
  });
  afterAll(() => t?.stop());

  /** One socket: an optional connection_init, then the frames, then whatever it answers until it closes or goes quiet. */
  async function session(protocol: string, opening: string | null, sent: (string | Buffer)[]) {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/graphql`, protocol ? [protocol] : []);
    const messages: string[] = [];
    let close: { code: number; reason: string } | null = null;
    const closed = new Promise<void>((resolve) =>
      socket.once("close", (code, reason) => {
        close = { code, reason: String(reason) };
        resolve();
      }),
    );
    socket.on("message", (data) => messages.push(String(data)));
    socket.on("error", () => {});
    await Promise.race([new Promise((r) => socket.once("open", r)), closed]);
    for (const frame of opening ? [opening, ...sent] : sent) {
      if (socket.readyState !== WebSocket.OPEN) break;
      socket.send(frame);
      await sleep(2);
    }
    await Promise.race([closed, sleep(100)]);
    if (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING) socket.close(1000);
    await Promise.race([closed, sleep(2000)]);
    return { messages, close: close as { code: number; reason: string } | null };
  }

  it("keeps every graphql-ws session to the protocol: coded errors, no stack, no throw, no slot left", async () => {
    const runs = Math.round(60 * scale);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof({ weight: 8, arbitrary: fc.constant("graphql-transport-ws") }, fc.constantFrom("graphql-ws", "")),
        fc.oneof(
          { weight: 4, arbitrary: fc.constant(JSON.stringify({ type: "connection_init", payload: { authorization: `Bearer ${key}` } })) },
          fc.constant(null),
        ),
        fc.array(frames(key, userId), { minLength: 1, maxLength: 8 }),
        async (protocol, opening, sent) => {
          const { messages, close } = await session(protocol, opening, sent);
          const where = `${protocol} ${opening ? "init" : "no init"} ${sent.map((f) => String(f).slice(0, 120)).join(" | ")}`;
          for (const text of [...messages, close?.reason ?? ""]) expect(text, where).not.toMatch(LEAK);
          if (close && !PROTOCOL_CLOSES.has(close.code))
            expect(`${close.code} ${close.reason}`, where).toMatch(/^4500 Unexpected message of type \w+ received$/);
          for (const text of messages) {
            const message = JSON.parse(text);
            const errors = message.type === "error" ? message.payload : message.type === "next" ? (message.payload.errors ?? []) : [];
            for (const error of errors) expect(error.extensions?.code, `${where} → ${text.slice(0, 300)}`).toMatch(/^[A-Z_]+$/);
            // what only an HTTP answer uses (its status and headers) stays off the socket
            if (message.type === "error") expect(text, where).not.toContain('"http":');
          }
        },
      ),
      { numRuns: runs, seed, verbose: 1 },
    );
    await within(
      "no subscription slot outlives its socket",
      () => t.app.live.held(),
      (n) => n === 0,
      5000,
    );
  }, 120_000);

  it("answers every SSE request of any shape without a 5xx or a stack", async () => {
    const runs = Math.round(40 * scale);
    const body = fc.oneof(
      {
        weight: 4,
        arbitrary: fc.record(
          {
            query: fc.oneof({ weight: 4, arbitrary: documents(userId) }, jsonish),
            variables: maybe(fc.oneof(fc.constant({ id: userId }), jsonish)),
            operationName: maybe(jsonish),
            extensions: maybe(jsonish),
          },
          { requiredKeys: [] },
        ),
      },
      { weight: 1, arbitrary: jsonish },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("GET", "POST", "POST"),
        body,
        fc.constantFrom("text/event-stream", "text/event-stream", "multipart/mixed", "text/event-stream, application/json;q=0.5", "text/event-stream;q=0"),
        fc.constantFrom(`Bearer ${key}`, `Bearer ${key}`, "Bearer nope", ""),
        fc.constantFrom("application/json", "application/json", "text/plain", "application/graphql", ""),
        fc.boolean(),
        async (method, sent, accept, authorization, contentType, garble) => {
          const text = garble ? JSON.stringify(sent).slice(0, -1) : JSON.stringify(sent);
          const params = sent && typeof sent === "object" && !Array.isArray(sent) ? (sent as Record<string, unknown>) : {};
          const search = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, typeof v === "string" ? v : (JSON.stringify(v) ?? "")]));
          const leaving = new AbortController();
          const res = await fetch(`http://127.0.0.1:${port}/graphql${method === "GET" ? `?${search}` : ""}`, {
            method,
            signal: leaving.signal,
            headers: { accept, ...(authorization ? { authorization } : {}), ...(contentType && method === "POST" ? { "content-type": contentType } : {}) },
            ...(method === "POST" ? { body: text } : {}),
          });
          const where = `${method} ${accept} ${authorization.slice(0, 10)} ${contentType} ${text.slice(0, 200)}`;
          let read = "";
          const reader = res.body?.getReader();
          for (const until = Date.now() + 150; reader && Date.now() < until; ) {
            const chunk = await Promise.race([reader.read(), sleep(until - Date.now()).then(() => null)]);
            if (!chunk || chunk.done) break;
            read += new TextDecoder().decode(chunk.value);
          }
          leaving.abort();
          expect(res.status, `${where} → ${read.slice(0, 300)}`).toBeLessThan(500);
          expect(read, where).not.toMatch(LEAK);
        },
      ),
      { numRuns: runs, seed, verbose: 1 },
    );
    await within(
      `no SSE slot outlives its stream (replay: FUZZ_SEED=${seed})`,
      () => t.app.live.held(),
      (n) => n === 0,
      5000,
    );
  }, 120_000);

  it("still answers /healthz and an authenticated query over HTTP and graphql-ws afterwards", async () => {
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    const fresh = (await t.createClient("After the fuzz")).key;
    expect((await t.gql(fresh, "{ users(first: 1) { totalCount } }")).data.users.totalCount).toBe(0);
    const client = createClient({
      url: `ws://127.0.0.1:${port}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${fresh}` },
      retryAttempts: 0,
    });
    const result = await new Promise<any>((resolve, reject) =>
      client.subscribe({ query: "{ users(first: 1) { totalCount } }" }, { next: resolve, error: reject, complete: () => {} }),
    );
    expect(result.data.users.totalCount).toBe(0);
    await client.dispose();
  });
});

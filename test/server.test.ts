import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import WebSocket from "ws";
import { createClient as createWsClient } from "graphql-ws";
import { getIntrospectionQuery, GraphQLError } from "graphql";
import { MAX_OPERATION_COST } from "../src/graphql/cost.js";
import { createMaskError } from "../src/graphql/mask-error.js";
import { ERROR_CODES } from "../src/lib/errors.js";
import { problemFromGraphQL, problemReply } from "../src/rest/problem.js";
import { routes } from "../src/rest/routes.js";
import { request } from "node:http";
import { multiInstance, startTestApp, startTwoInstances, type TestApp } from "./helpers/app.js";

describe("server", () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp("pglite", { MAX_BODY_BYTES: "2048" });
    key = (await t.createClient("Server")).key;
  });
  afterAll(() => t?.stop());

  it("answers /healthz, /readyz (database and, when configured, Redis) and /metrics without a key", async () => {
    expect((await t.rest("GET", "/healthz")).body).toEqual({ status: "ok" });
    const ready = await t.rest("GET", "/readyz");
    expect(ready.status).toBe(200);
    expect(ready.body.checks.database).toBe("ok");
    if (process.env.REDIS_URL) expect(ready.body.checks.redis).toBe("ok");
    await t.rest("GET", "/v2/users", { key });
    const metrics = await t.app.fetch("/metrics");
    expect(await metrics.text()).toMatch(/http_requests_total\{method="GET",route="\/v2\/users",status="200"\} \d+/);
  });

  it("honours and echoes x-request-id, and issues one when absent", async () => {
    const given = await t.rest("GET", "/v2/users", { key, headers: { "x-request-id": "abc-123" } });
    expect(given.headers.get("x-request-id")).toBe("abc-123");
    const issued = await t.rest("GET", "/v2/nowhere", { key });
    expect(issued.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(issued.body.request_id).toBe(issued.headers.get("x-request-id"));
  });

  it("answers CORS preflights for REST and GraphQL without allowing ambient credentials", async () => {
    for (const path of ["/v2/users", "/graphql"]) {
      const res = await t.app.fetch(path, {
        method: "OPTIONS",
        headers: { origin: "https://app.example.com", "access-control-request-method": "POST", "access-control-request-headers": "authorization,content-type" },
      });
      expect(res.status, path).toBe(204);
      expect(res.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
      expect(res.headers.get("access-control-allow-credentials")).toBeNull();
      expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it("answers an unknown route 404 and a wrong method 405 with Allow, as problem+json", async () => {
    const missing = await t.rest("GET", "/v2/nowhere", { key });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: "NOT_FOUND", status: 404, type: expect.stringContaining("not-found") });
    const wrong = await t.rest("DELETE", "/v2/users", { key });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("POST, GET");
    expect(wrong.body.code).toBe("METHOD_NOT_ALLOWED");
  });

  it("refuses a body over the limit with 413 before reading it", async () => {
    const res = await t.rest("POST", "/v2/users", { key, body: { first_name: "x".repeat(4000) } });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe("PAYLOAD_TOO_LARGE");
  });

  it("reads a chunked body (no content-length) up to the limit too, on GraphQL as on REST", async () => {
    const port = await t.app.start(0, "127.0.0.1");
    /** a POST over a real socket in chunks of 512 bytes: node sends transfer-encoding chunked, no length */
    const chunked = (path: string, text: string) =>
      new Promise<{ status: number; body: any }>((resolve, reject) => {
        const req = request(
          { host: "127.0.0.1", port, path, method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" } },
          (res) => {
            let data = "";
            res.on("data", (c) => {
              data += c;
            });
            res.on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(data) }));
          },
        );
        req.on("error", reject);
        for (let i = 0; i < text.length; i += 512) req.write(text.slice(i, i + 512));
        req.end();
      });
    const small = await chunked("/graphql", JSON.stringify({ query: "{ users(first: 1) { totalCount } }" }));
    expect(small).toMatchObject({ status: 200, body: { data: { users: { totalCount: expect.any(Number) } } } });
    const padded = JSON.stringify({ query: `{ users(first: 1) { totalCount } } # ${"x".repeat(4000)}` });
    for (const path of ["/graphql", "/v2/users"]) {
      const big = await chunked(path, path === "/graphql" ? padded : JSON.stringify({ first_name: "x".repeat(4000) }));
      expect(big.status, path).toBe(413);
      expect(big.body.code ?? big.body.errors?.[0]?.extensions?.code, path).toBe("PAYLOAD_TOO_LARGE");
    }
  });

  it("prices a query with the page sizes its variables ask for, and lets a page of 100 users with their documents through", async () => {
    const page = "edges { node { id email firstName lastName phoneNumber status kycStatus createdAt updatedAt documents { id } checks { id status } } }";
    // armor priced this literal page at 6,856 and refused it (limit 5,000), while `first: $n` with n = 100 cost 69
    expect((await t.gql(key, `{ users(first: 100) { ${page} } }`)).errors).toBeUndefined();
    const nested = "query($n: Int, $m: Int) { users(first: $n) { edges { node { id checks(first: $m) { id status } } } } }";
    for (const variables of [
      { n: 100, m: 100 },
      { n: 50, m: 100 },
    ]) {
      const refused = await t.gql(key, nested, variables);
      expect(refused.errors?.[0]?.extensions, JSON.stringify(variables)).toMatchObject({ code: "VALIDATION_FAILED", limit: MAX_OPERATION_COST });
      expect(refused.errors![0]!.message).toMatch(/costs \d+, over the limit/);
    }
    expect((await t.gql(key, nested, { n: 100, m: 2 })).errors).toBeUndefined();
    // a document of several operations is priced as its dearest, whichever operationName picks
    const two = await t.rest("POST", "/graphql", {
      key,
      body: {
        query: `query Cheap { users(first: 1) { totalCount } } ${nested.replace("query(", "query Dear(")}`,
        operationName: "Cheap",
        variables: { n: 100, m: 100 },
      },
    });
    expect(two.body.errors?.[0]?.extensions.code).toBe("VALIDATION_FAILED");
    expect((await t.gql(key, nested.replace("$n", "100").replace("$m", "100").replace("query($n: Int, $m: Int) ", ""))).errors?.[0]?.extensions.code).toBe(
      "VALIDATION_FAILED",
    );
    // the REST list at its largest page is within the limit
    expect((await t.rest("GET", "/v2/users?records_per_page=100", { key })).status).toBe(200);
  });

  it("codes GraphQL parse and validation errors VALIDATION_FAILED", async () => {
    expect((await t.gql(key, `{ nope }`)).errors![0].extensions.code).toBe("VALIDATION_FAILED");
    expect((await t.gql(key, `{ users {`)).errors![0].extensions.code).toBe("VALIDATION_FAILED");
  });

  it("refuses over-deep and alias-heavy queries (GraphQL armour) but not introspection", async () => {
    const deep = `{ users { edges { node { requirements { errors { field } } } } } }`;
    expect((await t.gql(key, deep)).errors).toBeUndefined();
    const aliases = `{ ${Array.from({ length: 20 }, (_, i) => `a${i}: users { totalCount }`).join(" ")} }`;
    const tooMany = await t.gql(key, aliases);
    expect(tooMany.errors![0].extensions.code).toBe("VALIDATION_FAILED");
    expect(tooMany.errors![0].message).toMatch(/alias/i);
    const introspection = await t.gql(key, getIntrospectionQuery());
    expect(introspection.data.__schema.queryType.name).toBe("Query");
  });

  it("refuses a NUL character in any input as VALIDATION_FAILED instead of a database error", async () => {
    const viaVariables = await t.gql(key, `mutation($input: CreateUserInput!) { createUser(input: $input) { id } }`, {
      input: { firstName: "A\u0000", lastName: "B", email: "nul@example.com" },
    });
    expect(viaVariables.errors![0].extensions).toMatchObject({ code: "VALIDATION_FAILED", fields: [{ field: "firstName" }] });
    const viaLiteral = await t.gql(key, `{ users(email: "a\u0000b") { totalCount } }`);
    expect(viaLiteral.errors![0].extensions.code).toBe("VALIDATION_FAILED");
    // in a path it names no object: looked up first, it is 404, never a database error
    expect((await t.rest("GET", "/v2/users/%00", { key })).status).toBe(404);
  });

  it("never quotes a refused input value back (a tax id or document number would leak)", async () => {
    const query = "mutation($input: CreateUserInput!) { createUser(input: $input) { id } }";
    const res = await t.gql(key, query, { input: { firstName: "A", lastName: "B", email: "leak@x.example", taxId: { nested: "S9999999Z" }, locale: 12 } });
    expect(res.errors?.[0].extensions.code).toBe("VALIDATION_FAILED");
    expect(JSON.stringify(res.body)).not.toMatch(/S9999999Z|leak@x/);
    const rest = await t.rest("POST", "/v2/users", {
      key,
      body: { first_name: "A", last_name: "B", email: "leak@x.example", tax_id: { nested: "S9999999Z" } },
    });
    expect(rest.status).toBe(400);
    expect(JSON.stringify(rest.body)).not.toMatch(/S9999999Z|leak@x/);
  });

  it("masks unexpected errors as INTERNAL with an errorId and no internals", async () => {
    const mask = createMaskError(t.app.services.logger);
    const leaked = new GraphQLError("x", { originalError: new Error('relation "users" does not exist at 10.0.0.3') });
    const masked = mask(leaked) as GraphQLError;
    expect(masked.extensions).toMatchObject({ code: "INTERNAL", errorId: expect.any(String) });
    expect(masked.message).not.toContain("users");
  });

  it("turns every code in the error table into problem+json with its status and title, and documents it", async () => {
    const documented = (await t.rest("GET", "/openapi.json")).body.components.schemas.Problem.properties.code.enum;
    for (const [code, { status, title }] of Object.entries(ERROR_CODES)) {
      const reply = problemReply({ code, detail: "d", fields: [{ field: "residential_address.postal_code", code: "invalid", message: "m" }] }, "rid");
      expect(reply.status, code).toBe(status);
      expect(reply.headers["content-type"]).toBe("application/problem+json");
      expect(JSON.parse(reply.text)).toMatchObject({
        code,
        status,
        title,
        detail: "d",
        request_id: "rid",
        errors: [{ field: "residential_address.postal_code" }],
      });
      expect(documented).toContain(code);
    }
  });

  it("renames a domain error's camelCase fields to REST names, and never shows a graphql-js message", () => {
    const known = new Set(["residentialAddress", "postalCode", "destinationCountryCode", "phoneNumber"]);
    const problem = problemFromGraphQL(
      [
        {
          message: "2 fields are not valid: residentialAddress.postalCode, destinationCountryCode.1.",
          extensions: {
            code: "VALIDATION_FAILED",
            fields: [
              { field: "residentialAddress.postalCode", code: "invalid", message: "residentialAddress.postalCode must be 1 to 20 characters." },
              { field: "destinationCountryCode.1", code: "invalid", message: "email or phoneNumber is required." },
            ],
          },
        },
      ],
      known,
    );
    expect(problem.detail).toBe("2 fields are not valid: residential_address.postal_code, destination_country_code[1].");
    expect(problem.fields).toEqual([
      { field: "residential_address.postal_code", code: "invalid", message: "residential_address.postal_code must be 1 to 20 characters." },
      { field: "destination_country_code[1]", code: "invalid", message: "email or phone_number is required." },
    ]);
    const leaked = problemFromGraphQL(
      [{ message: 'Variable "$input" got invalid value 1 at "input.firstName"; String cannot represent a non string value: 1' }],
      known,
    );
    expect(leaked.detail).not.toMatch(/\$input|String|firstName/);
  });

  it("describes every REST route in /openapi.json", async () => {
    const doc = (await t.rest("GET", "/openapi.json")).body;
    for (const r of routes) expect(doc.paths[r.path]?.[r.method.toLowerCase()], `${r.method} ${r.path}`).toBeDefined();
  });

  it("serves GraphiQL to a browser without a key, compressed as the browser accepts, subscriptions over SSE", async () => {
    const res = await t.app.fetch("/graphql", { headers: { accept: "text/html" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-encoding")).toBeNull();
    const html = await res.text();
    expect(html).toContain("Onboarding Gateway");
    expect(html).not.toMatch(/unpkg\.com|jsdelivr/); // self-contained: no CDN on machines without internet
    expect(html).toContain('"subscriptionsProtocol":"SSE"'); // the headers pane reaches subscriptions
    for (const [accept, encoding, decode] of [
      ["gzip, deflate, br", "br", brotliDecompressSync],
      ["gzip", "gzip", gunzipSync],
      ["br;q=0, gzip", "gzip", gunzipSync],
    ] as const) {
      const page = await t.app.fetch("/graphql", { headers: { accept: "text/html", "accept-encoding": accept } });
      expect(page.headers.get("content-encoding"), accept).toBe(encoding);
      expect(page.headers.get("vary")).toBe("accept-encoding");
      const body = Buffer.from(await page.arrayBuffer());
      expect(body.length).toBeLessThan(html.length / 3);
      expect(decode(body).toString("utf8")).toBe(html);
    }
  });

  it("serves /openapi.json and the reference page's assets compressed as the caller accepts, and /favicon.ico without a key", async () => {
    for (const path of ["/openapi.json", "/docs/swagger-ui-bundle.js", "/docs/swagger-ui.css"]) {
      const plain = await t.app.fetch(path);
      expect(plain.status, path).toBe(200);
      expect(plain.headers.get("content-encoding"), path).toBeNull();
      const text = await plain.text();
      for (const [accept, encoding, decode] of [
        ["gzip, deflate, br", "br", brotliDecompressSync],
        ["gzip", "gzip", gunzipSync],
      ] as const) {
        const res = await t.app.fetch(path, { headers: { "accept-encoding": accept } });
        expect(res.headers.get("content-encoding"), `${path} ${accept}`).toBe(encoding);
        expect(res.headers.get("vary")).toBe("accept-encoding");
        const body = Buffer.from(await res.arrayBuffer());
        expect(body.length, path).toBeLessThan(text.length / 3);
        expect(decode(body).toString("utf8"), path).toBe(text);
      }
    }
    const icon = await t.app.fetch("/favicon.ico");
    expect(icon.status).toBe(204);
  });

  it("answers GraphiQL's schema fetch without a key (or with its placeholder) while GraphiQL is on, and nothing else", async () => {
    for (const k of [null, "<your"]) {
      const schema = await t.gql(k, getIntrospectionQuery(), undefined);
      expect(schema.status, String(k)).toBe(200);
      expect(schema.data.__schema.queryType.name).toBe("Query");
    }
    const viaGet = await t.app.fetch(`/graphql?query=${encodeURIComponent('{ __type(name: "User") { name } }')}`, { headers: { accept: "application/json" } });
    expect((await viaGet.json()).data).toEqual({ __type: { name: "User" } });
    for (const query of ["{ __typename users { totalCount } }", "{ ...F } fragment F on Query { __schema { queryType { name } } }", "mutation { __typename }"])
      expect((await t.gql(null, query)).status, query).toBe(401);
    const production = await startTestApp("pglite", { GRAPHIQL: "0" });
    try {
      expect((await production.gql(null, getIntrospectionQuery())).status).toBe(401);
      expect((await production.app.fetch("/graphql", { headers: { accept: "text/html" } })).headers.get("content-type") ?? "").not.toContain("text/html");
    } finally {
      await production.stop();
    }
  });

  it("runs operations over graphql-ws on /graphql with the key in connectionParams, and refuses without", async () => {
    const port = await t.app.start(0, "127.0.0.1");
    const url = `ws://127.0.0.1:${port}/graphql`;
    const ok = createWsClient({ url, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${key}` }, retryAttempts: 0 });
    const result = await new Promise<any>((resolve, reject) =>
      ok.subscribe({ query: "{ users { totalCount } }" }, { next: resolve, error: reject, complete: () => {} }),
    );
    expect(result.data.users.totalCount).toBeGreaterThanOrEqual(0);
    await ok.dispose();
    // the key as clients that forward HTTP headers send it
    const nested = createWsClient({ url, webSocketImpl: WebSocket, connectionParams: { headers: { Authorization: `Bearer ${key}` } }, retryAttempts: 0 });
    expect(
      (await new Promise<any>((resolve, reject) => nested.subscribe({ query: "{ __typename }" }, { next: resolve, error: reject, complete: () => {} }))).data,
    ).toEqual({ __typename: "Query" });
    await nested.dispose();
    // 4401 is fatal to graphql-ws clients: the error is reported at once, not retried behind a spinner
    for (const connectionParams of [{ authorization: "Bearer wrong" }, {}]) {
      const closes: number[] = [];
      const refused = createWsClient({
        url,
        webSocketImpl: WebSocket,
        connectionParams,
        retryAttempts: 5,
        retryWait: async () => {},
        on: { closed: (e: any) => closes.push(e.code) },
      });
      const error = await new Promise<any>((resolve) =>
        refused.subscribe({ query: "{ users { totalCount } }" }, { next: () => {}, error: resolve, complete: () => resolve(null) }),
      );
      expect(error?.code ?? error).toBe(4401);
      expect(error.reason).toMatch(/^Unauthorized: /);
      expect(closes).toEqual([4401]);
      await refused.dispose();
    }
  });
});

describe("rate limit", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp("pglite", { RATE_LIMIT_PER_MINUTE: "3" });
  });
  afterAll(() => t?.stop());

  it("counts per API key, sends RateLimit-* headers, and answers 429 with Retry-After past the limit", async () => {
    const a = (await t.createClient("A")).key;
    const b = (await t.createClient("B")).key;
    const seen = [];
    for (let i = 0; i < 4; i++) seen.push(await t.rest("GET", "/v2/users", { key: a }));
    expect(seen.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(seen[0].headers.get("ratelimit-limit")).toBe("3");
    expect(seen[2].headers.get("ratelimit-remaining")).toBe("0");
    expect(Number(seen[3].headers.get("retry-after"))).toBeGreaterThan(0);
    expect(seen[3].body.code).toBe("RATE_LIMITED");
    expect((await t.rest("GET", "/v2/users", { key: b })).status).toBe(200);
    expect((await t.gql(a, "{ __typename }")).status).toBe(429);
  });
});

describe.runIf(multiInstance)("rate limit across instances (Redis)", () => {
  let a: TestApp;
  let b: TestApp;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ a, b, stop } = await startTwoInstances({ RATE_LIMIT_PER_MINUTE: "6" }));
  });
  afterAll(() => stop?.());

  it("spends one key's budget across both instances, whichever serves the request", async () => {
    const { key } = await a.createClient("Shared budget");
    // the budget is per one-minute window: start well inside one
    if (60_000 - (Date.now() % 60_000) < 5_000) await new Promise((r) => setTimeout(r, 60_000 - (Date.now() % 60_000) + 50));
    const seen = [];
    for (let i = 0; i < 8; i++) seen.push(await (i % 2 ? b : a).rest("GET", "/v2/users", { key }));
    expect(seen.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
    expect(seen.slice(0, 6).map((r) => r.headers.get("ratelimit-remaining"))).toEqual(["5", "4", "3", "2", "1", "0"]);
    expect(seen[7].body.code).toBe("RATE_LIMITED");
    // another key on the same instances keeps its own budget
    const other = (await b.createClient("Other budget")).key;
    expect((await a.rest("GET", "/v2/users", { key: other })).status).toBe(200);
  });
});

describe("with Redis unreachable", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp("pglite", { REDIS_URL: "redis://127.0.0.1:1", RATE_LIMIT_PER_MINUTE: "5" });
  });
  afterAll(() => t?.stop());

  it("keeps serving (rate limit fails open, events are dropped with a warning) and reports not ready", async () => {
    const key = (await t.createClient("Outage")).key;
    const user = await t.rest("POST", "/v2/users", { key, body: { first_name: "Red", last_name: "Is", email: "down@example.com" } });
    expect(user.status).toBe(201);
    // a status change publishes user.status.updated to the (unreachable) bus
    expect((await t.rest("PUT", `/v2/users/${user.body.user_id}`, { key, body: { status: "CLOSED" } })).status).toBe(200);
    for (let i = 0; i < 6; i++) expect((await t.rest("GET", "/v2/users", { key })).status).toBe(200);
    expect((await t.rest("GET", "/healthz")).status).toBe(200);
    const ready = await t.rest("GET", "/readyz");
    expect(ready.status).toBe(503);
    expect(ready.body.checks).toEqual({ database: "ok", redis: "unavailable" });
  });
});

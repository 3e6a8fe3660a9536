/**
 * The lean lanes (src/server/lanes.ts) answer exactly as yoga does. Suites run here again with
 * TEST_TRANSPORT=compare: each of their reads goes over real HTTP through the lanes and through
 * yoga alone, and the answers must match. The OpenAPI suite calls every route of the table with a
 * live sample (files too); the REST conventions, route, users, wallets, events and clients suites add
 * the refusals (401, 403, 404, 406, 304, bad query parameters, foreign ids) and GraphQL queries,
 * which the /graphql lane answers since yoga, sent each first, has validated their text. (Suites
 * that count SQL statements or requests cannot run here: each read is sent twice.)
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromRoot } from "../src/lib/paths.js";

process.env.TEST_TRANSPORT = "compare";
// the lanes are the same code on either database: the suites compare on the embedded one only
delete process.env.DATABASE_URL;
const { compared, startTestApp } = await import("./helpers/app.js");
const { routes } = await import("../src/rest/routes.js");
await import("./openapi.test.js");
await import("./rest-conventions.test.js");
await import("./routes.test.js");
await import("../src/domains/users/users.test.js");
await import("../src/domains/wallets/wallets.test.js");
await import("../src/domains/events/events.test.js");
await import("../src/domains/clients/clients.test.js");

describe("lanes", () => {
  it("every GET route of the table (v1 aside) was answered by the REST lane, as yoga answers it", () => {
    const laneRoutes = routes.filter((r) => r.method === "GET" && !r.successor);
    for (const route of laneRoutes) {
      const pattern = new RegExp(`^${route.path.replace(/\{\w+\}/g, "[^/]+")}/?(\\?|$)`);
      const calls = compared.filter((c) => c.method === "GET" && pattern.test(c.path));
      expect(calls.length, `GET ${route.path} compared`).toBeGreaterThan(0);
      expect(
        calls.some((c) => c.byLane),
        `GET ${route.path} answered by the lane`,
      ).toBe(true);
    }
  });

  it("the GraphQL queries of those suites were answered by the /graphql lane, as yoga answers them", () => {
    const queries = compared.filter((c) => c.method === "POST" && c.path === "/graphql");
    expect(queries.filter((c) => c.byLane).length).toBeGreaterThan(queries.length / 2);
  });
});

describe("the /graphql lane", () => {
  let t: Awaited<ReturnType<typeof startTestApp>>;
  let key: string;
  let userId: string;
  const USER = `query One($id: ID!) { user(id: $id) { id email firstName lastName status requirements { currentlyDue } createdAt } }`;
  const laneAnswers = async () => {
    const metric = await t.app.metrics.registry.getSingleMetric("http_lane_requests_total")?.get();
    return metric?.values.find((v) => v.labels.lane === "graphql")?.value ?? 0;
  };

  beforeAll(async () => {
    t = await startTestApp("pglite", { RATE_LIMIT_PER_MINUTE: "40" });
    key = (await t.createClient("Lane")).key;
    userId = (await t.rest("POST", "/v2/users", { key, body: { first_name: "Lia", last_name: "Ng", email: "lia@example.com" } })).body.user_id;
  });
  afterAll(() => t?.stop());

  it("answers a query yoga validated once, as yoga does", async () => {
    const before = await laneAnswers();
    const res = await t.gql(key, USER, { id: userId }); // compare: yoga first (validates), then the lane
    expect(res.status).toBe(200);
    expect(res.data.user).toMatchObject({ id: userId, firstName: "Lia" });
    expect(await laneAnswers()).toBe(before + 1);
  });

  it("errors alike: not found (with locations), bad variables (masked), a missing scope, a failure nobody expected", async () => {
    const before = await laneAnswers();
    const missing = await t.gql(key, USER, { id: "00000000-0000-4000-8000-000000000000" });
    expect(missing.errors?.[0]).toMatchObject({ extensions: { code: "NOT_FOUND" }, locations: [{ line: 1, column: 23 }] });
    const badVariable = await t.gql(key, USER, { id: { nested: "secret-value" } });
    expect(badVariable.errors?.[0].extensions.code).toBe("VALIDATION_FAILED");
    expect(JSON.stringify(badVariable.body)).not.toContain("secret-value");
    const lookupsOnly = (await t.createClient("Lookups", ["lookups:read"])).key;
    expect((await t.gql(lookupsOnly, USER, { id: userId })).errors?.[0].extensions.code).toBe("FORBIDDEN");
    const { inForce, inForceNow } = t.app.services.compliance;
    // a read asks the loaded rule book without waiting (inForceNow), else waits for it (inForce)
    t.app.services.compliance.inForceNow = () => {
      throw new Error("rule book broken: SELECT secret");
    };
    t.app.services.compliance.inForce = async () => {
      throw new Error("rule book broken: SELECT secret");
    };
    try {
      const broken = await t.gql(key, USER, { id: userId });
      expect(broken.errors?.[0].extensions).toMatchObject({ code: "INTERNAL" });
      expect(JSON.stringify(broken.body)).not.toContain("SELECT secret");
    } finally {
      Object.assign(t.app.services.compliance, { inForce, inForceNow });
    }
    expect(await laneAnswers()).toBe(before + 3); // the bad variables went to yoga: its 400 and wording
  });

  it("coerces variables as graphql-js does where the quick check cannot tell: an integer id is the lane's, a float or a missing one yoga's", async () => {
    const before = await laneAnswers();
    const integer = await t.gql(key, USER, { id: 12 }); // ID accepts an integer: coerced, then not found
    expect(integer.errors?.[0].extensions.code).not.toBe("VALIDATION_FAILED");
    expect(await laneAnswers()).toBe(before + 1);
    for (const variables of [{ id: 1.5 }, {}, { id: null }]) expect((await t.gql(key, USER, variables)).errors?.[0].extensions.code).toBe("VALIDATION_FAILED");
    expect(await laneAnswers()).toBe(before + 1);
  });

  it("leaves to yoga what it does not know: armour limits, a bad key, mutations, CORS, Idempotency-Key", async () => {
    const before = await laneAnswers();
    const deep = `{ user(id: "${userId}") { ${"requirements { errors { field } } ".repeat(1)} ${Array.from({ length: 20 }, (_, i) => `a${i}: firstName`).join(" ")} } }`;
    const refused = await t.gql(key, deep);
    expect(refused.errors?.[0].extensions.code).toBe("VALIDATION_FAILED");
    expect((await t.gql(key, deep)).errors?.[0].message).toBe(refused.errors?.[0].message); // refused again: never remembered
    expect((await t.gql("not-a-key", USER, { id: userId })).status).toBe(401);
    expect((await t.gql(key, `mutation { __typename }`)).status).toBeLessThan(500);
    const cors = await t.gql(key, USER, { id: userId }, { origin: "https://app.example" });
    expect(cors.headers.get("access-control-allow-origin")).toBe("https://app.example");
    await t.gql(key, USER, { id: userId }, { "idempotency-key": "lane-test-1" });
    expect(await laneAnswers()).toBe(before);
  });

  it("counts into the same rate limit as yoga, and refuses alike once it is spent", async () => {
    // spent by writes (each sent once), then one read compared: yoga and the lane both refuse it
    for (let i = 0; i < 40 && (await t.rest("POST", "/v2/users", { key, body: {} })).status !== 429; i++);
    const before = await laneAnswers();
    const refused = await t.gql(key, USER, { id: userId });
    expect(refused.status).toBe(429);
    expect(refused.errors?.[0].extensions.code).toBe("RATE_LIMITED");
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(await laneAnswers()).toBe(before + 1);
  });
});

describe("the REST lane's writes", () => {
  let t: Awaited<ReturnType<typeof startTestApp>>;
  let key: string;
  const restLaneAnswers = async () => {
    const metric = await t.app.metrics.registry.getSingleMetric("http_lane_requests_total")?.get();
    return metric?.values.find((v) => v.labels.lane === "rest")?.value ?? 0;
  };
  /** one write through the lanes' server (what a caller reaches) and, with its own body, through yoga alone */
  const both = async (method: string, path: (i: number) => string, body: (i: number) => unknown, headers: Record<string, string> = {}) => {
    const send = async (i: number, yogaOnly: boolean) => {
      const res = await fetch(`${yogaOnly ? t.servers!.yoga : t.servers!.lanes}${path(i)}`, {
        method,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
        body: typeof body(i) === "string" ? (body(i) as string) : JSON.stringify(body(i)),
      });
      const text = await res.text();
      return {
        status: res.status,
        headers: Object.fromEntries(
          [...res.headers].filter(([n]) => !["date", "etag", "x-request-id", "ratelimit-remaining", "ratelimit-reset", "content-length"].includes(n)),
        ),
        body: text ? JSON.parse(text) : null,
      };
    };
    return { lane: await send(1, false), yoga: await send(2, true) };
  };
  const masked = (body: any) =>
    JSON.parse(
      JSON.stringify(body ?? null)
        .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "…id")
        .replace(/"\d{4}-\d\d-\d\dT[^"]+"/g, '"…time"')
        .replace(/w-[12]@example\.com/g, "w-…@example.com"),
    );

  beforeAll(async () => {
    t = await startTestApp("pglite");
    key = (await t.createClient("Writer")).key;
  });
  afterAll(() => t?.stop());

  it("answers a sign-up, a refused body, malformed JSON and an update as yoga does, and leaves Idempotency-Key, forms and CORS to yoga", async () => {
    const before = await restLaneAnswers();
    const created = await both(
      "POST",
      () => "/v2/users",
      (i) => ({ first_name: "Wen", last_name: "Lane", email: `w-${i}@example.com` }),
    );
    expect(created.lane.status).toBe(201);
    expect({ ...created.lane, body: masked(created.lane.body) }).toEqual({ ...created.yoga, body: masked(created.yoga.body) });
    const refused = await both(
      "POST",
      () => "/v2/users",
      () => ({ first_name: "", email: "nope" }),
    );
    expect(refused.lane.status).toBe(400);
    expect({ ...refused.lane, body: masked(refused.lane.body) }).toEqual({ ...refused.yoga, body: masked(refused.yoga.body) });
    const malformed = await both(
      "POST",
      () => "/v2/users",
      () => "{not json",
    );
    expect({ ...malformed.lane, body: masked(malformed.lane.body) }).toEqual({ ...malformed.yoga, body: masked(malformed.yoga.body) });
    const id = created.lane.body.user_id;
    const updated = await both(
      "PUT",
      () => `/v2/users/${id}`,
      (i) => ({ last_name: `Lane ${i}` }),
    );
    expect(updated.lane.status).toBe(200);
    expect(updated.yoga.status).toBe(200);
    expect(await restLaneAnswers()).toBe(before + 4); // each lane-side write was the lane's
    await both(
      "POST",
      () => "/v2/users",
      (i) => ({ first_name: "Ida", last_name: "Key", email: `idem-${i}@example.com` }),
      { "idempotency-key": `lane-write-${Date.now()}` },
    );
    await both(
      "POST",
      () => "/v2/users",
      () => "first_name=Form&last_name=Body&email=form@example.com",
      { "content-type": "application/x-www-form-urlencoded" },
    );
    await both(
      "POST",
      () => "/v2/users",
      (i) => ({ first_name: "Cors", last_name: "Call", email: `cors-${i}@example.com` }),
      { origin: "https://app.example" },
    );
    expect(await restLaneAnswers()).toBe(before + 4);
  });

  it("answers the payout dry run (a query sent by POST) as yoga does: the payout, a 422 naming every problem, 404 and 400", async () => {
    const before = await restLaneAnswers();
    const shipped = JSON.parse(readFileSync(fromRoot("data", "remittance", "requirements.json"), "utf8")) as {
      corridor_id: string;
      examples: { body: object }[];
    }[];
    const payout = { corridor_id: "in-inr-bank", ...shipped.find((r) => r.corridor_id === "in-inr-bank")!.examples[0]!.body };
    const bodies = [
      payout,
      { ...payout, amount: 150_000_001, beneficiary: { first_name: "Priya", ifsc_code: "ZZZZ0000001", account_number: "12" } },
      { ...payout, corridor_id: "no-such-corridor" },
      { ...payout, amount: "a lot" },
    ];
    const statuses = [];
    for (const body of bodies) {
      const { lane, yoga } = await both(
        "POST",
        () => "/v2/payouts/remittances/beneficiaries/validate",
        () => body,
      );
      expect({ ...lane, body: masked(lane.body) }).toEqual({ ...yoga, body: masked(yoga.body) });
      statuses.push(lane.status);
    }
    expect(statuses).toEqual([200, 422, 404, 400]);
    expect(await restLaneAnswers()).toBe(before + bodies.length);
  });
});

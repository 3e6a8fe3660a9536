/** Table-driven over THE route table: every route is documented, needs a key, and hides other clients' objects. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLIENT_SCOPES, OPERATOR_ONLY, REVIEW_SCOPE } from "../src/principal.js";
import { schema } from "../src/graphql/schema.js";
import { compileRoutes, routes } from "../src/rest/routes.js";
import { ADMIN_KEY, backends, PNG_BASE64, startTestApp, type TestApp } from "./helpers/app.js";

const concrete = (path: string, id: string) => path.replace(/\{\w+\}/g, id);

/** a body the route would accept, so the answer is about the user, not the body */
const VALID_BODIES: Record<string, unknown> = { "/v2/users/{user_id}/checks": { type: "KYC" } };

describe("every REST route", () => {
  let t: TestApp;
  let owner: string;
  let stranger: string;
  let userId: string;
  beforeAll(async () => {
    t = await startTestApp();
    owner = (await t.createClient("Owner")).key;
    stranger = (await t.createClient("Stranger")).key;
    userId = (await t.rest("POST", "/v2/users", { key: owner, body: { first_name: "Own", last_name: "Ed", email: "owned@example.com" } })).body.user_id;
  });
  afterAll(() => t?.stop());

  it.each(routes.map((r) => [r.method, r.path, r] as const))("%s %s answers 401 without a key", async (method, path) => {
    const res = await t.rest(method, concrete(path, userId), { body: method === "POST" || method === "PUT" ? {} : undefined });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe("UNAUTHENTICATED");
  });

  it.each(routes.filter((r) => r.path.includes("{user_id}")).map((r) => [r.method, r.path] as const))(
    "%s %s answers 404 for another client's user",
    async (method, path) => {
      const res = await t.rest(method, concrete(path, userId), {
        key: stranger,
        body: method === "PUT" ? { first_name: "X" } : method === "POST" ? VALID_BODIES[path] : undefined,
      });
      expect(res.status).toBe(404);
    },
  );

  it.each(routes.filter((r) => r.scope === OPERATOR_ONLY).map((r) => [r.method, r.path] as const))(
    "%s %s answers 403 to a client key",
    async (method, path) => {
      const res = await t.rest(method, concrete(path, userId), { key: owner, body: method === "POST" ? { name: "x", mode: "LIVE" } : undefined });
      expect(res.status).toBe(403);
    },
  );

  it("has a summary, a scope and a unique method + path for each route", () => {
    const seen = new Set<string>();
    for (const r of routes) {
      expect(r.summary.length, r.path).toBeGreaterThan(3);
      expect([OPERATOR_ONLY, ...CLIENT_SCOPES], r.path).toContain(r.scope);
      const key = `${r.method} ${r.path}`;
      expect(seen.has(key), key).toBe(false);
      seen.add(key);
    }
  });
});

/** An id no client has: every route whose path names an object answers it 404, whatever the body or query holds. */
const UNKNOWN = "00000000-0000-4000-8000-000000000000";
/** path parameters that name a kind, not an object: a value of theirs that exists, so the id decides */
const KINDS: Record<string, string> = { receiving_institution_type: "bank" };
const withIds = (path: string, ids: Record<string, string>) => path.replace(/\{(\w+)\}/g, (_, name: string) => ids[name] ?? KINDS[name] ?? UNKNOWN);
const hasBody = (method: string) => method === "POST" || method === "PUT";
const naming = routes.filter((r) => typeof r.lookup === "function");
const keyFor = (scope: string) => (scope === OPERATOR_ONLY ? "operator" : scope === REVIEW_SCOPE ? "reviewer" : "client");

describe.each(backends)("an object a path names is looked up before the body is judged, on %s", (backend) => {
  let t: TestApp;
  const keys: Record<string, string> = {};
  /** objects of the client whose key is keys.client, by the path parameter that names them */
  const owned: Record<string, string> = {};
  beforeAll(async () => {
    t = await startTestApp(backend, { WEBHOOK_ALLOW_PRIVATE: "1" }); // the endpoint below is on 127.0.0.1, never called
    const client = await t.createClient("Looked up");
    keys.client = client.key;
    keys.operator = ADMIN_KEY;
    keys.stranger = (await t.createClient("Stranger")).key;
    keys.live = (await t.createClient("Live", undefined, "LIVE")).key;
    const reviewer = await t.rest("POST", `/admin/clients/${client.clientId}/reviewers`, { key: ADMIN_KEY, body: { name: "Rae", email: "rae@example.com" } });
    keys.reviewer = reviewer.body.api_key;
    const user = await t.rest("POST", "/v2/users", { key: client.key, body: { first_name: "Ana", last_name: "Lookup", email: "ana@example.com" } });
    owned.user_id = user.body.user_id;
    owned.check_id = (await t.rest("GET", `/v2/users/${owned.user_id}/checks`, { key: client.key })).body.data[0].check_id;
    const hook = await t.rest("POST", "/v2/webhooks", { key: client.key, body: { url: "http://127.0.0.1:9/hook", event_types: ["*"] } });
    owned.webhook_id = hook.body.webhook_id;
    const document = await t.rest("POST", "/v2/users/authentications/documents", {
      key: client.key,
      body: {
        user_id: owned.user_id,
        document_type: "PASSPORT",
        document_number: "E1234567",
        issuing_country: "SGP",
        issue_date: "2020-01-15",
        expiry_date: "2030-01-14",
        file: { file_name: "p.png", mime_type: "image/png", content_base64: PNG_BASE64 },
      },
    });
    owned.document_id = document.body.document_id;
    expect(Object.values(owned).every(Boolean), JSON.stringify(owned)).toBe(true);
  });
  afterAll(() => t?.stop());

  it("every route with a path parameter declares what it names, or that it narrows a list", () => {
    for (const r of routes.filter((r) => /\{\w+\}/.test(r.path)))
      expect(typeof r.lookup === "function" || (r.lookup === "filters" && r.list), r.path).toBe(true);
    const unnamed = { ...naming[0]!, lookup: undefined };
    expect(() => compileRoutes(schema, [unnamed])).toThrow(/names an object in its path without a lookup/);
  });

  it.each(naming.map((r) => [r.method, r.path, keyFor(r.scope)] as const))("%s %s: an unknown id is 404 (%s key)", async (method, path, who) => {
    const res = await t.rest(method, withIds(path, {}), { key: keys[who], body: hasBody(method) ? {} : undefined });
    expect(res.status, JSON.stringify(res.body)).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    // a query the route refuses is judged after the lookup too
    const queried = await t.rest(method, `${withIds(path, {})}?not_a_parameter=1`, { key: keys[who], body: hasBody(method) ? {} : undefined });
    expect(queried.status, JSON.stringify(queried.body)).toBe(404);
  });

  it.each(
    naming
      .filter((r) => r.path.match(/\{(\w+)\}/g)!.every((p) => p.slice(1, -1) in { user_id: 1, check_id: 1, webhook_id: 1, document_id: 1 }))
      .map((r) => [r.method, r.path] as const),
  )("%s %s: another client's object is 404 whatever the body", async (method, path) => {
    if (path.startsWith("/v2/checks/")) return; // the operator's route: every client's run is the operator's
    const res = await t.rest(method, withIds(path, owned), {
      key: keys.stranger,
      body: hasBody(method) ? {} : undefined,
      headers: { accept: "application/json" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(404);
  });

  it("a sandbox route finds nothing for a LIVE key, whatever the body", async () => {
    const res = await t.rest("POST", `/v2/sandbox/checks/${owned.check_id}/simulate`, { key: keys.live, body: {} });
    expect(res.status, JSON.stringify(res.body)).toBe(404);
  });

  it("a found object has its body judged: 400 naming the field", async () => {
    const res = await t.rest("POST", `/v2/sandbox/checks/${owned.check_id}/simulate`, { key: keys.client, body: {} });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ field: "status", code: "required" })]);
    const redeliver = await t.rest("POST", `/v2/webhooks/${owned.webhook_id}/redeliver`, { key: keys.client, body: {} });
    expect(redeliver.status).toBe(400);
    expect(redeliver.body.errors).toEqual([expect.objectContaining({ field: "event_id" })]);
  });

  it.each(routes.filter((r) => r.lookup === "filters").map((r) => [r.method, r.path] as const))(
    "%s %s: a filter naming nothing is an empty list",
    async (method, path) => {
      const res = await t.rest(
        method,
        path.replace(/\{\w*country\}/, "AQ").replace(/\{(\w+)\}/g, (_, name: string) => KINDS[name] ?? UNKNOWN),
        { key: keys.client },
      );
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data).toEqual([]);
    },
  );
});

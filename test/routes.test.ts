/** Table-driven over THE route table: every route is documented, needs a key, and hides other clients' objects. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLIENT_SCOPES, OPERATOR_ONLY } from "../src/principal.js";
import { routes } from "../src/rest/routes.js";
import { startTestApp, type TestApp } from "./helpers/app.js";

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

/** Malformed-input sweep over every REST route: no 500, always problem+json, and no partial rows. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routes } from "../../src/rest/routes.js";
import { ADMIN_KEY, startTestApp, type TestApp } from "../helpers/app.js";

/** Deterministic pseudo-random values (mulberry32) so a failure can be replayed. */
function random(seed: number) {
  return () => { seed |= 0; seed = (seed + 0x6d2b79f5) | 0; let t = Math.imul(seed ^ (seed >>> 15), 1 | seed); t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t; return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
}
const NASTY: unknown[] = [null, "", " ", "\u0000", "💥".repeat(50), "x".repeat(5000), -1, 0, 1e308, 2 ** 53, 3.14, true, [], [1, "a"], {}, { nested: { deep: [null] } },
  "2001-02-30", "+1", "not-an-email", "'; drop table users; --", "%", "_", "../../etc/passwd", "ZZZ", "phl", "MOBILE-WALLET"];
const FIELDS = ["first_name", "last_name", "email", "phone_number", "date_of_birth", "nationality", "country_of_residence", "tax_id", "locale",
  "residential_address", "billing_address", "external_id", "status", "name", "mode", "scopes", "unknown"];
const PARAMS = ["page", "records_per_page", "status", "search", "email", "receiving_institution_type", "sort_order", "sort_fields", "sort", "destination_country_code", "id"];

describe("malformed input sweep", () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp();
    key = (await t.createClient("Fuzz")).key;
  });
  afterAll(() => t?.stop());

  it.each([20261123, 7, 4242])("answers 500 to none of 600 malformed requests (seed %i), always as problem+json, and writes no user it did not answer 201 for", async (seed) => {
    const next = random(seed);
    const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)];
    const usersBefore = await t.db.user.count();
    let created = 0;
    const failures: string[] = [];
    for (let i = 0; i < 600; i++) {
      const route = pick(routes);
      const path = route.path.replace(/\{\w+\}/g, () => encodeURIComponent(String(pick(NASTY))));
      const query = new URLSearchParams(Array.from({ length: Math.floor(next() * 3) }, () => [pick(PARAMS), String(pick(NASTY))])).toString();
      const body = route.method === "POST" || route.method === "PUT"
        ? (next() < 0.15 ? '{"broken": ' : Object.fromEntries(Array.from({ length: 1 + Math.floor(next() * 4) }, () => [pick(FIELDS), pick(NASTY)])))
        : undefined;
      const res = await t.rest(route.method, `${path}${query ? `?${query}` : ""}`, { key: route.scope === "admin" ? ADMIN_KEY : key, body, headers: typeof body === "string" ? { "content-type": "application/json" } : {} });
      if (res.status === 201 && route.path === "/v2/users") created++;
      const shown = (v: unknown) => JSON.stringify(v)?.slice(0, 160);
      if (res.status >= 500) failures.push(`${route.method} ${path.slice(0, 120)}?${query.slice(0, 80)} ${shown(body)} → ${res.status}`);
      else if (res.status >= 400 && res.status !== 405 && res.headers.get("content-type") !== "application/problem+json") failures.push(`${route.method} ${path} → ${res.status} not problem+json`);
    }
    expect(failures).toEqual([]);
    expect(await t.db.user.count()).toBe(usersBefore + created);
  }, 120_000);
});

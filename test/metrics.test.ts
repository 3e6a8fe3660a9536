import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routes } from "../src/rest/routes.js";
import { ADMIN_KEY, startTestApp, type TestApp } from "./helpers/app.js";
import { freePort } from "./helpers/ports.js";

/** The label values of one label across the http_requests_total lines of a scrape. */
const labelValues = (text: string, label: string) =>
  new Set([...text.matchAll(new RegExp(`^http_requests_total\\{[^}]*${label}="([^"]*)"`, "gm"))].map((m) => m[1]));

describe("metrics labels", () => {
  let t: TestApp;
  let key: string;
  let base: string;
  beforeAll(async () => {
    t = await startTestApp("pglite", { RATE_LIMIT_PER_MINUTE: "0" });
    key = (await t.createClient("Labels")).key;
    base = `http://127.0.0.1:${await t.app.start(0, "127.0.0.1")}`;
  });
  afterAll(() => t?.stop());

  it("labels made-up paths with one label and route paths with their template, however many paths callers make up", async () => {
    const made = Array.from({ length: 2000 }, (_, i) => `/made-up-${i}/x${i}/y`);
    for (let i = 0; i < made.length; i += 50)
      await Promise.all(
        made.slice(i, i + 50).map(async (path, j) => {
          // without a key (401), with one (404), under a real prefix, with an odd method
          const res = await t.app.fetch(j % 5 === 4 ? `/v2/nowhere-${i + j}/z` : path, {
            method: j % 7 === 6 ? "PROPFIND" : "GET",
            headers: j % 2 ? { authorization: `Bearer ${key}` } : {},
          });
          await res.arrayBuffer();
        }),
      );
    // through the lean lane too: a route's path with made-up ids, without a key
    for (let i = 0; i < 20; i++) expect((await fetch(`${base}/v2/users/made-up-${i}`)).status).toBe(401);
    expect((await t.rest("GET", "/v2/users", { key })).status).toBe(200);
    const text = await (await t.app.fetch("/metrics")).text();
    const routeLabels = labelValues(text, "route");
    const allowed = new Set([...routes.map((r) => r.path), "/", "/graphql", "/healthz", "/readyz", "/metrics", "/openapi.json", "/docs", "unmatched"]);
    expect([...routeLabels].filter((r) => !allowed.has(r))).toEqual([]);
    expect(routeLabels.size).toBeLessThan(10);
    expect(routeLabels).toContain("unmatched");
    expect(routeLabels).toContain("/v2/users/{user_id}");
    expect(routeLabels).toContain("/v2/users");
    expect([...labelValues(text, "method")].sort()).toEqual(["GET", "POST", "other"]);
    expect(text.length).toBeLessThan(100_000);
  }, 120_000);
});

describe("/metrics in production", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp("pglite", { NODE_ENV: "production", LOG_LEVEL: "silent" });
  });
  afterAll(() => t?.stop());

  it("answers the operator key only: 401 without a key, 403 for a client's key", async () => {
    const none = await t.rest("GET", "/metrics");
    expect(none.status).toBe(401);
    expect(none.body.code).toBe("UNAUTHENTICATED");
    const { key } = await t.createClient("Scraper");
    expect((await t.rest("GET", "/metrics", { key })).status).toBe(403);
    const operator = await t.app.fetch("/metrics", { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    expect(operator.status).toBe(200);
    expect(await operator.text()).toContain("http_requests_total");
  });

  it("with METRICS_PORT serves /metrics on that port alone, not on the API's", async () => {
    const port = await freePort();
    const own = await startTestApp("pglite", { NODE_ENV: "production", LOG_LEVEL: "silent", METRICS_PORT: String(port) });
    try {
      await own.app.start(0, "127.0.0.1");
      const scraped = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(scraped.status).toBe(200);
      expect(await scraped.text()).toContain("process_cpu_user_seconds_total");
      expect((await fetch(`http://127.0.0.1:${port}/v2/users`)).status).toBe(404);
      expect((await own.app.fetch("/metrics", { headers: { authorization: `Bearer ${ADMIN_KEY}` } })).status).toBe(404);
    } finally {
      await own.stop();
    }
    await expect(startTestApp("pglite", { METRICS_PORT: "http" })).rejects.toThrow(/^METRICS_PORT/);
  });
});

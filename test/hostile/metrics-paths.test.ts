/**
 * Class 3: 20,000 distinct made-up paths without a key, then one /metrics scrape. Route labels come
 * from the route table only (unknown paths share one label), so the scrape stays small; and in
 * production /metrics answers only the operator key.
 */
import { describe, expect, it } from "vitest";
import { madeUpPaths, routeLabels } from "./helpers/attacks.js";
import { MiB, useService } from "./helpers/service.js";

const service = useService({ NODE_ENV: "production" });

describe("made-up paths and /metrics", () => {
  it("in production /metrics without a key is 401", async () => {
    const s = await service();
    const scrape = await s.call("GET", "/metrics", { key: null });
    expect(scrape.status, `GET /metrics without a key answered ${scrape.text.length} bytes`).toBe(401);
  });

  it("20,000 made-up paths without a key: the operator's scrape is 200, under 1 MB, under 100 route labels; alive", async () => {
    const s = await service();
    const statuses = await s.guard("20,000 made-up paths", madeUpPaths(s.base, 20_000, 50), 180_000);
    const scrape = await s.call("GET", "/metrics", { key: s.adminKey, ms: 60_000 });
    const labels = routeLabels(scrape.text);
    console.log(
      `made-up paths answered ${JSON.stringify(statuses)}; scrape ${scrape.status}, ${(scrape.text.length / MiB).toFixed(2)} MiB, ${labels.size} route labels`,
    );
    await s.alive();
    expect(scrape.status).toBe(200);
    expect(scrape.text.length, "scrape size").toBeLessThan(1_000_000);
    expect(labels.size, `route labels, e.g. ${[...labels].slice(0, 5).join(", ")}`).toBeLessThan(100);
  });
});

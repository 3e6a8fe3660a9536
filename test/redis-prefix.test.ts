/** Two deployments on one Redis: each hears only its own events and counts only its own rate limits. */
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { deploymentId } from "../src/db/deployment.js";
import { within } from "./helpers/eventually.js";
import { startTestApp, type TestApp } from "./helpers/app.js";

const redisUrl = process.env.REDIS_URL;

/** The `credentials.changed` events an app hears, by client id. */
function listen(t: TestApp) {
  const heard = new Set<string>();
  const changes = t.app.services.events.subscribe("credentials.changed");
  void (async () => {
    for await (const change of changes) heard.add(change.clientId);
  })();
  return { heard, stop: () => changes.return?.() };
}

/** Publishes from each speaker in turn; resolves once `control` has heard the last one (later than all the others, on the same Redis). */
async function speak(speakers: TestApp[], control: ReturnType<typeof listen>) {
  const ids = speakers.map(() => randomBytes(8).toString("hex"));
  for (const [i, t] of speakers.entries()) {
    t.app.services.events.publish("credentials.changed", { clientId: ids[i] });
    await new Promise((r) => setTimeout(r, 200));
  }
  await within("the control instance hears the last event", () => control.heard.has(ids.at(-1)!), Boolean);
  return ids;
}

describe.runIf(redisUrl)("Redis prefix (REDIS_PREFIX)", () => {
  const apps: TestApp[] = [];
  const start = async (env: Record<string, string> = {}) => {
    const t = await startTestApp("pglite", { REDIS_URL: redisUrl!, ...env });
    apps.push(t);
    return t;
  };
  afterAll(async () => {
    for (const t of apps) await t.stop();
  });
  const run = randomBytes(4).toString("hex");

  it("keeps two deployments with different prefixes apart, and joins instances with the same one", async () => {
    const [a, b, a2] = [
      await start({ REDIS_PREFIX: `og-test-${run}-a:` }),
      await start({ REDIS_PREFIX: `og-test-${run}-b:` }),
      await start({ REDIS_PREFIX: `og-test-${run}-a:` }),
    ];
    const [onA, onB, onA2] = [listen(a), listen(b), listen(a2)];
    await new Promise((r) => setTimeout(r, 200)); // the subscriptions are in place
    const [fromB, fromA] = await speak([b, a], onA2);
    expect(onA2.heard).toEqual(new Set([fromA]));
    expect(onB.heard).toEqual(new Set([fromB])); // its own, delivered in the process
    expect(onA.heard).toEqual(new Set([fromA]));
    for (const l of [onA, onB, onA2]) await l.stop();
  }, 90_000);

  it("by default keeps apart deployments on different databases: the prefix is the deployment's id", async () => {
    const [one, other] = [await start(), await start()];
    const twin = await start({ REDIS_PREFIX: `og:${await deploymentId(one.db)}:` }); // an instance of one's deployment
    const [onOther, onTwin] = [listen(other), listen(twin)];
    await new Promise((r) => setTimeout(r, 200));
    const [fromOne] = await speak([one], onTwin);
    expect(onTwin.heard).toEqual(new Set([fromOne]));
    expect(onOther.heard).toEqual(new Set());
    for (const l of [onOther, onTwin]) await l.stop();
  }, 90_000);

  it("puts the rate limit's counters under the prefix", async () => {
    const prefix = `og-test-${run}-rl:`;
    const t = await start({ REDIS_PREFIX: prefix });
    const { key } = await t.createClient("Counted");
    expect((await t.rest("GET", "/v2/users", { key })).status).toBe(200);
    const redis = new Redis(redisUrl!);
    try {
      const keys = await redis.keys(`${prefix}*`);
      expect(keys.length).toBeGreaterThan(0);
      expect(keys.every((k) => k.startsWith(`${prefix}og:rl:`))).toBe(true);
    } finally {
      redis.disconnect();
    }
  }, 60_000);

  it("refuses a REDIS_PREFIX with spaces naming the variable", async () => {
    await expect(startTestApp("pglite", { REDIS_PREFIX: "two words" })).rejects.toThrow(/^REDIS_PREFIX/);
  });
});

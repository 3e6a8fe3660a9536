import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { createLogger } from "./logger.js";
import { createRedis } from "./redis.js";

const url = process.env.REDIS_URL;

describe.runIf(url)("redis connections", () => {
  it("keeps every subscription made while the connection is being made", async () => {
    const prefix = `og-test-${randomBytes(4).toString("hex")}:`;
    const redis = createRedis(url!, createLogger("silent"), prefix);
    const topics: string[] = [];
    let ready = false;
    void redis.ready(10_000).then(() => {
      ready = true;
    });
    // one subscription every millisecond from start to ready: some go out while the connection is being made
    while (!ready) {
      topics.push(`topic-${topics.length}`);
      redis.pubsub.subscribe.subscribe(topics.at(-1)!);
      await new Promise((r) => setTimeout(r, 1));
    }
    const check = new Redis(url!);
    try {
      let counts: unknown[] = [];
      for (const until = Date.now() + 5000; Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
        counts = (await check.pubsub("NUMSUB", ...topics.map((t) => prefix + t))).filter((_, i) => i % 2 === 1);
        if (counts.every((n) => n === 1)) break;
      }
      expect(counts).toEqual(topics.map(() => 1));
    } finally {
      check.disconnect();
      redis.disconnect();
    }
  });
});

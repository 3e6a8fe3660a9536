import { describe, expect, it } from "vitest";
import { createTtlCache } from "./ttl-cache.js";

/** a computation the test finishes by hand, counting how often it was started */
function controlled<V>() {
  let started = 0;
  const pending: { resolve: (v: V) => void; reject: (e: Error) => void }[] = [];
  const compute = () => {
    started += 1;
    return new Promise<V>((resolve, reject) => {
      pending.push({ resolve, reject });
    });
  };
  return { compute, pending, started: () => started };
}
const tick = () => new Promise((r) => setImmediate(r));

describe("ttl cache", () => {
  it("computes a key once for everyone who misses it while it is being computed, then keeps it", async () => {
    const cache = createTtlCache<string>(10);
    const c = controlled<string>();
    const asks = [cache.fill("k", 60_000, c.compute)];
    await tick();
    asks.push(cache.fill("k", 60_000, c.compute), cache.fill("k", 60_000, c.compute));
    c.pending[0].resolve("v");
    expect(await Promise.all(asks)).toEqual(["v", "v", "v"]);
    expect(c.started()).toBe(1);
    expect(cache.get("k")).toBe("v");
  });

  it("keeps nothing that a clear overtook, and computes afresh after it", async () => {
    const cache = createTtlCache<string>(10);
    const c = controlled<string>();
    const before = cache.fill("k", 60_000, c.compute);
    cache.clear();
    const after = cache.fill("k", 60_000, c.compute); // does not wait for the one the clear overtook
    c.pending[0].resolve("old");
    expect(await before).toBe("old");
    expect(cache.get("k")).toBeUndefined();
    c.pending[1].resolve("new");
    expect(await after).toBe("new");
    expect(cache.get("k")).toBe("new");
  });

  it("lets a waiter compute its own when the shared computation failed or is not one to keep", async () => {
    const cache = createTtlCache<{ status: number; who: string }>(10);
    const keep = (v: { status: number }) => v.status === 200;
    const failing = controlled<{ status: number; who: string }>();
    const first = cache.fill("e", 60_000, failing.compute, keep);
    const waiter = cache.fill("e", 60_000, async () => ({ status: 200, who: "waiter" }), keep);
    failing.pending[0].reject(new Error("first failed"));
    await expect(first).rejects.toThrow("first failed");
    expect(await waiter).toEqual({ status: 200, who: "waiter" });

    const refused = controlled<{ status: number; who: string }>();
    const one = cache.fill("r", 60_000, refused.compute, keep);
    const two = cache.fill("r", 60_000, async () => ({ status: 400, who: "two" }), keep);
    refused.pending[0].resolve({ status: 400, who: "one" });
    expect([(await one).who, (await two).who]).toEqual(["one", "two"]);
    expect(cache.get("r")).toBeUndefined();
  });

  it("tells a kept null from a miss, forgets what expired and drops the oldest when full", async () => {
    const cache = createTtlCache<string | null>(2);
    await cache.fill("unknown", 60_000, async () => null);
    expect(cache.get("unknown")).toBeNull();
    expect(cache.get("never")).toBeUndefined();
    await cache.fill("brief", -1, async () => "gone");
    expect(cache.get("brief")).toBeUndefined();
    await cache.fill("a", 60_000, async () => "a");
    await cache.fill("b", 60_000, async () => "b");
    expect([cache.get("unknown"), cache.get("a"), cache.get("b")]).toEqual([undefined, "a", "b"]);
  });
});

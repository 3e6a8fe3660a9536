import { contextCacheSymbol, createContextCache } from "@pothos/core";
import { describe, expect, it } from "vitest";
import { OPERATOR, requestContext, withRequestContext, type Services } from "./context.js";

const services = {} as Services;

describe("a request's context (Pothos's per-request caches)", () => {
  it("keys Pothos's caches by a key of its own, which withRequestContext lets go of once the execution settles, even when it throws", async () => {
    const cache = createContextCache(() => ({}));
    const plain = requestContext(services, OPERATOR, "r0");
    expect(cache(plain)).toBe(cache(plain)); // one cache per request
    let seen: object | undefined;
    const answer = await withRequestContext(services, OPERATOR, "r1", async (ctx) => {
      expect((ctx as Record<symbol, unknown>)[contextCacheSymbol]).toBeTypeOf("object");
      seen = ctx;
      return cache(ctx);
    });
    expect((seen as Record<symbol, unknown>)[contextCacheSymbol]).toBeUndefined();
    expect(cache(seen!)).not.toBe(answer); // the request's caches are out of reach
    let failed: object | undefined;
    await expect(withRequestContext(services, OPERATOR, "r2", async (ctx) => { failed = ctx; throw new Error("boom"); })).rejects.toThrow("boom");
    expect((failed as Record<symbol, unknown>)[contextCacheSymbol]).toBeUndefined();
  });
});

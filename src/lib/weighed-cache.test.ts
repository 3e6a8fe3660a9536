import { parse } from "graphql";
import { describe, expect, it } from "vitest";
import { createWeighedCache, parsedBytes } from "./weighed-cache.js";

describe("a cache weighed in bytes", () => {
  const byLength = (key: string, value: string) => key.length + value.length;

  it("lets the least recently used go while the total is over its bytes", () => {
    const cache = createWeighedCache<string>({ maxBytes: 25, maxEntryBytes: 25, weigh: byLength });
    cache.set("a", "123456789");
    cache.set("b", "123456789");
    cache.get("a");
    cache.set("c", "123456789");
    expect([cache.get("a"), cache.get("b"), cache.get("c")]).toEqual(["123456789", undefined, "123456789"]);
    expect(cache.bytes).toBe(20);
  });

  it("never keeps, nor looks up, what weighs more than one entry may", () => {
    const cache = createWeighedCache<string>({ maxBytes: 1000, weigh: byLength });
    cache.set("small", "x");
    cache.set("large", "x".repeat(100));
    cache.set("y".repeat(100), "x");
    expect([cache.size, cache.bytes, cache.get("large"), cache.get("small")]).toEqual([1, 6, undefined, "x"]);
  });

  it("holds no more entries than it is told, whatever they weigh", () => {
    const cache = createWeighedCache<string>({ maxBytes: 1000, maxEntries: 2, weigh: () => 0 });
    for (const key of ["a", "b", "c"]) cache.set(key, key);
    expect([cache.get("a"), cache.size]).toEqual([undefined, 2]);
  });

  it("weighs a parsed document by its tokens: a dense text far above its length, a padded one near it", () => {
    const dense = `{ ${"__typename ".repeat(1000)}}`;
    const padded = `{ __typename${" ".repeat(100_000)}}`;
    expect(parsedBytes(dense, parse(dense))).toBeGreaterThan(1000 * 500);
    expect(parsedBytes(padded, parse(padded))).toBeLessThan(2 * padded.length + 10_000);
    expect(parsedBytes(padded, new Error("syntax"))).toBeGreaterThan(2 * padded.length);
  });
});

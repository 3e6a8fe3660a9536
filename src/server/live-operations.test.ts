import { describe, expect, it } from "vitest";
import { within } from "../../test/helpers/eventually.js";
import type { Principal } from "../principal.js";
import type { Authenticator } from "../domains/clients/clients.service.js";
import { createEventBus } from "../platform/bus.js";
import { createLiveOperations, endable, isSlot } from "./live-operations.js";

const principal = (keyId: string, clientId = `client-${keyId}`): Principal => ({ kind: "client", clientId, keyId, mode: "SANDBOX", scopes: new Set() });

/** An authenticator over a table of keys that the test changes, as the database would be. */
function keyTable(keys: Record<string, Principal>) {
  let forgotten = 0;
  const auth = {
    authenticate: async (key: string) => keys[key] ?? null,
    forget: () => {
      forgotten += 1;
    },
  } as Authenticator;
  return { auth, keys, forgotten: () => forgotten };
}

describe("live operations", () => {
  it("counts slots per key, per socket and in all, and gives them back once", () => {
    const { auth } = keyTable({});
    const live = createLiveOperations({ limits: { perKey: 2, perSocket: 1, total: 3 }, auth, events: createEventBus() });
    const socket = {};
    const a = live.admit(principal("a"), socket);
    expect(isSlot(a)).toBe(true);
    expect(live.admit(principal("a"), socket)).toMatchObject({ code: "RATE_LIMITED" });
    const a2 = live.admit(principal("a"));
    expect(live.admit(principal("a"))).toMatchObject({ code: "RATE_LIMITED", retryAfter: 30 });
    live.admit(principal("b"));
    expect(live.admit(principal("c"))).toMatchObject({ code: "UNAVAILABLE" });
    if (!isSlot(a2)) throw new Error("not admitted");
    a2.release();
    a2.release();
    expect(live.held("a")).toBe(1);
    live.releaseSocket(socket);
    expect([live.held("a"), live.held()]).toEqual([0, 1]);
    live.stop();
  });

  it("ends what a key opened when the event says its client's keys changed, and nothing else", async () => {
    const table = keyTable({ k1: principal("1", "c1"), k2: principal("2", "c2") });
    const events = createEventBus();
    const live = createLiveOperations({ limits: { perKey: 9, perSocket: 9, total: 9 }, auth: table.auth, events, recheckMs: 60_000 });
    const ended: string[] = [];
    live.watch("k1", principal("1", "c1"), () => ended.push("k1"));
    live.watch("k2", principal("2", "c2"), () => ended.push("k2"));
    delete table.keys.k1;
    events.publish("credentials.changed", { clientId: "c1" });
    await within(
      "k1 ended",
      () => ended,
      (e) => e.includes("k1"),
      2000,
      10,
    );
    expect(table.forgotten()).toBeGreaterThan(0); // the re-check did not read a principal cached before the change
    events.publish("credentials.changed", { clientId: "c2" });
    await new Promise((r) => setTimeout(r, 50));
    expect(ended).toEqual(["k1"]);
    live.stop();
  });

  it("finds a change no event announced (another process without Redis) on the timer's next round", async () => {
    const table = keyTable({ k1: principal("1"), k2: principal("2") });
    const live = createLiveOperations({ limits: { perKey: 9, perSocket: 9, total: 9 }, auth: table.auth, events: createEventBus(), recheckMs: 50 });
    const ended: string[] = [];
    live.watch("k1", principal("1"), () => ended.push("k1"));
    const unwatch = live.watch("k2", principal("2"), () => ended.push("k2"));
    unwatch();
    delete table.keys.k1;
    delete table.keys.k2;
    await within(
      "k1 ended",
      () => ended,
      (e) => e.includes("k1"),
      2000,
      10,
    );
    await new Promise((r) => setTimeout(r, 120));
    expect(ended).toEqual(["k1"]); // once, and not what is no longer watched
    live.stop();
  });
});

describe("endable", () => {
  async function* ticks() {
    for (let n = 0; ; n++) {
      yield n;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it("ends a waiting next with the last value, then done, and runs onEnd once", async () => {
    let ends = 0;
    const never = {
      [Symbol.asyncIterator]: () => ({
        next: () => new Promise<IteratorResult<number>>(() => {}),
        return: async () => ({ done: true as const, value: undefined }),
      }),
    };
    const stream = endable<number>(never, () => {
      ends += 1;
    });
    const waiting = stream.iterator.next();
    stream.end(-1);
    expect(await waiting).toEqual({ done: false, value: -1 });
    expect(await stream.iterator.next()).toEqual({ done: true, value: undefined });
    await stream.iterator.return!();
    expect(ends).toBe(1);
  });

  it("runs onEnd when the source finishes, fails or the caller returns", async () => {
    let ends = 0;
    const finite = endable(
      (async function* () {
        yield 1;
      })(),
      () => {
        ends += 1;
      },
    );
    for await (const _ of finite.iterator) {
      /* read to the end */
    }
    const failing = endable(
      // biome-ignore lint/correctness/useYield: a source that fails before its first value
      (async function* () {
        throw new Error("source failed");
      })(),
      () => {
        ends += 1;
      },
    );
    await expect(failing.iterator.next()).rejects.toThrow("source failed");
    const left = endable(ticks(), () => {
      ends += 1;
    });
    expect((await left.iterator.next()).value).toBe(0);
    await left.iterator.return!();
    expect(ends).toBe(3);
  });
});

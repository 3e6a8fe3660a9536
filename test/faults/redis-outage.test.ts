/**
 * Redis stopped under load (a private redis-server, see helpers/services.ts), with two instances on
 * one PostgreSQL: REST and GraphQL keep serving, /readyz says Redis is down and then up again,
 * subscriptions on one instance keep working, and cross-instance fan-out resumes when Redis is back.
 */
import { createClient, type Client } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { atMost, startPostgres, startRedis, type PrivatePostgres, type PrivateRedis } from "./helpers/services.js";
import { within } from "../helpers/eventually.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const SUBSCRIPTION = `subscription($id: ID!) { userStatusChanged(userId: $id) { id status } }`;

type Instance = { t: TestApp; base: string; ws: string };

const until = async <T>(what: string, probe: () => Promise<T | null | undefined | false>, ms = 15_000): Promise<T> =>
  (await within(what, probe, Boolean, ms, 200)) as T;

/** Mixed reads and writes, REST and GraphQL, on both instances; every answer recorded. */
function mixedLoad(instances: Instance[], key: string) {
  const failures: string[] = [];
  let count = 0;
  let running = true;
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const requests = [
    (base: string, i: number) =>
      fetch(`${base}/v2/users`, {
        method: "POST",
        headers,
        body: JSON.stringify({ first_name: "Red", last_name: "Load", email: `redis-${i}@example.com` }),
        signal: AbortSignal.timeout(10_000),
      }),
    (base: string) => fetch(`${base}/v2/users?records_per_page=2`, { headers, signal: AbortSignal.timeout(10_000) }),
    (base: string) =>
      fetch(`${base}/graphql`, {
        method: "POST",
        headers,
        body: JSON.stringify({ query: "{ users(first: 2) { totalCount } }" }),
        signal: AbortSignal.timeout(10_000),
      }),
  ];
  const loops = Array.from({ length: 6 }, async (_, w) => {
    while (running) {
      const i = count++;
      const base = instances[w % instances.length].base;
      try {
        const res = await requests[i % requests.length](base, i);
        const text = await res.text();
        const graphqlErrors = res.url.endsWith("/graphql") && JSON.parse(text).errors;
        if (res.status >= 300 || graphqlErrors) failures.push(`${res.status} ${text.slice(0, 200)}`);
      } catch (error) {
        failures.push(String(error));
      }
    }
  });
  return {
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return { count, failures };
    },
  };
}

/** One graphql-ws connection to an instance; `watch` collects a user's status events. */
function subscriber(instance: Instance, key: string) {
  const client: Client = createClient({ url: instance.ws, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${key}` }, retryAttempts: 0 });
  return {
    client,
    watch(userId: string) {
      const events: string[] = [];
      client.subscribe(
        { query: SUBSCRIPTION, variables: { id: userId } },
        {
          next: (r: any) => events.push(r.data?.userStatusChanged?.status ?? JSON.stringify(r.errors)),
          error: (e) => events.push(`error ${JSON.stringify(e)}`),
          complete: () => {},
        },
      );
      return events;
    },
  };
}

describe("Redis stopped during load, two instances", () => {
  let pg: PrivatePostgres;
  let redis: PrivateRedis;
  let a: Instance;
  let b: Instance;
  let key: string;
  let load: ReturnType<typeof mixedLoad> | null = null;
  const clients: Client[] = [];
  beforeAll(async () => {
    pg = await startPostgres();
    redis = await startRedis();
    const env = { DATABASE_URL: pg.url, DATABASE_SCHEMA: "faults", REDIS_URL: redis.url, RATE_LIMIT_PER_MINUTE: "0" };
    const start = async (t: TestApp): Promise<Instance> => {
      const port = await t.app.start(0, "127.0.0.1");
      return { t, base: `http://127.0.0.1:${port}`, ws: `ws://127.0.0.1:${port}/graphql` };
    };
    a = await start(await startTestApp("pglite", env));
    b = await start(await startTestApp("pglite", env));
    key = (await a.t.createClient("Redis outage")).key;
  });
  afterAll(async () => {
    try {
      await atMost(load?.stop() ?? Promise.resolve(), 12_000);
      for (const c of clients) await atMost(Promise.resolve(c.dispose()), 2_000);
      if (b) await atMost(b.t.app.stop());
      if (a) await atMost(a.t.app.stop());
    } finally {
      await redis?.destroy();
      pg?.destroy();
    }
  });

  const newUser = async (on: Instance, name: string) => {
    const res = await on.t.rest("POST", "/v2/users", { key, body: { first_name: "Sub", last_name: name, email: `${name}@example.com` } });
    expect(res.status).toBe(201);
    return res.body.user_id as string;
  };
  const close = async (on: Instance, userId: string) =>
    expect((await on.t.rest("PUT", `/v2/users/${userId}`, { key, body: { status: "CLOSED" } })).status).toBe(200);
  const readyz = async (on: Instance) => {
    const res = await fetch(`${on.base}/readyz`);
    return { status: res.status, body: await res.json() };
  };

  it("keeps serving, reports Redis down then up, delivers on one instance throughout, and resumes fan-out across instances", async () => {
    const onA = subscriber(a, key);
    clients.push(onA.client);
    // fan-out works before the fault
    const before = await newUser(a, "before");
    const heardBefore = onA.watch(before);
    await sleep(300);
    await close(b, before);
    await until("an event from b reaching a subscriber on a", async () => heardBefore.length > 0);
    // users whose closing (on b) will probe the fan-out after Redis returns
    const probes = await Promise.all(Array.from({ length: 10 }, (_, i) => newUser(a, `probe${i}`)));
    const heardProbes = probes.map((id) => onA.watch(id));
    const local = await newUser(a, "local");
    const heardLocal = onA.watch(local);
    await sleep(300);

    load = mixedLoad([a, b], key);
    await sleep(1000);
    await redis.stop();
    const outage = await until(
      "/readyz reporting Redis down",
      async () => {
        const r = await readyz(a);
        return r.status === 503 && r;
      },
      10_000,
    );
    expect(outage.body.checks).toEqual({ database: "ok", redis: "unavailable" });
    // a change on a reaches a's own subscriber without Redis
    await close(a, local);
    await until("a subscriber on the same instance hearing a change while Redis is down", async () => heardLocal.includes("CLOSED"), 5_000);
    await sleep(1000);

    await redis.start();
    const back = await until("/readyz reporting Redis back", async () => {
      const r = await readyz(a);
      return r.status === 200 && r;
    });
    expect(back.body.checks).toEqual({ database: "ok", redis: "ok" });
    expect((await readyz(b)).status).toBe(200);
    // fan-out resumes: close probe users on b one by one until a's subscriber hears one
    let resumedAfter = -1;
    for (let i = 0; i < probes.length && resumedAfter < 0; i++) {
      await close(b, probes[i]);
      try {
        await until("", async () => heardProbes[i].includes("CLOSED"), 1000);
        resumedAfter = i;
      } catch {
        /* not yet resubscribed */
      }
    }
    const { count, failures } = await load.stop();
    load = null;
    console.log(`redis outage: ${count} requests on two instances, ${failures.length} failed; fan-out resumed on probe ${resumedAfter}`);
    expect(failures.slice(0, 5)).toEqual([]);
    expect(resumedAfter, "no change on b reached a's subscriber after Redis came back").toBeGreaterThanOrEqual(0);
  });
});

/**
 * PostgreSQL restarted under a write load (a private cluster, see helpers/services.ts): every write
 * acknowledged with 2xx survives, requests during the outage get 503 UNAVAILABLE with Retry-After
 * (never a 500, never a hang past 10 s), and the service recovers by itself.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { acknowledged, summary, writeLoad, type Outcome } from "./helpers/load.js";
import { atMost, startPostgres, type PrivatePostgres } from "./helpers/services.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const LEAK = /Prisma|invocation|\bat [\w.<>]+ \(|\.ts:\d+|ECONN|Connection terminated|57P0|postgres|127\.0\.0\.1|select |insert /i;

/** A refused write must be exactly the outage answer: 503, code UNAVAILABLE, Retry-After, no driver text. */
function outageAnswerProblems(outcomes: Outcome[]) {
  return outcomes
    .filter((o) => !acknowledged(o))
    .flatMap((o) => {
      const code = o.via === "rest" ? o.body?.code : o.body?.errors?.[0]?.extensions?.code;
      const problems = [
        o.status !== 503 && `status ${o.status}${o.error ? ` (${o.error})` : ""}`,
        code !== "UNAVAILABLE" && `code ${code}`,
        !o.headers?.get("retry-after") && "no Retry-After",
        o.via === "rest" && !o.headers?.get("content-type")?.includes("application/problem+json") && "not problem+json",
        LEAK.test(JSON.stringify(o.body)) && "driver text in the body",
      ].filter(Boolean);
      return problems.length ? [`${o.via} ${problems.join(", ")}: ${JSON.stringify(o.body)?.slice(0, 300)}`] : [];
    });
}

describe("PostgreSQL restarted during a write load", () => {
  let pg: PrivatePostgres;
  let t: TestApp;
  let base: string;
  let key: string;
  beforeAll(async () => {
    pg = await startPostgres();
    // "pglite" only tells the helper not to drop a schema on the shared server: DATABASE_URL points at the private cluster
    t = await startTestApp("pglite", { DATABASE_URL: pg.url, DATABASE_SCHEMA: "faults", REDIS_URL: "", RATE_LIMIT_PER_MINUTE: "0" });
    base = `http://127.0.0.1:${await t.app.start(0, "127.0.0.1")}`;
    key = (await t.createClient("Load")).key;
  });
  afterAll(async () => {
    try {
      if (t) await atMost(t.app.stop());
    } finally {
      pg?.destroy();
    }
  });

  /** Runs the write load around `fault`, then checks what every request got and what the database kept. */
  async function underLoad(name: string, fault: () => Promise<{ down: number; up: number }>) {
    const load = writeLoad(base, key, { workers: 8, tag: name });
    await sleep(1500);
    const { down, up } = await fault();
    // recovery by itself: the same process, the same pool, acknowledged writes again
    let recovered = 0;
    for (const until = Date.now() + 20_000; !recovered && Date.now() < until; await sleep(100))
      if (load.outcomes.some((o) => o.at > up && acknowledged(o))) recovered = Date.now();
    await sleep(1000);
    const outcomes = await load.stop();
    console.log(
      `${name}: ${outcomes.length} writes, ${JSON.stringify(summary(outcomes))}; slowest ${Math.max(...outcomes.map((o) => o.ms))} ms; recovered ${recovered - up} ms after`,
    );

    expect(recovered, "no write succeeded within 20 s of PostgreSQL's return").toBeGreaterThan(0);
    expect(outcomes.filter((o) => o.at > down && o.at < up + 1000 && !acknowledged(o)).length, "the outage was not seen").toBeGreaterThan(0);
    expect(Math.max(...outcomes.map((o) => o.ms)), "a request took longer than 10 s").toBeLessThan(10_000);
    expect(outageAnswerProblems(outcomes)).toEqual([]);
    const acked = outcomes.filter(acknowledged).map((o) => o.email);
    const stored = new Set((await t.db.user.findMany({ where: { email: { in: acked } }, select: { email: true } })).map((u) => u.email));
    expect(
      acked.filter((email) => !stored.has(email)),
      "acknowledged writes missing after the fault",
    ).toEqual([]);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
  }

  it("restarted: keeps every acknowledged write, answers 503 UNAVAILABLE during the outage, and recovers without a restart", async () => {
    const unseen = (await t.createClient("Unseen key")).key; // not yet in the authenticator's cache
    let keyCheck: Response | null = null;
    await underLoad("restart", async () => {
      pg.stop("fast"); // every session ends with 57P01; new connections are refused
      const down = Date.now();
      await sleep(500);
      // a key the authenticator has not cached cannot be checked now: 503, not 401 and not 500
      keyCheck = await fetch(`${base}/v2/users`, { headers: { authorization: `Bearer ${unseen}` }, signal: AbortSignal.timeout(10_000) });
      await sleep(2500);
      pg.start();
      return { down, up: Date.now() };
    });
    expect(keyCheck!.status).toBe(503);
    expect(keyCheck!.headers.get("retry-after")).toBeTruthy();
    expect((await keyCheck!.json()).code).toBe("UNAVAILABLE");
    expect((await fetch(`${base}/v2/users`, { headers: { authorization: `Bearer ${unseen}` } })).status).toBe(200);
  });

  it("frozen (no answer, sockets left open): requests give up with 503 inside 10 s instead of hanging, and recover", async () => {
    await underLoad("freeze", async () => {
      pg.freeze();
      const down = Date.now();
      await sleep(12_000);
      pg.freeze(false);
      return { down, up: Date.now() };
    });
  });
});

/**
 * Answers a body can inflate, against the real process with npm start's heap cap: the payout dry
 * run sent 300,000 zeros as `documents` (~600 KB: one problem per item once ran the process out of
 * heap), and four ~1 MB bodies of unknown keys at once (one problem per key, each repeating the
 * field list, once made 26 MB answers and held /healthz for seconds). Each is a small 4xx, at once;
 * /healthz keeps answering; the process stays up.
 */
import { describe, expect, it } from "vitest";
import { sleep } from "./helpers/process.js";
import { MiB, useService, type Answer, type Service } from "./helpers/service.js";

const service = useService();
const VALIDATE = "/v2/payouts/remittances/beneficiaries/validate";
const MAX_ANSWER = 16 * 1024;

/** ~1 MB of keys no route knows */
const unknownKeys = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`z${String(i).padStart(7, "0")}`, 0]));

/** The slowest /healthz answer while `work` runs, polled every 50 ms. */
async function healthzDuring(s: Service, work: Promise<unknown>) {
  let slowest = 0;
  let done = false;
  const finished = work.finally(() => {
    done = true;
  });
  while (!done) {
    const started = performance.now();
    const health = await s.call("GET", "/healthz", { key: null, ms: 15_000 });
    expect(health.status).toBe(200);
    slowest = Math.max(slowest, performance.now() - started);
    await sleep(50);
  }
  await finished;
  return slowest;
}

const small = (answer: Answer, what: string) => {
  expect(answer.status, `${what}: ${answer.text.slice(0, 300)}`).toBeGreaterThanOrEqual(400);
  expect(answer.status, what).toBeLessThan(500);
  expect(answer.headers.get("content-type"), what).toContain("application/problem+json");
  expect(answer.text.length, `${what}: ${answer.text.length} bytes`).toBeLessThan(MAX_ANSWER);
};

describe("answers a body can inflate stay small", () => {
  it("the dry run's 300,000 zeros in documents: a small 4xx at once, and the process stays up", async () => {
    const s = await service();
    const body = { corridor_id: "in-inr-bank", amount: 100_000_000, documents: new Array(300_000).fill(0) };
    console.log(`dry-run body: ${(JSON.stringify(body).length / 1024).toFixed(0)} KB`);
    const memory = s.watchMemory(500);
    const started = performance.now();
    const answers = await Promise.all(Array.from({ length: 4 }, () => s.call("POST", VALIDATE, { body, ms: 30_000 })));
    const ms = performance.now() - started;
    const seen = await memory.stop();
    console.log(
      `4 dry runs at once: ${answers.map((a) => `${a.status} ${a.text.length} B`).join(", ")} in ${ms.toFixed(0)} ms; heap max ${(seen.maxHeap / MiB).toFixed(0)} MiB`,
    );
    for (const answer of answers) {
      small(answer, "300,000 zeros");
      expect(answer.body.errors_omitted ?? 0).toBeLessThan(100);
    }
    expect(ms).toBeLessThan(5000);
    await s.alive();
  });

  it("four ~1 MB bodies of unknown keys at once: small 400s counting what they leave out, /healthz answers throughout", async () => {
    const s = await service();
    const body = unknownKeys(75_000);
    console.log(`unknown-key body: ${(JSON.stringify(body).length / 1024).toFixed(0)} KB`);
    let answers: Answer[] = [];
    const slowest = await healthzDuring(
      s,
      Promise.all(Array.from({ length: 4 }, () => s.call("POST", "/v2/users", { body, ms: 30_000 }))).then((a) => {
        answers = a;
      }),
    );
    console.log(`4 × POST /v2/users: ${answers.map((a) => `${a.status} ${a.text.length} B`).join(", ")}; slowest /healthz ${slowest.toFixed(0)} ms`);
    for (const answer of answers) {
      small(answer, "75,000 unknown keys");
      expect(answer.body.errors_omitted).toBeGreaterThan(74_000);
    }
    // parsing four bodies of 75,000 keys is itself a second or two of one core on a loaded CI host;
    // building their answers once held /healthz past 15 s here
    expect(slowest).toBeLessThan(4000);
    await s.alive();
  });
});

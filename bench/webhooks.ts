/**
 * Webhooks through the outbox on PostgreSQL: the app in its own process (serve-app.ts), a local
 * receiver in this one that checks every signature. `npx tsx bench/webhooks.ts` (needs the local
 * PostgreSQL; BENCH_EVENTS, BENCH_CONCURRENCY to tune). Two figures:
 *  - delay: one user update at a time (PUT status CLOSED → user.status.updated), from the moment the
 *    update's answer is back (the change is committed by then) and from the moment it was sent, to
 *    the webhook's arrival; median and p99;
 *  - throughput: BENCH_CONCURRENCY writers close users as fast as they can; events per second from the
 *    first update sent to the last webhook received.
 */
import { fork, spawn, type ChildProcess } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import path from "node:path";
import pg from "pg";
import { startWebhookReceiver } from "../test/helpers/webhook-receiver.js";

const DATABASE_URL = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const EVENTS = Number(process.env.BENCH_EVENTS ?? 300);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const schema = `bench_${randomBytes(4).toString("hex")}`;
const env = {
  ...process.env,
  DATABASE_URL,
  DATABASE_SCHEMA: schema,
  ENCRYPTION_KEY: randomBytes(32).toString("hex"),
  NODE_ENV: "production",
  REDIS_URL: "",
  RATE_LIMIT_PER_MINUTE: "0",
  WEBHOOK_ALLOW_PRIVATE: "1",
};

/** the app (serve-app.ts) in its own process; `extra` env on top */
async function serve(extra: Record<string, string> = {}) {
  const child = fork(path.join(import.meta.dirname, "serve-app.ts"), { env: { ...env, ...extra }, execArgv: ["--import", "tsx"] });
  const info = await new Promise<{ port: number; apiKey: string }>((resolve, reject) => {
    child.once("message", resolve as never);
    child.once("exit", reject);
  });
  return { child, base: `http://127.0.0.1:${info.port}`, headers: { authorization: `Bearer ${info.apiKey}`, "content-type": "application/json" } };
}
const stopChild = async (child: ChildProcess) => {
  child.kill("SIGTERM");
  await new Promise((r) => child.once("exit", r));
};

let { child, base, headers } = await serve();
/** 503s (a transaction that waited 2 s for a connection on an overloaded machine) are retried and counted */
let unavailable = 0;
const call = async (method: string, url: string, body: unknown): Promise<any> => {
  const res = await fetch(`${base}${url}`, { method, headers, body: JSON.stringify(body) });
  if (res.status === 503 && unavailable++ < 50) {
    await res.text();
    await new Promise((r) => setTimeout(r, 200));
    return call(method, url, body);
  }
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return res.json();
};

/** users to close: created ahead, concurrently (their creation emits no public event) */
async function users(n: number) {
  const ids: string[] = [];
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (ids.length < n) {
        const slot = ids.push("") - 1;
        ids[slot] = (await call("POST", "/v2/users", { first_name: "Bench", last_name: "Hook", email: `${randomUUID()}@example.com` })).user_id;
      }
    }),
  );
  return ids.slice(0, n);
}
const close = (id: string) => call("PUT", `/v2/users/${id}`, { status: "CLOSED" });
const arrivals = () => receiver.at(hook).length;
const percentile = (values: number[], p: number) => {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

/** CONCURRENCY writers closing `ids`; updates per second */
async function closeAll(ids: string[]) {
  let next = 0;
  const began = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < ids.length) await close(ids[next++]);
    }),
  );
  return { began, written: performance.now() };
}

// the same updates with no endpoint: what the write path costs without webhooks
const plain = await users(EVENTS);
await closeAll(plain.slice(0, 20));
const alone = await closeAll(plain.slice(20));
console.log(
  JSON.stringify({
    title: `updates with no endpoint, ${CONCURRENCY} writers`,
    updatesPerSecond: Math.round((plain.length - 20) / ((alone.written - alone.began) / 1000)),
  }),
);

const receiver = await startWebhookReceiver();
const hook = "/bench";
const endpoint = await call("POST", "/v2/webhooks", { url: receiver.url(hook), event_types: ["user.status.updated"] });
receiver.sign(hook, endpoint.secret);

// warm-up: a few events through the whole path
for (const id of await users(10)) {
  await close(id);
}
await receiver.until("the warm-up", () => arrivals() >= 10, 30_000);

// delay, one update at a time
const sequential = await users(EVENTS);
const fromAnswer: number[] = [];
const fromSend: number[] = [];
for (const id of sequential) {
  const before = arrivals();
  const sent = performance.now();
  await close(id);
  const answered = performance.now();
  await receiver.until("the webhook", () => arrivals() > before, 30_000);
  const arrived = performance.now() - (Date.now() - receiver.received.at(-1)!.at); // the receiver's stamp, on this clock
  fromAnswer.push(arrived - answered);
  fromSend.push(arrived - sent);
}
const round = (n: number) => Math.round(n * 10) / 10;
console.log(
  JSON.stringify({
    title: "commit → webhook, one update at a time",
    events: EVENTS,
    afterAnswerMs: { p50: round(percentile(fromAnswer, 50)), p99: round(percentile(fromAnswer, 99)) },
    afterSendMs: { p50: round(percentile(fromSend, 50)), p99: round(percentile(fromSend, 99)) },
  }),
);

// throughput, CONCURRENCY writers
const batch = await users(EVENTS * 2);
const start = arrivals();
const { began, written } = await closeAll(batch);
await receiver.until("every webhook", () => arrivals() - start >= batch.length, 120_000);
const done = performance.now();
const bad = receiver.at(hook).filter((d) => d.verified !== true || d.status !== 200).length;
console.log(
  JSON.stringify({
    title: `throughput, ${CONCURRENCY} writers`,
    events: batch.length,
    updatesPerSecond: Math.round(batch.length / ((written - began) / 1000)),
    webhooksPerSecond: Math.round(batch.length / ((done - began) / 1000)),
    lastWebhookAfterLastUpdateMs: Math.round(done - written),
    unverifiedOrFailed: bad,
  }),
);

await stopChild(child);

// drain: a web-only instance (JOBS=0, a new client and endpoint) writes while nothing works the jobs, then `cli worker` sends the backlog
({ child, base, headers } = await serve({ JOBS: "0" }));
const drainHook = "/drain";
const drainEndpoint = await call("POST", "/v2/webhooks", { url: receiver.url(drainHook), event_types: ["user.status.updated"] });
receiver.sign(drainHook, drainEndpoint.secret);
const backlog = await users(EVENTS * 2);
await closeAll(backlog);
const worker = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", "worker"], {
  cwd: path.join(import.meta.dirname, ".."),
  env: { ...env, LOG_LEVEL: "warn" },
  stdio: "inherit",
});
await receiver.until("the backlog", () => receiver.at(drainHook).length >= backlog.length, 180_000);
const drained = receiver.at(drainHook);
const span = (drained.at(-1)!.at - drained[0].at) / 1000;
console.log(
  JSON.stringify({
    title: "backlog drained by cli worker (first to last webhook)",
    events: drained.length,
    webhooksPerSecond: Math.round((drained.length - 1) / span),
    unverifiedOrFailed: drained.filter((d) => d.verified !== true || d.status !== 200).length,
  }),
);
worker.kill("SIGTERM");
await new Promise((r) => worker.once("exit", r));
await stopChild(child);
await receiver.close();
if (unavailable) console.log(JSON.stringify({ title: "503 answers retried", count: unavailable }));
const admin = new pg.Client({ connectionString: DATABASE_URL });
await admin.connect();
await admin.query(`drop schema if exists "${schema}" cascade`);
await admin.query(`drop schema if exists "${schema}_boss" cascade`);
await admin.end();
process.exit(0);

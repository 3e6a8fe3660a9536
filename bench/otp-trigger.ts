/**
 * Time of one OTP trigger under light load: `tsx bench/otp-trigger.ts`. The app runs in a child
 * process (bench/serve-app.ts) on PostgreSQL (or PGlite with BENCH_PGLITE=1); each trigger goes to
 * a different user (the 60 s cooldown is per user), BENCH_CONCURRENCY (2) at a time, BENCH_TRIGGERS
 * (200) in all, once through the sandbox outbox and once over SMTP to a local smtp-server.
 */
import { fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { SMTPServer } from "smtp-server";

const DATABASE_URL = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const pglite = process.env.BENCH_PGLITE === "1";
const total = Number(process.env.BENCH_TRIGGERS ?? 200);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 2);

let mails = 0;
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ["STARTTLS", "AUTH"],
  logger: false,
  onData(stream, _s, done) {
    stream.resume().on("end", () => {
      mails++;
      done();
    });
  },
});
await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
const smtpUrl = `smtp://127.0.0.1:${(smtp.server.address() as { port: number }).port}`;

async function run(mode: "SANDBOX" | "LIVE") {
  const schema = `bench_${randomBytes(4).toString("hex")}`;
  const env = {
    ...process.env,
    NODE_ENV: "production",
    REDIS_URL: "",
    RATE_LIMIT_PER_MINUTE: "0",
    ENCRYPTION_KEY: randomBytes(32).toString("hex"),
    BENCH_CLIENT_MODE: mode,
    SMTP_URL: smtpUrl,
    ...(pglite ? { DATABASE_URL: "", DATA_DIR: "memory://" } : { DATABASE_URL, DATABASE_SCHEMA: schema }),
  };
  const child = fork(path.join(import.meta.dirname, "serve-app.ts"), { env, execArgv: ["--import", "tsx"] });
  const { port, apiKey } = await new Promise<{ port: number; apiKey: string }>((resolve, reject) => {
    child.once("message", resolve as never);
    child.once("exit", reject);
  });
  const call = (p: string, body?: unknown) =>
    fetch(`http://127.0.0.1:${port}${p}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }).then(async (r) => ({ status: r.status, body: await r.json() }));
  const users: string[] = [];
  for (let i = 0; i < total + 10; i++) users.push((await call("/v2/users", { first_name: "B", last_name: "U", email: `b${i}@example.com` })).body.user_id);
  // the same load on a user read, for scale on a machine whose speed varies with its neighbours
  const reads = await timed(users, (userId) => call(`/v2/users/${userId}`), 200);
  const triggers = await timed(users, (userId) => call("/v2/users/trigger/otp/email", { user_id: userId }), 202);
  child.kill("SIGTERM");
  await new Promise((resolve) => child.once("exit", resolve));
  if (!pglite) {
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await admin.query(`drop schema if exists "${schema}" cascade`);
    await admin.end();
  }
  const where = { backend: pglite ? "pglite" : "postgres", concurrency };
  console.log(JSON.stringify({ op: "GET /v2/users/{id}", ...where, ...reads }));
  console.log(JSON.stringify({ op: `trigger, ${mode === "SANDBOX" ? "sandbox outbox" : "SMTP (local smtp-server)"}`, ...where, ...triggers }));
}

/** Runs `op` once per user, `concurrency` at a time; the first ten are warm-up. */
async function timed(users: string[], op: (userId: string) => Promise<{ status: number }>, expected: number) {
  const times: number[] = [];
  let failures = 0;
  let next = 0;
  const worker = async () => {
    while (next < users.length) {
      const i = next++;
      const start = performance.now();
      const res = await op(users[i]);
      if (i >= 10) times.push(performance.now() - start);
      if (res.status !== expected) failures++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  times.sort((a, b) => a - b);
  const q = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))].toFixed(1);
  return { n: times.length, meanMs: (times.reduce((a, b) => a + b, 0) / times.length).toFixed(1), p50Ms: q(0.5), p95Ms: q(0.95), failures };
}

await run("SANDBOX");
await run("LIVE");
console.log(JSON.stringify({ mailsReceived: mails }));
smtp.close();
process.exit(0);

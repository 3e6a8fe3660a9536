/**
 * The payout dry run and the requirements answer under load: `npx tsx bench/payout-validate.ts`.
 * The server is the compiled app with the start script's flags (bench/catalogue-server.mjs, a child
 * process with the shipped catalogue), on embedded PGlite and on PostgreSQL (BENCH_DATABASE_URL,
 * default the local server; a schema of its own, dropped after). Each case first finds its peak rate (BENCH_CONNECTIONS, default 20, for
 * BENCH_SECONDS, default 10), then runs at half that rate and reports the latency there: the target
 * is a p99 under 2 ms for the dry run at half the peak rate. The peak is autocannon's; the half-rate
 * run is load-worker.ts's paced open loop (latency from when a request was due). One JSON row per
 * case; the figures go to bench/RESULTS.md by hand.
 */
import { fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { validatePayout } from "../src/domains/remittance/requirements/beneficiary.validate.js";
import { shippedCatalogue, shippedRequirementRows } from "../src/domains/remittance/requirements/requirements.shipped.js";
import { build, startFlags } from "./harness.js";
import { runLoad } from "./load.js";

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 20);

/** the in-inr-bank corridor's own first example, as the catalogue ships it */
const shipped = JSON.parse(readFileSync(path.join(import.meta.dirname, "../data/remittance/requirements.json"), "utf8")) as {
  corridor_id: string;
  examples: { body: { beneficiary: object } }[];
}[];
const INDIA = { corridor_id: "in-inr-bank", ...shipped.find((r) => r.corridor_id === "in-inr-bank")!.examples[0]!.body };
const BAD = { ...INDIA, amount: 150_000_001, beneficiary: { first_name: "Priya", ifsc_code: "ZZZZ0000001", account_number: "12" } };

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const cases: { title: string; method: "GET" | "POST"; path: string; body?: string; answerStatus?: number }[] = [
  { title: "dry run, a valid Indian payout (200)", method: "POST", path: "/v2/payouts/remittances/beneficiaries/validate", body: JSON.stringify(INDIA) },
  {
    title: "dry run, three problems (422)",
    method: "POST",
    path: "/v2/payouts/remittances/beneficiaries/validate",
    body: JSON.stringify(BAD),
    answerStatus: 422,
  },
  { title: "requirements of in-inr-bank at an amount (200)", method: "GET", path: "/v2/payouts/remittances/corridors/in-inr-bank/requirements?amount=2500000" },
];

/** Every case against one server started with `database` (its env), one JSON row each. */
async function measure(backend: string, database: Record<string, string>) {
  const dataDir = await mkdtemp(path.join(tmpdir(), "bench-payouts-"));
  const env = {
    ...process.env,
    ...database,
    DATA_DIR: dataDir,
    REDIS_URL: "",
    RATE_LIMIT_PER_MINUTE: "0",
    NODE_ENV: "production",
    ENCRYPTION_KEY: randomBytes(32).toString("hex"),
  };
  const child = fork(path.join(import.meta.dirname, "catalogue-server.mjs"), { env, execArgv: startFlags() });
  const info = await new Promise<{ port: number; apiKey: string }>((resolve, reject) => {
    child.once("message", resolve as never);
    child.once("exit", reject);
  });
  const targets = [{ key: info.apiKey, id: "" }];
  const base = `http://127.0.0.1:${info.port}`;
  const report = (row: object, run: Awaited<ReturnType<typeof runLoad>>) =>
    console.log(JSON.stringify({ backend, ...row, p50: run.p50, p99: run.p99, answered: run.ok, other: run.non2xx, failed: run.errors }));
  try {
    let firstRate = 0;
    for (const { title, ...request } of cases) {
      const load = { ...request, base, targets, connections };
      await runLoad({ ...load, seconds: 2 });
      const peak = await runLoad({ ...load, seconds });
      const rate = Math.max(1, Math.round(peak.rps / 2));
      firstRate ||= rate;
      report({ title, peakRps: Math.round(peak.rps), halfRate: rate }, await runLoad({ ...load, seconds, rate }));
    }
    // the floor under every row above: the same server, loader and rate, a route that does nothing
    const probe = { method: "GET" as const, path: "/healthz", base, targets, connections, seconds, rate: firstRate };
    report({ title: "baseline: GET /healthz at the valid dry run's half rate", halfRate: firstRate }, await runLoad(probe));
  } finally {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** The validator alone, in this process on the shipped catalogue: each call timed (µs). */
function validatorAlone() {
  const { corridors, index } = shippedCatalogue();
  const corridor = corridors.find((c) => c.id === INDIA.corridor_id)!;
  const spec = shippedRequirementRows().findLast((r) => r.corridorId === corridor.id && r.effectiveAt <= new Date())!.spec;
  for (const [title, { corridor_id: _, ...body }] of [
    ["validator alone, the valid Indian payout", INDIA],
    ["validator alone, three problems", BAD],
  ] as const) {
    const times: number[] = [];
    for (let i = 0; i < 22_000; i++) {
      const started = performance.now();
      validatePayout({ corridor, spec, body }, index);
      if (i >= 2_000) times.push((performance.now() - started) * 1000);
    }
    times.sort((a, b) => a - b);
    const at = (q: number) => Math.round(times[Math.floor(q * (times.length - 1))]!);
    console.log(JSON.stringify({ backend: "in process", title, calls: times.length, p50Us: at(0.5), p99Us: at(0.99), maxUs: at(1) }));
  }
}

validatorAlone();
build();
await measure("PGlite", { DATABASE_URL: "" });
const schema = `bench_${randomBytes(4).toString("hex")}`;
try {
  await measure("PostgreSQL", { DATABASE_URL, DATABASE_SCHEMA: schema });
} finally {
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  for (const name of [schema, `${schema}_boss`]) await admin.query(`drop schema if exists "${name}" cascade`);
  await admin.end();
}

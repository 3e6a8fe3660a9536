/**
 * The payout dry run and the requirements answer under load: `npx tsx bench/payout-validate.ts`.
 * The server is the compiled app with the start script's flags (bench/catalogue-server.mjs, a child
 * process on embedded PGlite with the shipped catalogue). Each case first finds its peak rate (BENCH_CONNECTIONS, default 20, for
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

const dataDir = await mkdtemp(path.join(tmpdir(), "bench-payouts-"));
const env = {
  ...process.env,
  DATA_DIR: dataDir,
  DATABASE_URL: "",
  REDIS_URL: "",
  RATE_LIMIT_PER_MINUTE: "0",
  NODE_ENV: "production",
  ENCRYPTION_KEY: randomBytes(32).toString("hex"),
};
build();
const child = fork(path.join(import.meta.dirname, "catalogue-server.mjs"), { env, execArgv: startFlags() });
const info = await new Promise<{ port: number; apiKey: string }>((resolve, reject) => {
  child.once("message", resolve as never);
  child.once("exit", reject);
});
const target = [{ key: info.apiKey, id: "" }];
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
try {
  for (const { title, ...request } of cases) {
    const load = { ...request, base: `http://127.0.0.1:${info.port}`, targets: target, connections };
    await runLoad({ ...load, seconds: 2 });
    const peak = await runLoad({ ...load, seconds });
    const rate = Math.max(1, Math.round(peak.rps / 2));
    const half = await runLoad({ ...load, seconds, rate });
    console.log(
      JSON.stringify({
        title,
        peakRps: Math.round(peak.rps),
        halfRate: rate,
        p50: half.p50,
        p99: half.p99,
        answered: half.ok,
        other: half.non2xx,
        failed: half.errors,
      }),
    );
  }
} finally {
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  child.kill("SIGTERM");
  await new Promise((resolve) => child.once("exit", resolve));
  await rm(dataDir, { recursive: true, force: true });
}

/**
 * The payout dry run and the requirements answer under load: `npx tsx bench/payout-validate.ts`.
 * The server is bench/lookups.ts's (a child process on embedded PGlite with the shipped catalogue,
 * no synthetic branches). Each case first finds its peak rate (BENCH_CONNECTIONS, default 20, for
 * BENCH_SECONDS, default 10), then runs at half that rate and reports the latency there: the target
 * is a p99 under 2 ms for the dry run at half the peak rate. One JSON row per case; the figures go
 * to bench/RESULTS.md by hand.
 */
import { fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import autocannon from "autocannon";

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
  BENCH_ROLE: "server",
  BENCH_BRANCHES: "0",
  DATA_DIR: dataDir,
  DATABASE_URL: "",
  REDIS_URL: "",
  RATE_LIMIT_PER_MINUTE: "0",
  NODE_ENV: "production",
  ENCRYPTION_KEY: randomBytes(32).toString("hex"),
};
const child = fork(path.join(import.meta.dirname, "lookups.ts"), { env, execArgv: ["--import", "tsx"] });
const info = await new Promise<{ port: number; apiKey: string }>((resolve, reject) => {
  child.once("message", resolve as never);
  child.once("exit", reject);
});
const base = `http://127.0.0.1:${info.port}`;
const headers = { authorization: `Bearer ${info.apiKey}`, "content-type": "application/json" };
const cases: { title: string; method: "GET" | "POST"; url: string; body?: string }[] = [
  { title: "dry run, a valid Indian payout (200)", method: "POST", url: `${base}/v2/payouts/remittances/beneficiaries/validate`, body: JSON.stringify(INDIA) },
  { title: "dry run, three problems (422)", method: "POST", url: `${base}/v2/payouts/remittances/beneficiaries/validate`, body: JSON.stringify(BAD) },
  {
    title: "requirements of in-inr-bank at an amount (200)",
    method: "GET",
    url: `${base}/v2/payouts/remittances/corridors/in-inr-bank/requirements?amount=2500000`,
  },
];
try {
  for (const { title, method, url, body } of cases) {
    const options = { url, method, headers, body, connections };
    await autocannon({ ...options, duration: 2 });
    const peak = await autocannon({ ...options, duration: seconds });
    const rate = Math.max(1, Math.round(peak.requests.average / 2));
    const half = await autocannon({ ...options, duration: seconds, overallRate: rate });
    console.log(
      JSON.stringify({
        title,
        peakRps: Math.round(peak.requests.average),
        halfRate: rate,
        p50: half.latency.p50,
        p99: half.latency.p99,
        max: half.latency.max,
        statuses: { "2xx": half["2xx"], "4xx": half["4xx"], "5xx": half["5xx"] },
        failed: half.errors + half["5xx"],
      }),
    );
  }
} finally {
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  child.kill("SIGTERM");
  await new Promise((resolve) => child.once("exit", resolve));
  await rm(dataDir, { recursive: true, force: true });
}

/**
 * `npm run bench`: the read and write paths of issue #17 in one table, on PostgreSQL.
 *
 * Seeds 10,000 users over several clients (with documents and check runs) in a schema of its own,
 * dropped afterwards; starts the app the way `npm start` does (compiled dist/, the start script's
 * node flags, migrations in their child process) plus bench/server-probe.mjs to ask for a GC, and
 * the raw node:http + pg baseline (raw-pg-baseline.ts), each in its own process; autocannon runs in
 * a third (load-worker.ts), 32 connections, every request on a random user with its client's key.
 * Each row: the app at full speed, the raw baseline on the same row right after (same minute),
 * then the app at half its sustained rate as an open loop, for the latency a non-saturated server
 * gives, and raw at that same rate, for the tail the machine itself adds. The write rows (`post`
 * creates users, `put` changes a user's last name: both queue check runs, worked by the app's job
 * workers) report two rates against raw's, whose single INSERT or UPDATE leaves nothing behind: the
 * requests' alone, and the settled rate, users written over the time from the load's start until
 * the last of their check runs left QUEUED and RUNNING, since a user whose checks still wait is not
 * yet onboarded; the settled rate is the write's sustained rate, the half row's base. Server CPU
 * per request comes from /proc/<pid>/stat, peak RSS from /proc/<pid>/status (VmHWM), live heap from
 * forced GCs after each of three rounds of reads. BENCH_SECONDS (default 8) per run,
 * BENCH_CONNECTIONS (32), BENCH_DATABASE_URL (else DATABASE_URL, else the local test database),
 * BENCH_ROWS (comma-separated row names of bench/rows.ts or parts of row titles: only those rows).
 */
import os from "node:os";
import {
  build,
  check,
  CLIENTS,
  databaseUrl,
  drainJobs,
  dropSchema,
  gcMemory,
  type GcPauses,
  loopDelay,
  measured,
  runLoad,
  seed,
  startApp,
  startFlags,
  startRaw,
  statusKiB,
  sustainedRate,
  USERS,
} from "./harness.js";
import type { LoadResult } from "./load-worker.js";
import { rows } from "./rows.js";

const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);

const mib = (bytes: number) => Math.round(bytes / 2 ** 20);
/** the longest GC pause and its kind, with how many major collections there were */
function longestPause(gc: GcPauses) {
  const [kind, pause] = Object.entries(gc).sort((a, b) => b[1].maxMs - a[1].maxMs)[0] ?? ["none", { maxMs: 0 }];
  return `${pause.maxMs} (${kind}; ${gc.major?.count ?? 0} major)`;
}

const started = Date.now();
const loadAtStart = os.loadavg()[0].toFixed(1);
build();
const seeded = await seed();
const seedSeconds = (Date.now() - started) / 1000;
const flags = startFlags();
const app = await startApp(flags);
const raw = await startRaw();
let peakSampled = 0;
const sampler = setInterval(() => {
  peakSampled = Math.max(peakSampled, statusKiB(app.child.pid!, "VmRSS"));
}, 100);
const idle = await gcMemory(app);
const idleRss = statusKiB(app.child.pid!, "VmRSS");

const table: string[] = [];
const settles: string[] = [];
// BENCH_ROWS=REST,user(id): only the rows whose title holds one of these (a quick A/B; the table to quote is all rows)
const only = process.env.BENCH_ROWS?.split(",").filter(Boolean);
for (const row of rows.filter((r) => !only || only.some((o) => r.name === o || r.title.includes(o)))) {
  const targets = row.perClient ? seeded.byClient : seeded.byId;
  await check(app, { targets, ...row.app });
  await check(raw, { targets, ...row.raw });
  const common = { targets, connections };
  // a write row leaves check runs queued: each app run's are worked before the next run (and count in its CPU)
  await runLoad({ ...common, ...row.app, base: app.base, seconds: 2 }); // warm-up: JIT, pools, caches
  await drainJobs();
  const settle = !!row.checks;
  const full = await measured(app, { ...common, ...row.app, seconds }, { drain: true, settle });
  await runLoad({ ...common, ...row.raw, base: raw.base, seconds: 1 });
  const base = await measured(raw, { ...common, ...row.raw, seconds });
  const sustained = sustainedRate(full, seconds);
  const rate = Math.max(1, Math.round(sustained / 2));
  await loopDelay(app);
  const half = await measured(app, { ...common, ...row.app, seconds, rate }, { drain: true, settle });
  const loop = await loopDelay(app);
  // the raw server at the very rate: the tail this machine gives a server that does almost nothing
  const rawHalf = await measured(raw, { ...common, ...row.raw, seconds, rate });
  // how far the check runs lagged behind the requests: at half rate they should keep up
  const after = (run: { settled?: number }) => Math.max(0, run.settled! - seconds).toFixed(1);
  if (settle) settles.push(`${row.title}: ${after(full)} s after the full run, ${after(half)} s after the half`);
  // apart: raw at the lookup's half rate (several times what it can answer) leaves thousands unanswered
  const failed = (...runs: LoadResult[]) => runs.reduce((sum, r) => sum + r.errors + r.non2xx, 0);
  const errors = `${failed(full, half)} / ${failed(base, rawHalf)}`;
  // raw queues no check runs: its settled rate is its requests' rate
  const settled = settle ? `${Math.round(sustained)} | ${(sustained / base.rps).toFixed(2)}` : "— | —";
  const line = `| ${row.title} | ${Math.round(full.rps)} | ${Math.round(base.rps)} | ${(full.rps / base.rps).toFixed(2)} | ${settled} | ${full.p50} / ${full.p99} | ${Math.round(half.rps)} | ${half.p50} / ${half.p99} | ${rawHalf.p50} / ${rawHalf.p99} | ${loop.p99} / ${loop.max} | ${half.loopMaxMs ?? "-"} | ${longestPause(loop.gc)} | ${Math.round(full.cpuUs)} | ${Math.round(base.cpuUs)} | ${errors} |`;
  console.error(line);
  table.push(line);
}

// three rounds of reads, each followed by forced GCs: live heap must not climb from round to round
const heaps: number[] = [];
for (let round = 0; round < 3; round++) {
  await runLoad({ targets: seeded.byId, connections, ...rows[0].app, base: app.base, seconds });
  heaps.push(mib((await gcMemory(app)).heapUsed));
}
clearInterval(sampler);
const hwm = statusKiB(app.child.pid!, "VmHWM");
const afterGc = await gcMemory(app);

const load = os
  .loadavg()
  .map((l) => l.toFixed(1))
  .join(" ");
console.log(`
${os.cpus().length} cores (${os.cpus()[0].model}), Node ${process.version}, load average ${loadAtStart} at the start, ${load} at the end; PostgreSQL ${new URL(databaseUrl).host};
${USERS} users over ${CLIENTS} clients (a document for every 3rd, a check run for every 2nd); ${connections} connections, ${seconds} s a run
(+2 s warm-up), random user and its client's key per request; app: \`node ${[...flags, "dist/src/main.js"].join(" ")}\`; seed + build ${seedSeconds.toFixed(0)} s.

| row | app req/s | raw req/s | app / raw | app settled req/s (write rows: users written until their check runs settled) | settled app / raw | p50 / p99 ms at peak | half-rate req/s (half the settled rate, or of the peak) | p50 / p99 ms at half | raw p50 / p99 ms at that rate | app loop lateness p99 / max ms at half (beyond its 5 ms timer) | load generator's own loop max ms at half | app's longest GC pause at half, ms | app CPU µs/req | raw CPU µs/req | errors (unanswered or not 2xx), app / raw |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
${table.join("\n")}

app memory: RSS after imports / migrations / build ${JSON.stringify(app.phases)} MiB; idle after GC RSS ${Math.round(idleRss / 1024)} MiB (heap ${mib(idle.heapUsed)} MiB); peak RSS ${Math.round(hwm / 1024)} MiB (VmHWM; sampled under load ${Math.round(peakSampled / 1024)} MiB);
live heap after GC after each of three read rounds: ${heaps.join(" → ")} MiB (growth ${heaps[2] - heaps[0]} MiB); RSS after GC at the end ${mib(afterGc.rss)} MiB.
half-rate rows are an open loop (bench/load-worker.ts \`paced\`): latency counts from when a request was due.
${settles.length ? `the check runs a write run queued settled (CPU µs/req includes them; each run's were worked before the next): ${settles.join("; ")}.` : ""}`);

// the servers stop first: the app's workers still writing would deadlock with the drop
await Promise.all(
  [app.child, raw.child].map(
    (child) =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(null);
        child.once("exit", resolve);
        child.kill("SIGTERM");
      }),
  ),
);
await dropSchema();
process.exit(0);

/**
 * `npx tsx bench/profile-read.ts [rest|graphql|list|post|put|lookup]`: a CPU profile of the server under
 * one row of the bench's load (bench/rows.ts, seeded schema as `npm run bench`), recorded in-process
 * over the measured run only (bench/server-probe.mjs), written to BENCH_PROFILE_DIR (default the
 * tmp dir); prints the top self-time functions and packages, the event loop's delay and the GC
 * pauses, and the longest stretches the loop never went idle, with what ran in them.
 * BENCH_AFTER=post,… runs those rows' load first, as the bench's order does (the sanctions list loaded,
 * the tables grown). BENCH_RATE=half (or a number): the open-loop rate of the bench's half row instead of full speed,
 * for finding what makes its tail. BENCH_PROFILE=promoted: instead of CPU, a sampling heap profile of
 * what outlived a minor GC (the bytes that fill old space and bring major GCs), by allocation site;
 * BENCH_PROFILE=allocated: everything allocated, garbage or not; BENCH_PROFILE=maps: the hidden classes
 * the server made in the measured run, by site (bench/hidden-classes.ts). `npx tsx bench/profile-read.ts <file>.cpuprofile` summarises a
 * profile written before. For finding what a request still costs, not a figure to quote.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { tmpdir } from "node:os";
import { mapLogFlags, summariseMapLog } from "./hidden-classes.js";
import { build, drainJobs, dropSchema, loopDelay, measured, seed, startApp, startFlags, sustainedRate, type Server } from "./harness.js";
import { rowNamed } from "./rows.js";

if (/\.(cpu|heap)profile$/.test(process.argv[2] ?? "")) {
  // a profile written earlier: its summary again
  const profile = JSON.parse(readFileSync(process.argv[2]!, "utf8"));
  if (process.argv[2]!.endsWith(".heapprofile")) allocations(profile);
  else summarise(profile);
  process.exit(0);
}
const row = rowNamed(process.argv[2] ?? "rest");
const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const drain = !!row.checks; // a write queues check runs: they are worked inside the profile
build();
const seeded = await seed();
try {
  const mapLog = process.env.BENCH_PROFILE === "maps" ? path.join(process.env.BENCH_PROFILE_DIR ?? tmpdir(), `bench-maps-${Date.now()}.log`) : null;
  const app = await startApp([...startFlags(), ...(mapLog ? mapLogFlags(mapLog) : [])]);
  const load = { ...row.app, targets: row.perClient ? seeded.byClient : seeded.byId, connections: CONNECTIONS };
  // BENCH_AFTER=post: another row's load first (worked off), as the bench's order runs it
  for (const before of (process.env.BENCH_AFTER ?? "").split(",").filter(Boolean).map(rowNamed))
    await measured(app, { ...before.app, targets: before.perClient ? seeded.byClient : seeded.byId, connections: CONNECTIONS, seconds }, { drain: true });
  await measured(app, { ...load, seconds: 2 });
  await drainJobs();
  let rate: number | undefined;
  if (process.env.BENCH_RATE === "half") {
    const full = await measured(app, { ...load, seconds }, { drain, settle: drain });
    rate = Math.max(1, Math.round(sustainedRate(full, seconds) / 2));
  } else if (process.env.BENCH_RATE) rate = Number(process.env.BENCH_RATE);
  // BENCH_PROFILE=none: no recording at all (a --trace-gc run without the profiler's own allocations)
  const kind = mapLog ? "none" : ["promoted", "allocated", "none"].includes(process.env.BENCH_PROFILE ?? "") ? process.env.BENCH_PROFILE! : "profile";
  if (kind !== "none") await ask(app, `${kind}-start`, "recording");
  await loopDelay(app); // after the recording started: starting the profiler stalls the loop ~200 ms itself
  const mark = mapLog ? ((await ask(app, "mark", "mark")) as { mark: number }).mark : 0;
  // BENCH_SNAPSHOT_AT=4: a heap snapshot that many seconds into the measured run (what holds the heap under load)
  const snapshot = process.env.BENCH_SNAPSHOT_AT
    ? new Promise((resolve) => setTimeout(() => resolve(ask(app, "snapshot", "snapshot")), Number(process.env.BENCH_SNAPSHOT_AT) * 1000))
    : null;
  const result = await measured(app, { ...load, seconds, rate }, { drain });
  const file = kind === "none" ? "" : ((await ask(app, `${kind}-stop`, "profile")) as { profile: string }).profile;
  if (snapshot) console.log(`heap snapshot: ${JSON.stringify(await snapshot)}`);
  const loop = await loopDelay(app);
  console.log(
    `${row.name}${rate ? ` at ${rate} req/s` : ""}: ${Math.round(result.rps)} req/s, p50 / p99 ${result.p50} / ${result.p99} ms (load generator's own loop max ${result.loopMaxMs ?? "-"} ms), ${Math.round(result.cpuUs)} µs CPU/req; loop lateness p99 / max ${loop.p99} / ${loop.max} ms; GC ${JSON.stringify(loop.gc)}`,
  );
  if (kind === "profile") summarise(JSON.parse(readFileSync(file, "utf8")));
  else if (kind !== "none") allocations(JSON.parse(readFileSync(file, "utf8")));
  if (mapLog) await summariseMapLog(mapLog, mark);
  console.log(`profile: ${mapLog ?? file}`);
  app.child.kill("SIGTERM");
} finally {
  await dropSchema();
}

/** sends `message`, resolves with the first answer that carries `key` */
function ask(app: Server, message: string, key: string): Promise<unknown> {
  app.child.send(message);
  return new Promise((resolve) => {
    const answer = (m: object) => {
      if (key in m) {
        app.child.off("message", answer);
        resolve(m);
      }
    };
    app.child.on("message", answer);
  });
}

type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] };
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[] };

function frameName(node: Node) {
  return `${node.callFrame.functionName || "(anon)"} ${node.callFrame.url
    .replace(/^file:\/\//, "")
    .split("/")
    .slice(-2)
    .join("/")}:${node.callFrame.lineNumber}`;
}
function packageOf(node: Node) {
  const url = node.callFrame.url.replace(/^file:\/\//, "");
  return (
    /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1]
    ?? (url.includes("/dist/src/") ? `app:${url.split("/dist/src/")[1].split("/")[0]}` : url ? "node:" + path.basename(url) : node.callFrame.functionName)
  );
}
function top(m: Map<string, number>, n: number, total: number) {
  return [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => `${((100 * v) / total).toFixed(1).padStart(5)} %  ${k}`)
    .join("\n");
}
function add(m: Map<string, number>, k: string, v: number) {
  m.set(k, (m.get(k) ?? 0) + v);
}

function summarise(profile: Profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const byFn = new Map<string, number>();
  const byPkg = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id)!;
    const t = profile.timeDeltas[i] ?? 0;
    if (node.callFrame.functionName === "(idle)") return;
    total += t;
    add(byPkg, packageOf(node), t);
    add(byFn, frameName(node), t);
  });
  console.log(`busy ${Math.round(total / 1000)} ms\n-- by package --\n${top(byPkg, 25, total)}\n-- by function --\n${top(byFn, 40, total)}`);
  stretches(profile, byId);
}

/**
 * The longest stretches without an idle sample: a request waits out whatever its stretch holds, so
 * these are what a tail is made of. Each with its GC share, its top self-time functions and the
 * app's own frames (dist/src) it spent most in.
 */
function stretches(profile: Profile, byId: Map<number, Node>) {
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const appFrames = (id: number) => {
    const names = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const node = byId.get(at)!;
      if (node.callFrame.url.includes("/dist/src/")) names.add(frameName(node));
    }
    return names;
  };
  type Stretch = { ms: number; samples: number[]; deltas: number[] };
  const found: Stretch[] = [];
  let current: Stretch | null = null;
  profile.samples.forEach((id, i) => {
    const t = (profile.timeDeltas[i] ?? 0) / 1000;
    if (byId.get(id)!.callFrame.functionName === "(idle)") {
      if (current) found.push(current);
      current = null;
      return;
    }
    current ??= { ms: 0, samples: [], deltas: [] };
    current.ms += t;
    current.samples.push(id);
    current.deltas.push(t);
  });
  if (current) found.push(current);
  found.sort((a, b) => b.ms - a.ms);
  const over = (limit: number) => found.filter((s) => s.ms > limit).length;
  console.log(`-- busy stretches: ${found.length}, over 5 / 10 / 20 ms: ${over(5)} / ${over(10)} / ${over(20)}; the longest --`);
  for (const s of found.slice(0, 8)) {
    const self = new Map<string, number>();
    const app = new Map<string, number>();
    s.samples.forEach((id, i) => {
      add(self, frameName(byId.get(id)!), s.deltas[i]);
      for (const name of appFrames(id)) add(app, name, s.deltas[i]);
    });
    console.log(
      `${s.ms.toFixed(1)} ms, GC ${(self.get("(garbage collector) :-1") ?? 0).toFixed(1)} ms\n  self: ${top(self, 5, s.ms).split("\n").join("\n        ")}\n  app:  ${top(app, 6, s.ms).split("\n").join("\n        ")}`,
    );
  }
}

type HeapNode = { callFrame: Node["callFrame"]; selfSize: number; children: HeapNode[] };
/** A sampling heap profile by allocation site (self) and by the app's own frames on the stack (inclusive). */
function allocations(profile: { head: HeapNode }) {
  const self = new Map<string, number>();
  const app = new Map<string, number>();
  let total = 0;
  const walk = (node: HeapNode, stack: string[]) => {
    const name = frameName(node as unknown as Node);
    const appStack = node.callFrame.url.includes("/dist/src/") && !stack.includes(name) ? [...stack, name] : stack;
    if (node.selfSize) {
      total += node.selfSize;
      add(self, name, node.selfSize);
      for (const frame of appStack) add(app, frame, node.selfSize);
    }
    for (const child of node.children) walk(child, appStack);
  };
  walk(profile.head, []);
  console.log(
    `sampled ${(total / 2 ** 20).toFixed(1)} MiB\n-- by allocation site --\n${top(self, 30, total)}\n-- by app frame (inclusive) --\n${top(app, 30, total)}`,
  );
}

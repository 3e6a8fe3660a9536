/**
 * What bench/users-read.ts and bench/memory-phases.ts share: the seeded PostgreSQL schema, the app
 * started as `npm start` runs it (plus bench/server-probe.mjs), the raw baseline, the load generator
 * in its own process (load-worker.ts), and what /proc says about a server process.
 */
import { createTransact } from "../src/platform/write.js";
import { execFileSync, fork, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream, readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { OPERATOR } from "../src/principal.js";
import { createDb } from "../src/db/client.js";
import { migrateInChild } from "../src/db/migrations.js";
import { createApiClient } from "../src/domains/clients/clients.service.js";
import { bossSchemaFor } from "../src/platform/jobs.js";
import { runLoad } from "./load.js";
import type { Load, LoadResult, Target } from "./load-worker.js";

export { runLoad };

export const root = path.resolve(import.meta.dirname, "..");
export const databaseUrl = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
export const USERS = 10_000;
export const CLIENTS = 5;
const TICK_US = 1e6 / Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());
export const schema = `bench_${randomBytes(4).toString("hex")}`;
export const env = {
  ...process.env,
  DATABASE_URL: databaseUrl,
  DATABASE_SCHEMA: schema,
  ENCRYPTION_KEY: randomBytes(32).toString("hex"),
  NODE_ENV: "production",
  REDIS_URL: "",
  RATE_LIMIT_PER_MINUTE: "0",
  PORT: "0",
  HOST: "127.0.0.1",
  LOG_LEVEL: "info",
  // no seeded user has a sanctions screening, so the hourly pass (at :15) would queue 20,000 check runs
  // into whichever row ran then: the bench measures requests; a pass's cost is bench/screening.ts's
  PERIODIC_CHECKS_CRON: "off",
};

export const build = () => execFileSync(process.execPath, [path.join(root, "scripts/build.mjs")], { stdio: "inherit" });

// a bench that fails half-way still drops its schema (the servers go with the process: see `servers`)
process.once("uncaughtException", (error) => {
  console.error(error);
  void dropSchema()
    .catch(() => {})
    .finally(() => process.exit(1));
});

export async function dropSchema() {
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  // pg-boss keeps its tables beside the app's, in `<schema>_boss` (src/platform/jobs.ts)
  for (const name of [schema, bossSchemaFor(schema)]) await admin.query(`drop schema if exists "${name}" cascade`);
  await admin.end();
}

/** seeds the bench's PostgreSQL schema, or with `dataDir` an embedded PGlite database there (closed again, for the app to open) */
export async function seed({ dataDir = "" } = {}): Promise<{ byId: Target[]; byClient: Target[] }> {
  const target = dataDir ? { dataDir } : { databaseUrl, databaseSchema: schema, dataDir };
  await migrateInChild(target); // waits out other schemas' migrations (schema-engine.ts)
  const db = await createDb(target);
  const byId: Target[] = [];
  const byClient: Target[] = [];
  for (let c = 0; c < CLIENTS; c++) {
    const { apiKey: key, client } = await createApiClient(createTransact(db.prisma), { principal: OPERATOR }, { name: `bench ${c}`, mode: "SANDBOX" });
    byClient.push({ key, id: "" });
    const users = Array.from({ length: USERS / CLIENTS }, (_, n) => ({
      clientId: client.id,
      firstName: `First${n}`,
      lastName: `Last${c}`,
      email: `u${n}@client${c}.example.com`,
      emailKey: `u${n}@client${c}.example.com`,
      phoneNumber: `+6591${String(c * 100_000 + n).padStart(6, "0")}`,
      status: n % 3 ? ("ACTIVE" as const) : ("PENDING" as const),
      createdAt: new Date(Date.UTC(2026, 0, 1) + (c * USERS + n) * 60_000),
    }));
    const ids = (await db.prisma.user.createManyAndReturn({ data: users, select: { id: true } })).map((u) => u.id);
    for (const id of ids) byId.push({ key, id });
    // a document for every third user, a check run for every second: the list row resolves both relations
    await db.prisma.document.createMany({
      data: ids
        .filter((_, n) => n % 3 === 0)
        .map((userId) => ({
          clientId: client.id,
          userId,
          documentType: "PASSPORT" as const,
          issuingCountry: "SG",
          fileName: "passport.pdf",
          mimeType: "application/pdf",
          sizeBytes: 1024,
          sha256: "0".repeat(64),
          documentNumberLast4: "1234",
        })),
    });
    await db.prisma.checkRun.createMany({
      data: ids
        .filter((_, n) => n % 2 === 0)
        .map((userId) => ({
          clientId: client.id,
          userId,
          type: "KYC" as const,
          status: "CLEAR" as const,
          trigger: "VERIFICATION" as const,
        })),
    });
  }
  // vacuumed now, or autovacuum visits the fresh tables during the first rows (on a 2-core machine)
  await db.prisma.$executeRawUnsafe("vacuum analyze");
  await db.close();
  return { byId, byClient };
}

/** polls `sql` (a count named `open`) until it is 0; the seconds waited (at most five minutes, then said) */
async function waitForNone(sql: string, what: string): Promise<number> {
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  const started = Date.now();
  try {
    for (;;) {
      const {
        rows: [{ open }],
      } = await admin.query(sql);
      if (open === 0) return (Date.now() - started) / 1000;
      if (Date.now() - started > 300_000) {
        console.error(`${open} ${what} still open after 300 s: figures from this run count only until then`);
        return (Date.now() - started) / 1000;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await admin.end();
  }
}

/**
 * Waits until the app's job queue holds nothing due or running (the check runs a write row queued),
 * so that the next row is not measured while the last one's backlog is worked. Returns the seconds waited.
 */
export const drainJobs = () =>
  waitForNone(
    `select count(*)::int as open from "${bossSchemaFor(schema)}".job where state in ('created', 'retry', 'active') and start_after <= now()`,
    "jobs",
  );

/**
 * Seconds from `startedAt` (epoch ms) until no check run is QUEUED or RUNNING: the seeded runs are
 * all settled and each write run's are worked before the next, so the open ones are this load's.
 */
export const settleChecks = async (startedAt: number) => {
  await waitForNone(`select count(*)::int as open from "${schema}".check_runs where status in ('QUEUED', 'RUNNING')`, "check runs");
  return (Date.now() - startedAt) / 1000;
};

/** node flags of `npm start` (package.json), so the bench runs the server as it is deployed */
export function startFlags(): string[] {
  // BENCH_START_FLAGS: instead of the start script's flags (an A/B of one flag; empty for none)
  if (process.env.BENCH_START_FLAGS !== undefined) return process.env.BENCH_START_FLAGS.split(/\s+/).filter(Boolean);
  const start = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).scripts.start as string;
  const flags = /node((?:\s+--\S+)*)\s+dist\/src\/main\.js/.exec(start);
  if (!flags) throw new Error(`cannot find "node … dist/src/main.js" in the start script: ${start}`);
  // BENCH_NODE_FLAGS: more node flags for an experiment (--trace-gc, another semi-space size)
  return [...flags[1].trim().split(/\s+/), ...(process.env.BENCH_NODE_FLAGS ?? "").split(/\s+/)].filter(Boolean);
}

/** phases: the RSS (MiB) main.ts logged after imports, migrations and the app's build */
/** every server this process started: killed when it exits, however it exits */
const servers = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of servers) child.kill("SIGTERM");
});

export type Server = { child: ChildProcess; base: string; phases?: Record<string, number> };

export function startApp(flags: string[], entry = "dist/src/main.js", loader: string[] = []): Promise<Server> {
  const child = fork(path.resolve(root, entry), {
    cwd: root,
    env,
    stdio: ["ignore", "pipe", "pipe", "ipc"],
    execArgv: [...flags, ...loader, "--expose-gc", "--import", path.join(import.meta.dirname, "server-probe.mjs")],
  });
  servers.add(child);
  let out = "";
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      out += chunk;
      const m = /listening on http:\/\/localhost:(\d+)/.exec(out);
      if (!m) return;
      // from here on its output is drained unread, or written to BENCH_APP_OUTPUT (with --trace-gc, say)
      const keep = process.env.BENCH_APP_OUTPUT ? createWriteStream(process.env.BENCH_APP_OUTPUT) : null;
      for (const stream of [child.stdout!, child.stderr!]) {
        stream.off("data", onData);
        if (keep) stream.pipe(keep, { end: false });
        else stream.resume();
      }
      const phases = /"rss_mib":(\{[^}]*\})/.exec(out);
      resolve({ child, base: `http://127.0.0.1:${m[1]}`, phases: phases ? JSON.parse(phases[1]) : {} });
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code) => reject(new Error(`app exited ${code}:\n${out}`)));
  });
}

export function startRaw(): Promise<Server> {
  const child = fork(path.join(import.meta.dirname, "raw-pg-baseline.ts"), { env, execArgv: ["--import", "tsx"] });
  servers.add(child);
  return new Promise((resolve, reject) => {
    child.once("message", (m) => resolve({ child, base: `http://127.0.0.1:${(m as { port: number }).port}` }));
    child.once("exit", reject);
  });
}

/** user + system CPU time of a process so far, µs */
function cpuMicros(pid: number) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * TICK_US;
}

export const statusKiB = (pid: number, field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]);

/**
 * load on `server`, with the CPU it spent per completed request; with `settle`, the seconds from the
 * load's start until the check runs it queued have settled (`settled`); with `drain`, the jobs the
 * load queued are worked before the next load, and their CPU counts in the requests' (`drained`: seconds)
 */
export async function measured(server: Server, load: Omit<Load, "base">, { drain = false, settle = false } = {}) {
  const before = cpuMicros(server.child.pid!);
  const result = await runLoad({ ...load, base: server.base });
  const settled = settle ? await settleChecks(result.startedAt) : undefined;
  const drained = drain ? await drainJobs() : 0;
  return { ...result, settled, drained, cpuUs: (cpuMicros(server.child.pid!) - before) / Math.max(result.requests, 1) };
}

/**
 * The rate a server sustains, req/s: for a write that queues check runs, the users it created or
 * changed over the time until their runs settled (a write whose checks are still queued is not yet
 * served, and half its request rate would still overload the server); else its requests' rate.
 */
export const sustainedRate = (run: LoadResult & { settled?: number }, seconds: number) =>
  run.settled === undefined ? run.requests / seconds : run.ok / run.settled;

export function gcMemory(app: Server): Promise<NodeJS.MemoryUsage> {
  app.child.send("gc");
  return new Promise((resolve) => app.child.once("message", (m) => resolve((m as { memory: NodeJS.MemoryUsage }).memory)));
}

/** the server's event-loop lateness (ms, beyond the probe's 5 ms timer) since the last call: a stalled server, as opposed to a slow load generator */
export type GcPauses = Record<string, { count: number; totalMs: number; maxMs: number }>;
export function loopDelay(app: Server): Promise<{ p50: number; p99: number; max: number; gc: GcPauses }> {
  app.child.send("loop");
  return new Promise((resolve) => app.child.once("message", (m) => resolve((m as { loop: { p50: number; p99: number; max: number; gc: GcPauses } }).loop)));
}

/** one request first: a row whose answer is an error (a GraphQL error comes with 200) measures nothing */
export async function check(server: Server, load: Omit<Load, "base" | "connections" | "seconds">) {
  const { key, id } = load.targets[0];
  const fill = (text: string) => text.replaceAll("{id}", id).replaceAll("{n}", `check-${Date.now()}`);
  const res = await fetch(server.base + fill(load.path), {
    method: load.method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: load.body && fill(load.body),
  });
  const text = await res.text();
  if (!res.ok || (JSON.parse(text) as { errors?: unknown }).errors)
    throw new Error(`${load.method} ${load.path} answered ${res.status}: ${text.slice(0, 500)}`);
}

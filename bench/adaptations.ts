/**
 * `npm run bench:adaptations`: each adaptation of the server to its runtime and dependencies switched
 * off against all of them on, alternating over several rounds on one seeded database, so that host
 * noise falls on every variant alike (docs/performance.md says which pay). An adaptation is a node
 * flag of the start script (package.json), a patch of patches/ (reversed with `git apply -R` for its
 * variant), or the edits to Prisma's runtime (scripts/prisma-runtime.mjs). Each variant starts the
 * server afresh, then runs each row at full speed after a warm-up: the server's CPU per request, its
 * longest GC pause and peak RSS (VmHWM).
 * BENCH_DATABASE=pglite runs it on the embedded database `npm start` uses by default (in the server's
 * own process, so a flag that slows PGlite shows), else on PostgreSQL (BENCH_DATABASE_URL or
 * DATABASE_URL). BENCH_FLAGS: the candidate flags (default: the start script's); BENCH_VARIANTS:
 * only these (`flags`, `patches`, or names); BENCH_ROUNDS (3), BENCH_SECONDS (8), BENCH_ROWS
 * (rest,graphql,list).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
// @ts-expect-error: a plain script, no types
import { applyPrismaRuntimeEdits, revertPrismaRuntimeEdits } from "../scripts/prisma-runtime.mjs";
import { build, dropSchema, env, loopDelay, measured, root, runLoad, seed, startApp, startFlags, statusKiB, type Server } from "./harness.js";
import { rowNamed } from "./rows.js";

const pglite = process.env.BENCH_DATABASE === "pglite";
const flags = process.env.BENCH_FLAGS !== undefined ? process.env.BENCH_FLAGS.split(/\s+/).filter(Boolean) : startFlags();
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const rows = (process.env.BENCH_ROWS ?? "rest,graphql,list").split(",").map(rowNamed);

type Variant = { name: string; kind: "all" | "flags" | "patches"; flags: string[]; off?: () => void; on?: () => void };
const gitApply =
  (...args: string[]) =>
  () => {
    execFileSync("git", ["apply", ...args], { cwd: root });
  };
const patches = readdirSync(path.join(root, "patches")).filter((f) => f.endsWith(".patch"));
const variants: Variant[] = [
  { name: "all on", kind: "all", flags },
  ...flags.map((f): Variant => ({ name: `without ${f}`, kind: "flags", flags: flags.filter((g) => g !== f) })),
  ...patches.map((p): Variant => ({ name: `without ${p}`, kind: "patches", flags, off: gitApply("--reverse", `patches/${p}`), on: gitApply(`patches/${p}`) })),
  { name: "without the Prisma runtime edits", kind: "patches", flags, off: () => revertPrismaRuntimeEdits(), on: () => applyPrismaRuntimeEdits() },
];
const only = process.env.BENCH_VARIANTS?.split(",").filter(Boolean);
const chosen = variants.filter((v) => v.kind === "all" || !only || only.some((o) => o === v.kind || v.name.includes(o)));

let dataDir = "";
if (pglite) {
  dataDir = mkdtempSync(path.join(tmpdir(), "og-adaptations-"));
  Object.assign(env, { DATABASE_URL: "", DATABASE_SCHEMA: "", DATA_DIR: dataDir });
}
process.on("exit", () => {
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function stop(app: Server) {
  const exited = new Promise((resolve) => app.child.once("exit", resolve));
  app.child.kill("SIGTERM");
  await exited;
}

type Figures = { cpu: number[][]; pause: number[]; peak: number[] };
async function measure(variant: Variant, seeded: Awaited<ReturnType<typeof seed>>, into: Figures) {
  const app = await startApp(variant.flags);
  try {
    const cpu: number[] = [];
    await loopDelay(app);
    for (const row of rows) {
      const common = { targets: row.perClient ? seeded.byClient : seeded.byId, connections: 32, ...row.app };
      await runLoad({ ...common, base: app.base, seconds: 2 });
      cpu.push((await measured(app, { ...common, seconds })).cpuUs);
    }
    const { gc } = await loopDelay(app);
    into.cpu.push(cpu);
    into.pause.push(Math.max(0, ...Object.values(gc).map((p) => p.maxMs)));
    into.peak.push(Math.round(statusKiB(app.child.pid!, "VmHWM") / 1024));
    console.error(`${variant.name}: CPU µs/req ${cpu.map(Math.round).join(" / ")}`);
  } finally {
    await stop(app);
  }
}

build();
const seeded = await seed({ dataDir });
const results = new Map<string, Figures>(chosen.map((v) => [v.name, { cpu: [], pause: [], peak: [] }]));
try {
  for (let round = 0; round < rounds; round++) {
    for (const variant of chosen) {
      variant.off?.();
      try {
        await measure(variant, seeded, results.get(variant.name)!);
      } finally {
        variant.on?.();
      }
    }
  }
} finally {
  if (!pglite) await dropSchema();
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const base = results.get("all on")!;
/** median (min–max), and with `against` the change of the median against it */
const cell = (values: number[], against?: number[]) => {
  const range = `${Math.round(median(values))} (${Math.round(Math.min(...values))}–${Math.round(Math.max(...values))})`;
  if (!against) return range;
  const change = (median(values) / median(against) - 1) * 100;
  return `${range}, ${change >= 0 ? "+" : ""}${change.toFixed(0)} %`;
};
console.log(
  `\n${pglite ? "embedded PGlite" : "PostgreSQL"}, node ${process.version}, ${rounds} rounds of ${seconds} s a row; median (min–max), change of the median against all on\n`,
);
console.log(`| variant | ${rows.map((r) => `${r.name} CPU µs/req`).join(" | ")} | longest GC pause, ms | peak RSS, MiB |`);
console.log(`|---|${rows.map(() => "---|").join("")}---|---|`);
for (const [name, r] of results) {
  const against = name === "all on" ? undefined : base;
  const cpu = rows.map((_, i) =>
    cell(
      r.cpu.map((c) => c[i]),
      against?.cpu.map((c) => c[i]),
    ),
  );
  console.log(`| ${name} | ${cpu.join(" | ")} | ${cell(r.pause, against?.pause)} | ${cell(r.peak, against?.peak)} |`);
}

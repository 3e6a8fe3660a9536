/**
 * `npx tsx bench/memory-phases.ts`: where the server's memory goes, by start-up phase and under
 * load, for the ways of running it: through the tsx loader, compiled (what `npm start` runs), and
 * compiled with each heap cap in BENCH_HEAP_CAPS (MiB, default "128 192 256"). Same seeded
 * PostgreSQL schema as `npm run bench` (bench/harness.ts); each variant gets REST reads then
 * GraphQL lists of 100 users for BENCH_SECONDS (default 8) each, 32 connections, and a forced GC
 * before and after. Prints one table.
 */
import os from "node:os";
import { build, check, dropSchema, gcMemory, measured, runLoad, seed, startApp, statusKiB } from "./harness.js";

const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const caps = (process.env.BENCH_HEAP_CAPS ?? "128 192 256").split(/\s+/).filter(Boolean);
const mib = (bytes: number) => Math.round(bytes / 2 ** 20);

const variants = [
  { title: "tsx loader (`node --import tsx src/main.ts`)", entry: "src/main.ts", loader: ["--import", "tsx"], flags: [] as string[] },
  { title: "compiled (`node dist/src/main.js`)", entry: "dist/src/main.js", loader: [], flags: [] as string[] },
  ...caps.map((cap) => ({ title: `compiled, \`--max-old-space-size=${cap}\``, entry: "dist/src/main.js", loader: [], flags: [`--max-old-space-size=${cap}`] })),
];

build();
const { byId, byClient } = await seed();
// the most a page of 100 users with documents and checks may ask under graphql-armor's cost limit (bench/users-read.ts)
const list = "{ users(first: 100) { edges { node { id status documents { id } checks { id status } } } } }";
const lines: string[] = [];
for (const variant of variants) {
  const app = await startApp(variant.flags, variant.entry, variant.loader);
  await check(app, { method: "POST", path: "/graphql", body: JSON.stringify({ query: list }), targets: byClient });
  const idle = await gcMemory(app);
  await runLoad({ base: app.base, method: "GET", path: "/v2/users/{id}", targets: byId, connections: 32, seconds: 2 });
  const reads = await measured(app, { method: "GET", path: "/v2/users/{id}", targets: byId, connections: 32, seconds });
  const lists = await measured(app, { method: "POST", path: "/graphql", body: JSON.stringify({ query: list }), targets: byClient, connections: 32, seconds });
  const peak = Math.round(statusKiB(app.child.pid!, "VmHWM") / 1024);
  const after = await gcMemory(app);
  const p = app.phases ?? {};
  const line = `| ${variant.title} | ${p.imported} | ${p.migrated} | ${p.built} | ${mib(idle.rss)} / ${mib(idle.heapUsed)} | ${peak} | ${mib(after.rss)} / ${mib(after.heapUsed)} | ${Math.round(reads.rps)} (${Math.round(reads.cpuUs)} µs) | ${Math.round(lists.rps)} (${Math.round(lists.cpuUs)} µs) | ${reads.errors + reads.non2xx + lists.errors + lists.non2xx} |`;
  console.error(line);
  lines.push(line);
  app.child.kill("SIGTERM");
  await new Promise((resolve) => app.child.once("exit", resolve));
}
await dropSchema();
console.log(`
${os.cpus().length} cores, Node ${process.version}, load average ${os
  .loadavg()
  .map((l) => l.toFixed(1))
  .join(" ")}; ${seconds} s of each load, 32 connections.

| server | RSS after imports | after migrations | after app built | idle after GC: RSS / heap | peak RSS under load (VmHWM) | after GC: RSS / heap | REST reads req/s (CPU/req) | lists of 100 req/s (CPU/req) | errors |
|---|---|---|---|---|---|---|---|---|---|
${lines.join("\n")}

(MiB throughout)`);
process.exit(0);

/**
 * `npx tsx bench/profile-read.ts [rest|graphql|post|list]`: a CPU profile of the server under the bench's
 * read load (seeded schema as `npm run bench`), written to BENCH_PROFILE_DIR (default /tmp), and the
 * top self-time functions and packages printed. For finding what a read still costs, not a figure.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { build, dropSchema, measured, seed, startApp, startFlags } from "./harness.js";

const which = process.argv[2] ?? "rest";
const dir = process.env.BENCH_PROFILE_DIR ?? "/tmp";
const seconds = Number(process.env.BENCH_SECONDS ?? 8);
build();
const { byId, byClient } = await seed();
try {
  const app = await startApp([...startFlags(), "--cpu-prof", `--cpu-prof-dir=${dir}`]);
  const load = which === "list"
    ? { method: "POST" as const, path: "/graphql", body: JSON.stringify({ query: "{ users(first: 100) { edges { node { id status documents { id } checks { id status } } } } }" }) }
    : which === "post"
    ? { method: "POST" as const, path: "/v2/users", body: JSON.stringify({ first_name: "Load", last_name: "Bench", email: "load-{n}@example.com" }) }
    : which === "rest"
    ? { method: "GET" as const, path: "/v2/users/{id}" }
    : { method: "POST" as const, path: "/graphql", body: JSON.stringify({ query: "query($id: ID!) { user(id: $id) { id email firstName lastName phoneNumber status kycStatus createdAt updatedAt } }", variables: { id: "{id}" } }) };
  const targets = which === "post" || which === "list" ? byClient : byId;
  await measured(app, { ...load, targets, connections: 32, seconds: 2 });
  // a POST queues three check runs: they are worked before the profile ends, so their cost is in it
  const result = await measured(app, { ...load, targets, connections: 32, seconds }, { drain: which === "post" });
  console.log(`${which}: ${Math.round(result.requests / seconds)} req/s, ${Math.round(result.cpuUs)} µs CPU/req`);
  const before = new Set(readdirSync(dir));
  app.child.kill("SIGINT");
  await new Promise((r) => app.child.once("exit", r));
  const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile") && !before.has(f)) ?? readdirSync(dir).filter((f) => f.endsWith(".cpuprofile")).sort().at(-1)!;
  summarise(JSON.parse(readFileSync(path.join(dir, file), "utf8")));
  console.log(`profile: ${path.join(dir, file)}`);
} finally { await dropSchema(); }

type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] };
function summarise(profile: { nodes: Node[]; samples: number[]; timeDeltas: number[] }) {
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const byFn = new Map<string, number>();
  const byPkg = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const t = self.get(node.id) ?? 0;
    if (node.callFrame.functionName === "(idle)") continue;
    total += t;
    const url = node.callFrame.url.replace(/^file:\/\//, "");
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1] ?? (url.includes("/dist/src/") ? `app:${url.split("/dist/src/")[1].split("/")[0]}` : url ? "node:" + path.basename(url) : node.callFrame.functionName);
    byPkg.set(pkg, (byPkg.get(pkg) ?? 0) + t);
    const key = `${node.callFrame.functionName || "(anon)"} ${url.split("/").slice(-2).join("/")}:${node.callFrame.lineNumber}`;
    byFn.set(key, (byFn.get(key) ?? 0) + t);
  }
  const top = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `${(100 * v / total).toFixed(1).padStart(5)} %  ${k}`).join("\n");
  console.log(`busy ${Math.round(total / 1000)} ms\n-- by package --\n${top(byPkg, 25)}\n-- by function --\n${top(byFn, 40)}`);
}

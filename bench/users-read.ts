/**
 * GET a user by id: REST shim vs GraphQL vs raw node:http + pg, each server in its own process,
 * autocannon in this one, all on 127.0.0.1. `npm run bench` (needs the local PostgreSQL;
 * BENCH_SECONDS, BENCH_CONNECTIONS to tune). Prints a table; results go to bench/RESULTS.md by hand.
 */
import { fork, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import autocannon from "autocannon";
import pg from "pg";

const DATABASE_URL = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 20);
const schema = `bench_${randomBytes(4).toString("hex")}`;
const env = { ...process.env, DATABASE_URL, DATABASE_SCHEMA: schema, ENCRYPTION_KEY: randomBytes(32).toString("hex"), NODE_ENV: "production", REDIS_URL: "", RATE_LIMIT_PER_MINUTE: "0" };

function spawnServer(file: string): Promise<{ child: ChildProcess; info: any }> {
  const child = fork(path.join(import.meta.dirname, file), { env, execArgv: ["--import", "tsx", "--expose-gc"] });
  return new Promise((resolve, reject) => { child.once("message", (info) => resolve({ child, info })); child.once("exit", reject); });
}

async function load(title: string, opts: autocannon.Options) {
  await autocannon({ ...opts, duration: 2, connections }); // warm-up
  const r = await autocannon({ ...opts, duration: seconds, connections });
  const row = { title, rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.non2xx };
  console.log(JSON.stringify(row));
  return row;
}

const app = await spawnServer("serve-app.ts");
const { port, apiKey, userId } = app.info;
const auth = { authorization: `Bearer ${apiKey}` };
const rest = await load("REST GET /v2/users/{id}", { url: `http://127.0.0.1:${port}/v2/users/${userId}`, headers: auth });
const gql = await load("GraphQL user(id)", {
  url: `http://127.0.0.1:${port}/graphql`, method: "POST", headers: { ...auth, "content-type": "application/json" },
  body: JSON.stringify({ query: `query($id: ID!) { user(id: $id) { id email firstName lastName status createdAt } }`, variables: { id: userId } }),
});
app.child.send("memory");
const memory = await new Promise((resolve) => app.child.once("message", resolve));
console.log(JSON.stringify({ title: "server memory after the load", ...(memory as object) }));
app.child.kill("SIGTERM");
const raw = await spawnServer("raw-pg-baseline.ts");
const baseline = await load("raw node:http + pg", { url: `http://127.0.0.1:${raw.info.port}/v2/users/${userId}`, headers: auth });
raw.child.kill("SIGTERM");

console.log(`\nratio REST/raw ${(rest.rps / baseline.rps).toFixed(2)}, GraphQL/raw ${(gql.rps / baseline.rps).toFixed(2)} (${seconds}s, ${connections} connections)`);
const admin = new pg.Client({ connectionString: DATABASE_URL });
await admin.connect();
await admin.query(`drop schema "${schema}" cascade`);
await admin.end();
process.exit(0);

/**
 * Remittance lookups under load: `npx tsx bench/lookups.ts`. The server runs in a child process on
 * its own embedded PGlite in a fresh temporary DATA_DIR, with the shipped catalogue plus 100k
 * synthetic branches; autocannon in this process hits only 127.0.0.1 for a bounded time
 * (BENCH_SECONDS, default 10, per case; BENCH_CONNECTIONS, default 20; BENCH_BRANCHES, default
 * 100000). BENCH_DATABASE_URL=postgresql://… runs the same on a PostgreSQL server instead, in a
 * schema of its own that is dropped afterwards. Prints one JSON row per case; the numbers go to
 * bench/RESULTS.md by hand.
 */
import { fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import autocannon from "autocannon";

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 20);
const branches = Number(process.env.BENCH_BRANCHES ?? 100_000);
const CITIES = [
  "Mumbai",
  "Delhi",
  "Bengaluru",
  "Hyderabad",
  "Ahmedabad",
  "Chennai",
  "Kolkata",
  "Pune",
  "Jaipur",
  "Lucknow",
  "Kanpur",
  "Nagpur",
  "Indore",
  "Thane",
  "Bhopal",
  "Visakhapatnam",
  "Patna",
  "Vadodara",
  "Ghaziabad",
  "Ludhiana",
  "Agra",
  "Nashik",
  "Faridabad",
  "Meerut",
  "Rajkot",
  "Varanasi",
  "Srinagar",
  "Aurangabad",
  "Dhanbad",
  "Amritsar",
  "Allahabad",
  "Ranchi",
  "Howrah",
  "Coimbatore",
  "Jabalpur",
  "Gwalior",
  "Vijayawada",
  "Jodhpur",
  "Madurai",
  "Raipur",
];

if (process.env.BENCH_ROLE === "server") await serve();
else await measure();

/** Child: build the app, load the catalogue and the synthetic branches, listen on 127.0.0.1. */
async function serve() {
  const { buildApp } = await import("../src/app.js");
  const { loadConfig } = await import("../src/config.js");
  const { createApiClient } = await import("../src/domains/clients/clients.service.js");
  const { loadShippedReferenceData } = await import("../src/domains/remittance/remittance.import.js");
  const { searchKey } = await import("../src/domains/remittance/remittance.rules.js");
  const app = await buildApp(loadConfig({ ...process.env, LOG_LEVEL: "warn" }));
  const db = app.services.db;
  await loadShippedReferenceData(db);
  const started = Date.now();
  // a fifth in State Bank of India (the searched bank, as large as the real one), the rest spread over the other Indian banks
  const banks = await db.receivingInstitution.findMany({
    where: { countryCode: "IN", type: "BANK", status: "ACTIVE", id: { not: "in-sbin" } },
    select: { id: true, name: true, localCode: true },
  });
  const sbi = await db.receivingInstitution.findUniqueOrThrow({ where: { id: "in-sbin" }, select: { id: true, name: true, localCode: true } });
  const rows = Array.from({ length: branches }, (_, n) => {
    const bank = n < branches / 5 ? sbi : banks[n % banks.length];
    const city = CITIES[n % CITIES.length];
    const code = `${bank.localCode ?? "XXXX"}0S${String(n).padStart(5, "0")}`;
    const name = `${bank.name} ${city} ${n}`;
    const address = `${(n % 900) + 1} Station Road, ${city}`;
    return {
      id: `${bank.id}-s${n}`,
      institutionId: bank.id,
      name,
      code,
      city,
      address,
      nameKey: searchKey(name),
      cityKey: searchKey(city),
      searchKey: searchKey(name, code, city, address),
    };
  });
  for (let i = 0; i < rows.length; i += 5_000) await db.branch.createMany({ data: rows.slice(i, i + 5_000) });
  await db.receivingInstitution.updateMany({ where: { id: { in: [sbi.id, ...banks.map((b) => b.id)] } }, data: { hasBranches: true } });
  await db.$executeRawUnsafe("ANALYZE"); // PGlite runs no autovacuum: give the planner the statistics a server would have
  const actor = { principal: { kind: "operator" as const, clientId: null, keyId: "admin" as const, mode: null, scopes: new Set<string>() } };
  const { apiKey } = await createApiClient(app.services.transact, actor, { name: "bench", mode: "SANDBOX", scopes: ["lookups:read"] });
  const port = await app.start(0, "127.0.0.1");
  process.send?.({ port, apiKey, branches: await db.branch.count(), seedMs: Date.now() - started });
  process.on("SIGTERM", async () => {
    await app.stop();
    process.exit(0);
  });
}

/** Parent: start the child, then each case gets a 2 s warm-up and a measured run. */
async function measure() {
  const dataDir = await mkdtemp(path.join(tmpdir(), "bench-lookups-"));
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? "";
  const schema = `bench_${randomBytes(4).toString("hex")}`;
  const env = {
    ...process.env,
    BENCH_ROLE: "server",
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    DATABASE_SCHEMA: databaseUrl ? schema : "",
    REDIS_URL: "",
    RATE_LIMIT_PER_MINUTE: "0",
    NODE_ENV: "production",
    ENCRYPTION_KEY: randomBytes(32).toString("hex"),
  };
  const child = fork(import.meta.filename, { env, execArgv: ["--import", "tsx"] });
  const info = await new Promise<{ port: number; apiKey: string; branches: number; seedMs: number }>((resolve, reject) => {
    child.once("message", resolve as never);
    child.once("exit", reject);
  });
  console.log(JSON.stringify({ database: databaseUrl ? "PostgreSQL" : "PGlite", branches: info.branches, seedMs: info.seedMs, seconds, connections }));
  const base = `http://127.0.0.1:${info.port}`;
  const auth = { authorization: `Bearer ${info.apiKey}` };
  const currencies = `${base}/payouts/remittances/utilities/currencies?status=ACTIVE&records_per_page=50`;
  const etag = (await fetch(currencies, { headers: auth })).headers.get("etag")!;
  // a repeated URL is answered from the shared cache; `fresh` cases make every request a new URL (a cache miss)
  const cases: [string, string, Record<string, string>, fresh?: boolean][] = [
    [
      "branch search, every request a new URL (cache miss)",
      `${base}/users/wallets/payouts/remittances/BANK/branches/in-sbin?search=mumbai&records_per_page=20`,
      auth,
      true,
    ],
    ["currency list, every request a new URL (cache miss)", currencies, auth, true],
    [
      "branch search (in-sbin, search=mumbai, 20 a page)",
      `${base}/users/wallets/payouts/remittances/BANK/branches/in-sbin?search=mumbai&records_per_page=20`,
      auth,
    ],
    ["branch search, page 10", `${base}/users/wallets/payouts/remittances/BANK/branches/in-sbin?search=mumbai&records_per_page=20&page=10`, auth],
    ["currency list (ACTIVE, 50 a page)", currencies, auth],
    ["currency list, If-None-Match → 304", currencies, { ...auth, "if-none-match": etag }],
  ];
  try {
    let n = 0;
    for (const [title, url, headers, fresh] of cases) {
      const requests = fresh ? [{ setupRequest: (req: any) => ({ ...req, path: `${req.path}&n=${n++}` }) }] : undefined;
      await autocannon({ url, headers, duration: 2, connections, requests });
      const r = await autocannon({ url, headers, duration: seconds, connections, requests });
      console.log(
        JSON.stringify({
          title,
          rps: Math.round(r.requests.average),
          p50: r.latency.p50,
          p99: r.latency.p99,
          ok: r["2xx"] + r["3xx"],
          failed: r.errors + r["4xx"] + r["5xx"],
        }),
      );
    }
  } finally {
    // autocannon drops its sockets at the deadline; let the server finish what it already started
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
    await rm(dataDir, { recursive: true, force: true });
    if (databaseUrl) await dropSchema(databaseUrl, schema);
  }
  process.exit(0);
}

async function dropSchema(url: string, schema: string) {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`drop schema if exists "${schema}" cascade`);
  await client.end();
}

/**
 * `npx tsx bench/db-promotion.ts`: how much of what a database read allocates outlives minor GCs
 * (is promoted to old space, to be freed only by a mark-compact), by the layer the read goes
 * through. Each mode runs in a child with `--trace-gc-nvp`, reading 100 users at a time for 6 s,
 * and reports the mean bytes promoted and the mean pause per scavenge:
 * - `pg`: node-postgres's Pool as it comes;
 * - `wrapped`: the same Pool, each query's callback wrapped in a closure (what pg's own
 *   `query_timeout` does, and what the app's client did before its watchdog);
 * - `app-pool`: the app's Pool (src/db/client.ts `watchedClient`);
 * - `prisma`: a raw statement through the app's Prisma client (adapter-pg on the app's Pool);
 * - `prisma-tx`: the same statement inside an interactive transaction (a checked-out client, asked
 *   for a promise: what every write of the app does);
 * - `prisma-model`: the same 100 users as a model query (`user.findMany`), through the query plan;
 * - `prisma-relation`: the same with each user's documents (a second statement, joined in memory);
 * - `prisma-in`: documents of ten users named in an `in` list (one plan, a list parameter).
 * Found while looking for the half-rate tails of issue #17 (bench/RESULTS-archive.md, sixth and eighth
 * sessions); the Prisma rows measure Prisma as installed, with scripts/prisma-runtime.mjs's edits
 * (docs/upstream/prisma-client.md).
 */
import { execFileSync } from "node:child_process";
import pg from "pg";
import { databaseUrl, dropSchema, schema, seed } from "./harness.js";
import { createDb, watchedClient } from "../src/db/client.js";

const MODES = ["pg", "wrapped", "app-pool", "prisma", "prisma-tx", "prisma-model", "prisma-relation", "prisma-in"] as const;
type Mode = (typeof MODES)[number];

if (process.argv[2]) await measure(process.argv[2] as Mode, process.argv[3]!);
else {
  await seed();
  try {
    console.log("| reads through | promoted per scavenge, KiB | scavenge pause, ms |\n|---|---|---|");
    // BENCH_MODES=prisma,prisma-tx: only those
    for (const mode of MODES.filter((m) => !process.env.BENCH_MODES || process.env.BENCH_MODES.split(",").includes(m))) {
      const trace = execFileSync(process.execPath, ["--import", "tsx", "--trace-gc", "--trace-gc-nvp", import.meta.filename, mode, schema], {
        encoding: "utf8",
        env: { ...process.env, BENCH_DATABASE_URL: databaseUrl },
      });
      const lines = trace
        .split("\n")
        .slice(trace.split("\n").indexOf("measured"))
        .filter((l) => l.includes("gc=s "));
      const mean = (field: string) => lines.reduce((sum, l) => sum + Number(new RegExp(` ${field}=([\\d.]+)`).exec(l)![1]), 0) / Math.max(lines.length, 1);
      console.log(`| ${mode} | ${Math.round(mean("promoted") / 1024)} | ${mean("pause").toFixed(1)} |`);
    }
  } finally {
    await dropSchema();
  }
}

/** in the child: reads for 6 s after a warm-up; "measured" marks where the trace counts from */
async function measure(mode: Mode, seeded: string) {
  class Wrapped extends pg.Client {
    constructor(config?: string | pg.ClientConfig) {
      super(config);
      const query = this.query.bind(this) as (...a: unknown[]) => unknown;
      this.query = ((...args: unknown[]) => {
        const callback = args.at(-1);
        if (typeof callback === "function") args[args.length - 1] = (error: unknown, result: unknown) => callback(error, result);
        return query(...args);
      }) as typeof this.query;
    }
  }
  const sql = `select id, status from "${seeded}".users limit 100`;
  const Client = mode === "wrapped" ? Wrapped : mode === "app-pool" ? watchedClient() : pg.Client;
  const pool = new pg.Pool({ connectionString: databaseUrl, Client });
  const db = mode.startsWith("prisma") ? await createDb({ databaseUrl, databaseSchema: seeded, dataDir: "" }) : null;
  const read = () =>
    !db
      ? pool.query(sql)
      : mode === "prisma-tx"
        ? db.prisma.$transaction((tx) => tx.$queryRawUnsafe(sql))
        : mode === "prisma-model"
          ? db.prisma.user.findMany({ select: { id: true, status: true }, take: 100 })
          : mode === "prisma-in"
            ? db.prisma.document.findMany({ select: { id: true, userId: true }, where: { userId: { in: ten } } })
            : mode === "prisma-relation"
              ? db.prisma.user.findMany({ select: { id: true, status: true, documents: { select: { id: true } } }, take: 100 })
              : db.prisma.$queryRawUnsafe(sql);
  const ten = mode === "prisma-in" ? (await db!.prisma.user.findMany({ select: { id: true }, take: 10 })).map((u) => u.id) : [];
  for (let i = 0; i < 300; i++) await read();
  console.log("measured");
  for (const end = Date.now() + 6_000; Date.now() < end; ) {
    await read();
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  await db?.close();
  await pool.end();
}

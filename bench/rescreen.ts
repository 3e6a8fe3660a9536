/**
 * Re-screening after a list update: `npx tsx bench/rescreen.ts`. The app (its job workers on) on the
 * local PostgreSQL (BENCH_DATABASE_URL, default postgresql://postgres@127.0.0.1:5432/test), in a schema
 * of its own dropped afterwards, with BENCH_USERS (default 100,000) synthetic users: common names of
 * several cultures (the screening test set's), 2 % of them written like listed people (the test set's
 * listed variants), each with a completed screening against the shipped list. Then an import of the
 * shipped list with BENCH_CHANGED (default 1 %) of its individuals' dates of birth changed, as
 * `cli watchlist import` runs it, and the times of each phase until the last LIST_UPDATE run completed.
 * Prints one table.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { buildApp } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { CLI_ACTOR } from "../src/principal.js";
import { createApiClient } from "../src/domains/clients/clients.service.js";
import { recordWatchlistImport } from "../src/domains/checks/checks.rescreen.js";
import { hasCandidates, screenPerson, type PersonToScreen } from "../src/domains/checks/screening/screen-person.js";
import { buildWatchlist, SHIPPED_WATCHLIST } from "../src/domains/checks/screening/watchlist.js";
import { diffWatchlists, entriesList } from "../src/domains/checks/screening/watchlist-diff.js";
import { importWatchlistFile } from "../src/domains/checks/screening/watchlist-import.js";
import { CULTURES } from "../src/domains/checks/screening/testset/common-names.js";
import type { TestCase } from "../src/domains/checks/screening/testset/test-case.js";

const url = process.env.BENCH_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const userCount = Number(process.env.BENCH_USERS ?? 100_000);
const changedShare = Number(process.env.BENCH_CHANGED ?? 0.01);
const NEAR_LISTED = 0.02;

/** deterministic: the same users and the same changes every run */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}
const random = rng(20240601);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
const dob = () =>
  `${1940 + Math.floor(random() * 65)}-${String(1 + Math.floor(random() * 12)).padStart(2, "0")}-${String(1 + Math.floor(random() * 28)).padStart(2, "0")}`;
const ms = (from: number) => Math.round(performance.now() - from);

const listed: TestCase[] = JSON.parse(await readFile(new URL("../src/domains/checks/screening/testset/listed.json", import.meta.url), "utf8"));
const people: PersonToScreen[] = Array.from({ length: userCount }, (_, i) => {
  if (i % Math.round(1 / NEAR_LISTED) === 0) {
    const { person } = pick(listed);
    return { ...person, dateOfBirth: person.dateOfBirth ?? (random() < 0.5 ? dob() : null) };
  }
  const culture = pick(CULTURES);
  return {
    firstName: pick(culture.first),
    middleName: culture.middle && random() < 0.3 ? pick(culture.middle) : null,
    lastName: pick(culture.last),
    dateOfBirth: dob(),
    nationality: pick(culture.countries),
  };
});

const schema = `bench_rescreen_${randomBytes(4).toString("hex")}`;
const dataDir = await mkdtemp(path.join(tmpdir(), "og-bench-rescreen-"));
const app = await buildApp(
  loadConfig({
    DATABASE_URL: url,
    DATABASE_SCHEMA: schema,
    DATA_DIR: dataDir,
    ENCRYPTION_KEY: randomBytes(32).toString("hex"),
    ADMIN_API_KEY: randomBytes(24).toString("hex"),
    PERIODIC_CHECKS_CRON: "off",
    LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
  }),
);
const { db, transact } = app.services;
const rows: [string, number | string][] = [];
try {
  // ── the users and their screenings against the shipped list ──
  let at = performance.now();
  const shippedText = await readFile(SHIPPED_WATCHLIST, "utf8");
  const shipped = buildWatchlist(shippedText, SHIPPED_WATCHLIST);
  const { client } = await createApiClient(transact, CLI_ACTOR, { name: "Bench", mode: "SANDBOX" });
  const CHUNK = 5_000;
  let hits = 0;
  for (let from = 0; from < people.length; from += CHUNK) {
    const now = new Date().toISOString();
    const users = people.slice(from, from + CHUNK).map((p) => ({
      id: randomUUID(),
      client_id: client.id,
      first_name: p.firstName,
      middle_name: p.middleName ?? null,
      last_name: p.lastName,
      date_of_birth: p.dateOfBirth ?? null,
      nationality: p.nationality ?? null,
      updated_at: now,
    }));
    const runs = users.map((u, i) => {
      const result = screenPerson(people[from + i]!, shipped);
      if (result.matches.length) hits++;
      const { status, ...rest } = result;
      return { id: randomUUID(), client_id: client.id, user_id: u.id, status, result: { ...rest, provider: shipped.version.id }, created_at: now };
    });
    await db.$executeRawUnsafe(
      `insert into users (id, client_id, first_name, middle_name, last_name, date_of_birth, nationality, country_of_residence, status, kyc_status, updated_at)
       select id, client_id, first_name, middle_name, last_name, date_of_birth, nationality, 'SG', 'ACTIVE', 'APPROVED', updated_at
       from jsonb_to_recordset($1::jsonb) as r(id uuid, client_id uuid, first_name text, middle_name text, last_name text, date_of_birth date, nationality text, updated_at timestamp(3))`,
      JSON.stringify(users),
    );
    await db.$executeRawUnsafe(
      `insert into check_runs (id, client_id, user_id, type, trigger, status, result, decided_by, created_at, started_at, completed_at)
       select id, client_id, user_id, 'SANCTIONS_SCREENING', 'USER_UPDATED', status, result, 'SYSTEM', created_at, created_at, created_at
       from jsonb_to_recordset($1::jsonb) as r(id uuid, client_id uuid, user_id uuid, status "CheckStatus", result jsonb, created_at timestamp(3))`,
      JSON.stringify(runs),
    );
  }
  await db.$executeRawUnsafe("analyze users");
  await db.$executeRawUnsafe("analyze check_runs");
  rows.push(["users (with a screening naming a listed entry)", `${userCount} (${hits})`], ["seeding: users inserted and screened", `${ms(at)} ms`]);

  // ── the new list: a share of the individuals with a date of birth born a year later ──
  const withDob = shipped.entries.filter((e) => e.birthDates.some((b) => /\d{4}/.test(b.text)));
  const toChange = new Set<string>();
  while (toChange.size < Math.round(shipped.entries.length * changedShare)) toChange.add(pick(withDob).id);
  const lines = shippedText.split("\r\n").map((line) => {
    const id = /^(\d+),/.exec(line)?.[1];
    return id && toChange.has(id) ? line.replace(/DOB ((?:\d{2} )?(?:[A-Z][a-z]{2} )?)(\d{4})/, (_, day, year) => `DOB ${day}${Number(year) + 1}`) : line;
  });
  const file = path.join(dataDir, "sdn-2024-06-01.csv");
  await writeFile(file, lines.join("\r\n"));
  const next = buildWatchlist(lines.join("\r\n"), file);
  at = performance.now();
  const diff = diffWatchlists(shipped, next);
  rows.push(["list diff (two loaded lists)", `${ms(at)} ms: ${diff.added.length} added, ${diff.changed.length} changed, ${diff.removed.length} removed`]);
  at = performance.now();
  const brought = entriesList(next, [...diff.added, ...diff.changed]);
  const couldMatch = people.filter((p) => hasCandidates(p, brought)).length;
  rows.push([`candidate retrieval alone (CPU, ${userCount} users, ${brought.entries.length} entries)`, `${ms(at)} ms: ${couldMatch} could match`]);

  // ── the import as `cli watchlist import` runs it, the job, the runs ──
  at = performance.now();
  let importId = "";
  await importWatchlistFile(file, dataDir, undefined, async (imported) => {
    importId = (await recordWatchlistImport({ db, transact }, imported)).id;
  });
  rows.push(["import (both lists loaded, diff, file copied, row and job written)", `${ms(at)} ms`]);
  let row = await db.watchlistImport.findUniqueOrThrow({ where: { id: importId } });
  while (!row.rescreenedAt) {
    await new Promise((r) => setTimeout(r, 100));
    row = await db.watchlistImport.findUniqueOrThrow({ where: { id: importId } });
  }
  const seconds = (to: Date) => ((to.getTime() - row.importedAt.getTime()) / 1000).toFixed(1);
  rows.push(["import → re-screen queued (job: new list loaded, users paged, runs queued)", `${seconds(row.rescreenedAt!)} s: ${row.rescreened} users`]);
  const busy = () => db.checkRun.count({ where: { trigger: "LIST_UPDATE", status: { in: ["QUEUED", "RUNNING"] } } });
  while ((await busy()) > 0) await new Promise((r) => setTimeout(r, 200));
  const last = await db.checkRun.findFirst({ where: { trigger: "LIST_UPDATE" }, orderBy: { completedAt: "desc" }, select: { completedAt: true } });
  const byStatus = await db.checkRun.groupBy({ by: ["status"], where: { trigger: "LIST_UPDATE" }, _count: true });
  // runs are worked as the job queues them, page by page: from the first queued to the last completed
  const first = await db.checkRun.findFirst({ where: { trigger: "LIST_UPDATE" }, orderBy: { createdAt: "asc" }, select: { createdAt: true } });
  const worked = (last!.completedAt!.getTime() - first!.createdAt.getTime()) / 1000;
  rows.push(
    ["first LIST_UPDATE run queued → last completed", `${worked.toFixed(1)} s (${Math.round(row.rescreened / Math.max(worked, 0.001))} runs/s)`],
    ["import → last run completed", `${seconds(last!.completedAt!)} s`],
    ["LIST_UPDATE results", byStatus.map((s) => `${s.status} ${s._count}`).join(", ")],
  );
  row = await db.watchlistImport.findUniqueOrThrow({ where: { id: importId } });
  rows.push(["import → last alert (a review opened)", row.lastAlertAt ? `${seconds(row.lastAlertAt)} s` : "none"]);
} finally {
  await app.stop();
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`drop schema if exists "${schema}" cascade`);
  await admin.query(`drop schema if exists "${schema}_boss" cascade`);
  await admin.end();
  await rm(dataDir, { recursive: true, force: true });
}

console.log(`\n| re-screen after a list update (${Math.round(changedShare * 100)} % of individuals changed) | |\n|---|---|`);
for (const [what, value] of rows) console.log(`| ${what} | ${value} |`);

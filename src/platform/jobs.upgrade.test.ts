/**
 * A database whose job tables pg-boss 10 made, with jobs it had not finished, started on this job
 * engine (pg-boss 12): the jobs are carried over and worked, the old schema is gone, and a second
 * start changes nothing. pg-boss 10's schema and its job insert are its own SQL, captured from
 * pg-boss 10.4.2 (test/fixtures).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../../test/helpers/eventually.js";
import { backends } from "../../test/helpers/app.js";
import { bossSchemaFor, createJobs } from "./jobs.js";
import { upgradeFromPgBoss10, upgradeOnPglite, upgradeOnPool, type Upgrade } from "./jobs.upgrade.js";

type Raw = { exec(sql: string): Promise<unknown>; query(sql: string, values?: unknown[]): Promise<{ rows: any[] }>; close(): Promise<void> };
type Line = { fields: Record<string, unknown>; msg: string };

const fixture = (file: string, boss: string) =>
  readFileSync(new URL(`../../test/fixtures/${file}`, import.meta.url), "utf8").replaceAll("__BOSS_SCHEMA__", boss);

/** A database of either kind: its own in-memory PGlite, or a fresh schema on the PostgreSQL server. */
async function openDatabase(backend: "pglite" | "postgres") {
  if (backend === "pglite") {
    const pglite = new PGlite();
    const raw: Raw = { exec: (sql) => pglite.exec(sql), query: (sql, values) => pglite.query(sql, values), close: () => pglite.close() };
    return { raw, boss: bossSchemaFor(), database: { pglite, server: null } };
  }
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  const schema = `test_${randomBytes(6).toString("hex")}`;
  const boss = bossSchemaFor(schema);
  const raw: Raw = {
    exec: (sql) => client.query(sql),
    query: (sql, values) => client.query(sql, values),
    close: async () => {
      await client.query(`drop schema if exists ${boss} cascade; drop schema if exists ${boss}_v10 cascade`);
      await client.end();
    },
  };
  return { raw, boss, database: { pglite: null, server: { url: process.env.DATABASE_URL!, schema } } };
}

/** The engine as the app makes it, its log lines kept. */
function engine(database: Awaited<ReturnType<typeof openDatabase>>["database"], lines: Line[] = []) {
  const keep = (fields: Record<string, unknown>, msg: string) => {
    lines.push({ fields, msg });
  };
  return createJobs(database as never, { info: keep, warn: keep, error: keep, debug: () => {} } as never);
}

const upgradeLines = (lines: Line[]) => lines.filter((l) => l.msg.includes("upgraded from pg-boss 10"));

/** The upgrade as the engine runs it, its process dying at the last statement before the commit. */
const dyingBeforeCommit = (upgrade: Upgrade): Upgrade => ({
  ...upgrade,
  transaction: (fn) =>
    upgrade.transaction((s) =>
      fn({ ...s, query: (text, values) => (text.startsWith("drop schema") ? Promise.reject(new Error("the process dies here")) : s.query(text, values)) }),
    ),
});

/**
 * pg-boss 10's schema with queues and jobs as its createQueue, send, fetch, fail and complete left
 * them: three jobs due (one of them taken by a worker that then died, one failed once and due for its
 * retry), one scheduled for an hour later, one completed, one in a `short` queue with a schedule,
 * and one of its internal cron sends.
 */
async function seedPgBoss10(raw: Raw, boss: string) {
  await raw.exec(fixture("pg-boss-10-schema.sql", boss));
  const createQueue = (name: string, options: object) => raw.query(`select ${boss}.create_queue($1, $2)`, [name, JSON.stringify(options)]);
  await createQueue("test.upgrade", { policy: "standard", retryLimit: 3, retryDelay: 1, retryBackoff: false, expireInSeconds: 30 });
  await createQueue("test.upgrade.short", { policy: "short", retryLimit: 2, retryDelay: 60, expireInSeconds: 900, retentionMinutes: 60 });
  await createQueue("__pgboss__send-it", { policy: "standard" });
  await raw.query(
    `insert into ${boss}.schedule (name, cron, timezone, data, options) values ('test.upgrade.short', '0 0 1 1 *', 'UTC', '{}', '{"tz": "UTC"}')`,
  );
  const insert = fixture("pg-boss-10-insert-job.sql", boss);
  const send = async (name: string, data: object, { startAfter = null as string | null, singletonKey = null as string | null } = {}) => {
    const id = randomUUID();
    // id, name, data, priority, start_after, singleton_key, singleton_seconds, singleton_offset, dead_letter, then the option and default pairs
    await raw.query(insert, [
      id,
      name,
      JSON.stringify(data),
      null,
      startAfter,
      singletonKey,
      null,
      0,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
    ]);
    return id;
  };
  const ids = {
    due: await send("test.upgrade", { n: 1 }),
    active: await send("test.upgrade", { n: 2 }),
    retry: await send("test.upgrade", { n: 3 }),
    later: await send("test.upgrade", { n: 4 }, { startAfter: "3600", singletonKey: "later" }),
    completed: await send("test.upgrade", { n: 5 }),
    short: await send("test.upgrade.short", { n: 6 }),
    cron: await send("__pgboss__send-it", { name: "test.upgrade.short" }, { singletonKey: "test.upgrade.short" }),
  };
  await raw.query(`update ${boss}.job set state = 'active', started_on = now() where id = $1`, [ids.active]);
  await raw.query(`update ${boss}.job set state = 'retry', retry_count = 1, output = '{"message":"boom"}' where id = $1`, [ids.retry]);
  await raw.query(`update ${boss}.job set state = 'completed', started_on = now(), completed_on = now() where id = $1`, [ids.completed]);
  const { rows } = await raw.query(`select id, start_after::text, created_on::text, keep_until::text from ${boss}.job`);
  return { ids, times: new Map(rows.map((r) => [r.id as string, r])) };
}

describe.each(backends)("a database pg-boss 10 left, started on pg-boss 12 (%s)", (backend) => {
  let db: Awaited<ReturnType<typeof openDatabase>>;
  let seeded: Awaited<ReturnType<typeof seedPgBoss10>>;
  beforeAll(async () => {
    db = await openDatabase(backend);
    seeded = await seedPgBoss10(db.raw, db.boss);
  });
  afterAll(() => db?.raw.close());

  const jobs = async () =>
    (
      await db.raw.query(
        `select id, name, state::text, data, retry_count, retry_limit, retry_delay, expire_seconds, singleton_key, policy, output,
       start_after::text, created_on::text, keep_until::text from ${db.boss}.job where data ? 'n' order by (data->>'n')::int`,
      )
    ).rows;

  it("an upgrade that dies before its commit leaves pg-boss 10's schema as it was", async () => {
    const pool = db.database.server ? new pg.Pool({ connectionString: db.database.server.url, max: 1 }) : null;
    try {
      const upgrade = pool ? upgradeOnPool(pool) : upgradeOnPglite(db.database.pglite!);
      await expect(upgradeFromPgBoss10(dyingBeforeCommit(upgrade), db.boss)).rejects.toThrow("the process dies here");
    } finally {
      await pool?.end();
    }
    expect((await db.raw.query(`select version from ${db.boss}.version`)).rows).toEqual([{ version: 24 }]);
    expect((await db.raw.query(`select count(*)::int as n from ${db.boss}.job`)).rows[0].n).toBe(7);
    expect((await db.raw.query(`select count(*)::int as n from pg_namespace where nspname = $1`, [`${db.boss}_v10`])).rows[0].n).toBe(0);
  });

  it("carries every unfinished job over, with its queue, data, options and start time, and drops the old schema", async () => {
    const lines: Line[] = [];
    const web = engine(db.database, lines);
    await web.start({ work: false }); // nothing worked yet: the jobs are seen as carried
    await web.stop();
    expect(upgradeLines(lines)).toEqual([{ fields: { jobs: 5, skipped: 0, queues: 2, schema: db.boss }, msg: expect.any(String) }]);
    const { ids, times } = seeded;
    const carried = await jobs();
    expect(carried.map((j) => [j.id, j.name, j.state, j.data])).toEqual([
      [ids.due, "test.upgrade", "created", { n: 1 }],
      [ids.active, "test.upgrade", "created", { n: 2 }], // its process died holding it: it runs again
      [ids.retry, "test.upgrade", "retry", { n: 3 }],
      [ids.later, "test.upgrade", "created", { n: 4 }],
      [ids.short, "test.upgrade.short", "created", { n: 6 }],
    ]);
    for (const job of carried)
      expect([job.start_after, job.created_on, job.keep_until]).toEqual([
        times.get(job.id).start_after,
        times.get(job.id).created_on,
        times.get(job.id).keep_until,
      ]);
    expect(carried.find((j) => j.id === ids.retry)).toMatchObject({
      retry_count: 1,
      retry_limit: 3,
      retry_delay: 1,
      expire_seconds: 30,
      output: { message: "boom" },
    });
    expect(carried.find((j) => j.id === ids.later)).toMatchObject({ singleton_key: "later", policy: "standard" });
    expect(carried.find((j) => j.id === ids.short)).toMatchObject({ retry_limit: 2, retry_delay: 60, expire_seconds: 900, policy: "short" });
    const queues = (await db.raw.query(`select name, policy, retry_limit, retention_seconds from ${db.boss}.queue where name like 'test.%' order by name`))
      .rows;
    expect(queues).toEqual([
      { name: "test.upgrade", policy: "standard", retry_limit: 3, retention_seconds: 14 * 24 * 3600 },
      { name: "test.upgrade.short", policy: "short", retry_limit: 2, retention_seconds: 3600 },
    ]);
    expect((await db.raw.query(`select name, key, cron, timezone from ${db.boss}.schedule`)).rows).toEqual([
      { name: "test.upgrade.short", key: "", cron: "0 0 1 1 *", timezone: "UTC" },
    ]);
    expect((await db.raw.query(`select count(*)::int as n from pg_namespace where nspname = $1`, [`${db.boss}_v10`])).rows[0].n).toBe(0);
    expect((await db.raw.query(`select version from ${db.boss}.version`)).rows[0].version).toBeGreaterThan(24);
  });

  it("works the carried jobs that are due; started again, it upgrades nothing", async () => {
    const lines: Line[] = [];
    const worked: number[] = [];
    const jobsEngine = engine(db.database, lines);
    await jobsEngine.define<{ n: number }>({
      name: "test.upgrade",
      workOptions: { pollingIntervalSeconds: 0.5, batchSize: 10 },
      work: async (batch) => {
        worked.push(...batch.map((j) => j.data.n));
      },
    });
    await jobsEngine.start();
    try {
      expect(
        (
          await eventually(
            () => worked,
            (w) => w.length >= 3,
            20_000,
          )
        ).sort(),
      ).toEqual([1, 2, 3]);
    } finally {
      await jobsEngine.stop();
    }
    expect(upgradeLines(lines)).toEqual([]);
    const states = Object.fromEntries((await jobs()).map((j) => [j.data.n, j.state]));
    expect(states).toEqual({ 1: "completed", 2: "completed", 3: "completed", 4: "created", 6: "created" });
  });
});

describe.runIf(!!process.env.DATABASE_URL)("two instances starting at once on a database pg-boss 10 left (postgres)", () => {
  it("upgrades it once: one instance carries the jobs over, the other finds it done", async () => {
    const db = await openDatabase("postgres");
    try {
      await seedPgBoss10(db.raw, db.boss);
      const lines: Line[] = [];
      const [a, b] = [engine(db.database, lines), engine(db.database, lines)];
      await Promise.all([a.start({ work: false }), b.start({ work: false })]);
      await Promise.all([a.stop(), b.stop()]);
      expect(upgradeLines(lines).map((l) => l.fields.jobs)).toEqual([5]);
      expect((await db.raw.query(`select count(*)::int as n from ${db.boss}.job where name like 'test.%'`)).rows[0].n).toBe(5);
    } finally {
      await db.raw.close();
    }
  });
});

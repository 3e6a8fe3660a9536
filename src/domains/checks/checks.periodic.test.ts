import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, multiInstance, startTestApp, startTwoInstances, type TestApp } from "../../../test/helpers/app.js";
import { bossSchemaFor } from "../../platform/jobs.js";
import { findDueUsers, PERIODIC_CHECKS_JOB, runPeriodicChecks } from "./checks.periodic.js";
import { within } from "../../../test/helpers/eventually.js";

const DAY = 24 * 3600 * 1000;

/** Users whose runs were made `ageDays` ago (null: none at all), with a status. */
async function seedUsers(t: TestApp, key: string, plan: { name: string; ageDays: number | null; status?: "CLOSED" | "ACTIVE"; country?: string }[]) {
  const ids: Record<string, string> = {};
  for (const p of plan) {
    const res = await t.rest("POST", "/v2/users", {
      key,
      body: { first_name: p.name, last_name: "Due", email: `${p.name.toLowerCase()}-${Date.now()}@example.com`, country_of_residence: p.country ?? "SG" },
    });
    ids[p.name] = res.body.user_id;
    if (p.ageDays === null) await t.db.checkRun.deleteMany({ where: { userId: ids[p.name] } });
    else
      await t.db.checkRun.updateMany({
        where: { userId: ids[p.name] },
        data: { createdAt: new Date(Date.now() - p.ageDays * DAY), status: "CLEAR", completedAt: new Date() },
      });
    if (p.status) await t.db.user.update({ where: { id: ids[p.name] }, data: { status: p.status } });
  }
  return ids;
}

describe.each(backends)("periodic checks on %s", (backend) => {
  let t: TestApp;
  // JOBS=0: the pass queues runs and nothing works them, so what it queued can be counted
  beforeAll(async () => {
    t = await startTestApp(backend, { JOBS: "0", PERIODIC_CHECKS_CRON: "off" });
  });
  afterAll(() => t?.stop());

  it("re-screens only the users whose last screening is older than their rule set's interval (365 days)", async () => {
    const { key } = await t.createClient("Periodic");
    const ids = await seedUsers(t, key, [
      { name: "Stale", ageDays: 366 },
      { name: "Fresh", ageDays: 300 },
      { name: "Never", ageDays: null },
      { name: "Closed", ageDays: 400, status: "CLOSED" },
      { name: "Abroad", ageDays: 370, country: "GB" },
    ]);
    const due = new Set((await findDueUsers(t.db, new Date(), null, 10_000)).map((u) => u.id));
    expect(
      Object.entries(ids)
        .filter(([, id]) => due.has(id))
        .map(([name]) => name)
        .sort(),
    ).toEqual(["Abroad", "Never", "Stale"]);

    const pass = await runPeriodicChecks(t.app.services);
    expect(pass.due).toBeGreaterThanOrEqual(3);
    const periodic = await t.db.checkRun.findMany({ where: { trigger: "PERIODIC", userId: { in: Object.values(ids) } }, select: { userId: true, type: true } });
    const byName = (name: string) =>
      periodic
        .filter((r) => r.userId === ids[name])
        .map((r) => r.type)
        .sort();
    expect(byName("Stale")).toEqual(["SANCTIONS_SCREENING", "TRANSACTION_MONITORING"]);
    expect(byName("Never")).toEqual(["SANCTIONS_SCREENING", "TRANSACTION_MONITORING"]);
    expect(byName("Fresh")).toEqual([]);
    expect(byName("Closed")).toEqual([]);
    // what was just queued is not due again: a second pass finds none of them
    const again = new Set((await findDueUsers(t.db, new Date(), null, 10_000)).map((u) => u.id));
    expect(Object.values(ids).filter((id) => again.has(id))).toEqual([]);
  });
});

describe.runIf(multiInstance)("the periodic pass across two instances", () => {
  let pair: Awaited<ReturnType<typeof startTwoInstances>>;
  beforeAll(async () => {
    // every minute, schedules looked at every second: the test waits for one tick (≤ 60 s)
    pair = await startTwoInstances({ PERIODIC_CHECKS_CRON: "* * * * *", JOBS_CRON_CHECK_SECONDS: "1" });
  }, 90_000);
  afterAll(() => pair?.stop());

  it("runs once per tick, on one instance", async () => {
    const { a } = pair;
    const { key } = await a.createClient("Tick");
    const ids = await seedUsers(a, key, [{ name: "Tock", ageDays: 400 }]);
    const seeded = new Date();
    const boss = bossSchemaFor(a.schemaName!);
    // a tick that fired while the user was being seeded found it not yet due: wait for the next one
    const passes = () =>
      a.db.$queryRawUnsafe<{ n: number }[]>(
        `select count(*)::int as n from ${boss}.job where name = $1 and state = 'completed' and started_on > $2`,
        PERIODIC_CHECKS_JOB,
        seeded,
      );
    await within("a periodic pass", passes, (rows) => rows[0].n >= 1, 75_000, 500);
    await new Promise((r) => setTimeout(r, 3000)); // a second pass of the same tick would have run by now
    // one send per tick across both instances (pg-boss's send-it job, a singleton per minute window), and
    // no periodic job but those sends: never one per instance. Not counted by the minute a job was made
    // in: a tick an instance sends in its minute's last moments can be worked in the next, beside that one's.
    const sends = await a.db.$queryRawUnsafe<{ n: number }[]>(
      `select count(*)::int as n from ${boss}.job where name = '__pgboss__send-it' and singleton_key = $1 group by singleton_on`,
      `${PERIODIC_CHECKS_JOB}__`,
    ); // the queue's schedule, key ''
    const [{ n: jobs }] = await a.db.$queryRawUnsafe<{ n: number }[]>(`select count(*)::int as n from ${boss}.job where name = $1`, PERIODIC_CHECKS_JOB);
    expect(sends.length).toBeGreaterThanOrEqual(1);
    expect(sends.every((window) => window.n === 1)).toBe(true);
    expect(jobs).toBeGreaterThanOrEqual(1);
    expect(jobs).toBeLessThanOrEqual(sends.length);
    const runs = await a.db.checkRun.findMany({ where: { userId: ids.Tock, trigger: "PERIODIC" }, select: { type: true } });
    expect(runs.map((r) => r.type).sort()).toEqual(["SANCTIONS_SCREENING", "TRANSACTION_MONITORING"]);
  }, 90_000);
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATOR } from "../context.js";
import { withTransaction } from "../db/transaction.js";
import { backends, startTestApp, type TestApp } from "../../test/helpers/app.js";

describe.each(backends)("jobs on pg-boss (%s)", (backend) => {
  let t: TestApp;
  const worked: unknown[] = [];
  let onWork: (() => void) | null = null;
  beforeAll(async () => {
    t = await startTestApp(backend);
    await t.app.services.jobs.define<{ n: number }>({
      name: "test.echo",
      workOptions: { pollingIntervalSeconds: 0.5 },
      work: async (jobs) => { for (const job of jobs) worked.push(job.data); onWork?.(); },
    });
  });
  afterAll(() => t?.stop());

  const writer = () => ({ principal: OPERATOR, requestId: "test", jobs: t.app.services.jobs, events: t.app.services.events });
  const jobsNamed = async (marker: number) => {
    const { rows } = await t.app.services.jobs.boss.getDb().executeSql(`select data from ${bossSchema()}.job where name = 'test.echo'`, []);
    return rows.filter((r: { data: { n: number } }) => r.data.n === marker).length;
  };
  const bossSchema = () => (backend === "postgres" ? `"${t.schemaName}_boss"` : "pgboss");

  it("a job enqueued in a transaction that rolls back is never queued", async () => {
    await expect(withTransaction(t.db, writer(), async ({ enqueue }) => {
      expect(await enqueue("test.echo", { n: 1 })).toMatch(/^[0-9a-f-]{36}$/);
      throw new Error("the change fails");
    })).rejects.toThrow("the change fails");
    expect(await jobsNamed(1)).toBe(0);
  });

  it("a job enqueued with a committed change is queued and runs", async () => {
    const ran = new Promise<void>((resolve) => { onWork = () => { if (worked.some((d) => (d as { n: number }).n === 2)) resolve(); }; });
    await withTransaction(t.db, writer(), async ({ enqueue }) => { await enqueue("test.echo", { n: 2 }); });
    expect(await jobsNamed(2)).toBe(1);
    await ran;
    expect(worked).toContainEqual({ n: 2 });
  }, 20_000);

  it("enqueue where no job engine runs fails the write instead of losing the job", async () => {
    await expect(withTransaction(t.db, { principal: OPERATOR }, ({ enqueue }) => enqueue("test.echo", { n: 3 }))).rejects.toThrow(/no job engine/);
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../../test/helpers/app.js";
import { batchedWrites } from "./batched-writes.js";
import type { Statement } from "./statement.js";

describe("one-statement writes batched", () => {
  let t: TestApp;
  let sent: Statement[];
  let write: ReturnType<typeof batchedWrites>;
  const probe = (id: string) => ({ returning: { sql: "insert into batch_probe (id) values ($1) returning id, 'written' as note", params: [id] }, parts: [] });
  const stored = async () => (await t.db.$queryRawUnsafe<{ id: string }[]>("select id from batch_probe order by id")).map((r) => r.id);

  beforeAll(async () => {
    t = await startTestApp(process.env.DATABASE_URL ? "postgres" : "pglite", { JOBS: "0" });
    await t.db.$executeRawUnsafe("create table batch_probe (id text primary key)");
  });
  afterAll(() => t?.stop());

  const writer = (max: number) => {
    sent = [];
    write = batchedWrites((statement) => {
      sent.push(statement);
      return t.db.$queryRawUnsafe(statement.sql, ...statement.params);
    }, max);
  };

  it("sends the writes of one turn as one statement, and hands each its own rows", async () => {
    writer(32);
    const rows = await Promise.all(["a", "b", "c"].map((id) => write(probe(id))));
    expect(sent).toHaveLength(1);
    expect(rows).toEqual([[{ id: "a", note: "written" }], [{ id: "b", note: "written" }], [{ id: "c", note: "written" }]]);
    expect(await stored()).toEqual(["a", "b", "c"]);
  });

  it("sends each write of a failed batch again alone: the clash fails, the others are written once", async () => {
    writer(32);
    const outcomes = await Promise.allSettled(["d", "a", "e"].map((id) => write(probe(id))));
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(sent).toHaveLength(1 + 3);
    expect(await stored()).toEqual(["a", "b", "c", "d", "e"]);
  });

  it("puts at most `max` writes in a statement", async () => {
    writer(2);
    await Promise.all(["f", "g", "h", "i", "j"].map((id) => write(probe(id))));
    expect(sent.map((s) => s.params.length)).toEqual([2, 2, 1]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../../test/helpers/app.js";
import { hotStatementNames } from "./prepared-statements.js";

describe("names of hot statements", () => {
  it("names a text once it has been seen `after` times, always the same name, and one name per text", () => {
    const named = hotStatementNames({ after: 3 });
    expect([named("select $1"), named("select $1")]).toEqual([undefined, undefined]);
    const name = named("select $1");
    expect(name).toMatch(/^og_/);
    expect(named("select $1")).toBe(name);
    for (let i = 0; i < 3; i++) named("select $2");
    expect(named("select $2")).not.toBe(name);
  });

  it("names at most `max` texts, and forgets the texts it counts in bulk", () => {
    const named = hotStatementNames({ after: 1, max: 2, counted: 3 });
    expect([named("a"), named("b")].every(Boolean)).toBe(true);
    expect(named("c")).toBeUndefined(); // full: the third stays unnamed however often it comes
    expect(named("c")).toBeUndefined();
    const counting = hotStatementNames({ after: 2, counted: 2 });
    counting("x");
    counting("y");
    counting("z"); // x and y forgotten when z came
    expect(counting("x")).toBeUndefined();
    expect(counting("z")).toMatch(/^og_/);
  });
});

describe.runIf(!!process.env.DATABASE_URL)("hot statements on PostgreSQL", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp("postgres", { JOBS: "0" });
  });
  afterAll(() => t?.stop());

  it("are prepared on the connection once sent three times through Prisma's adapter", async () => {
    const text = "select $1::int + 1 as n";
    // one transaction: one connection, whose prepared statements PostgreSQL lists
    const prepared = await t.db.$transaction(async (tx) => {
      for (let i = 0; i < 4; i++) await tx.$queryRawUnsafe(text, i);
      return tx.$queryRawUnsafe<{ statement: string }[]>("select statement from pg_prepared_statements where name like 'og\\_%'");
    });
    expect(prepared.map((p) => p.statement)).toContain(text);
  });
});

import pg from "pg";
import { describe, expect, it } from "vitest";
import { guardedPool, pgConfigOf } from "./client.js";
import { isOutage } from "./outage.js";

describe.runIf(!!process.env.DATABASE_URL)("the PostgreSQL pool (postgres)", () => {
  it("survives PostgreSQL ending the session of a client checked out between statements (a restart's 57P01)", async () => {
    const pool = guardedPool({ connectionString: process.env.DATABASE_URL, max: 2 });
    const unhandled: unknown[] = [];
    const onUncaught = (error: unknown) => unhandled.push(error);
    process.on("uncaughtException", onUncaught);
    try {
      const client = await pool.connect(); // checked out: pg-pool listens to nothing on it now
      const {
        rows: [{ pid }],
      } = await client.query<{ pid: number }>("select pg_backend_pid() as pid");
      const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await admin.connect();
      await admin.query("select pg_terminate_backend($1)", [pid]);
      await admin.end();
      await new Promise((r) => setTimeout(r, 300)); // the FATAL message and the socket's end arrive
      await expect(client.query("select 1")).rejects.toThrow();
      client.release(true);
      expect((await pool.query("select 1 as one")).rows[0].one).toBe(1); // a new client takes its place
    } finally {
      process.off("uncaughtException", onUncaught);
      await pool.end();
    }
    expect(unhandled).toEqual([]);
  });

  it("closes a connection whose statement has had no answer for 6 s: the statement and the one queued behind it fail as an outage, the next gets a new connection", async () => {
    const pool = guardedPool({ ...pgConfigOf(process.env.DATABASE_URL!), max: 1 });
    try {
      const started = Date.now();
      const stuck = pool.query("select pg_sleep(20)").catch((error: unknown) => error);
      const behind = pool.query("select 2").catch((error: unknown) => error);
      const [first, second] = await Promise.all([stuck, behind]);
      expect(isOutage(first)).toBe(true);
      expect(isOutage(second)).toBe(true);
      expect(Date.now() - started).toBeGreaterThanOrEqual(6_000);
      expect(Date.now() - started).toBeLessThan(8_500);
      expect((await pool.query("select 1 as one")).rows[0].one).toBe(1);
    } finally {
      await pool.end();
    }
  }, 20_000);

  it("leaves alone a connection that answers: statements one after another for longer than the timeout, each quick", async () => {
    const pool = guardedPool({ ...pgConfigOf(process.env.DATABASE_URL!), max: 1 });
    try {
      const client = await pool.connect();
      // busy for 7.5 s in all, never 6 s without an answer
      for (let i = 0; i < 5; i++) await client.query("select pg_sleep(1.5)");
      expect((await client.query("select 1 as one")).rows[0].one).toBe(1);
      client.release();
    } finally {
      await pool.end();
    }
  }, 20_000);

  it("answers a statement asked for as a promise on a checked-out client (adapter-pg in a transaction) with its rows or pg's error", async () => {
    const pool = guardedPool({ ...pgConfigOf(process.env.DATABASE_URL!), max: 1 });
    try {
      const client = await pool.connect();
      const asked: pg.QueryArrayConfig = { text: "select $1::int as n", values: [7], rowMode: "array" };
      expect((await client.query(asked)).rows).toEqual([[7]]);
      expect((await client.query("select 2 as two")).rows).toEqual([{ two: 2 }]);
      await expect(client.query({ text: "select * from no_such_table_here" })).rejects.toMatchObject({ code: "42P01" });
      expect((await client.query({ text: "select 3 as three" })).rows).toEqual([{ three: 3 }]); // the connection still serves
      client.release();
    } finally {
      await pool.end();
    }
  });
});

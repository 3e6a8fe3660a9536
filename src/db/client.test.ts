import pg from "pg";
import { describe, expect, it } from "vitest";
import { guardedPool } from "./client.js";

describe.runIf(!!process.env.DATABASE_URL)("the PostgreSQL pool (postgres)", () => {
  it("survives PostgreSQL ending the session of a client checked out between statements (a restart's 57P01)", async () => {
    const pool = guardedPool({ connectionString: process.env.DATABASE_URL, max: 2 });
    const unhandled: unknown[] = [];
    const onUncaught = (error: unknown) => unhandled.push(error);
    process.on("uncaughtException", onUncaught);
    try {
      const client = await pool.connect(); // checked out: pg-pool listens to nothing on it now
      const { rows: [{ pid }] } = await client.query<{ pid: number }>("select pg_backend_pid() as pid");
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
});

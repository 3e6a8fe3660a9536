import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATOR } from "../principal.js";
import { PGlite } from "@electric-sql/pglite";
import { createTransact } from "./write.js";
import { ConfigError, loadConfig } from "../config.js";
import { createJobs } from "./jobs.js";
import { backends, startTestApp, type TestApp } from "../../test/helpers/app.js";
import { eventually } from "../../test/helpers/eventually.js";

describe.each(backends)("jobs on pg-boss (%s)", (backend) => {
  let t: TestApp;
  const worked: unknown[] = [];
  let onWork: (() => void) | null = null;
  beforeAll(async () => {
    t = await startTestApp(backend);
    await t.app.services.jobs.define<{ n: number }>({
      name: "test.echo",
      workOptions: { pollingIntervalSeconds: 0.5 },
      work: async (jobs) => {
        for (const job of jobs) worked.push(job.data);
        onWork?.();
      },
    });
  });
  afterAll(() => t?.stop());

  const writer = { principal: OPERATOR, requestId: "test" };
  const jobsNamed = async (marker: number) => {
    const { rows } = await t.app.services.jobs.boss.getDb().executeSql(`select data from ${bossSchema()}.job where name = 'test.echo'`, []);
    return rows.filter((r: { data: { n: number } }) => r.data.n === marker).length;
  };
  const bossSchema = () => (backend === "postgres" ? `"${t.schemaName}_boss"` : "pgboss");

  it("an idle service sends no query through the app's Prisma client (pg-boss polls on its own connection)", async () => {
    await t.app.startupRelay; // the start's one sweep of the outbox is not idle work
    const { queries } = await t.app.database.countQueries(() => new Promise((r) => setTimeout(r, 2_500)));
    expect(queries).toEqual([]);
  });

  it("a job enqueued in a transaction that rolls back is never queued", async () => {
    await expect(
      t.app.services.transact(writer, async ({ enqueue }) => {
        enqueue("test.echo", { n: 1 });
        throw new Error("the change fails");
      }),
    ).rejects.toThrow("the change fails");
    expect(await jobsNamed(1)).toBe(0);
  });

  it("a job enqueued with a committed change is queued and runs", async () => {
    const ran = new Promise<void>((resolve) => {
      onWork = () => {
        if (worked.some((d) => (d as { n: number }).n === 2)) resolve();
      };
    });
    await t.app.services.transact(writer, async ({ enqueue }) => {
      enqueue("test.echo", { n: 2 });
    });
    expect(await jobsNamed(2)).toBe(1);
    await ran;
    expect(worked).toContainEqual({ n: 2 });
  }, 20_000);

  it("enqueue where no job engine runs fails the write instead of losing the job", async () => {
    await expect(createTransact(t.db)({ principal: OPERATOR }, async ({ enqueue }) => enqueue("test.echo", { n: 3 }))).rejects.toThrow(/no job engine/);
  });
});

describe.runIf(!!process.env.DATABASE_URL)("cli worker beside a web-only instance (postgres)", () => {
  it("works the jobs a JOBS=0 instance enqueues, and stops cleanly on SIGTERM", async () => {
    const web = await startTestApp("postgres", { JOBS: "0" });
    const worker = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", "worker"], {
      env: {
        ...process.env,
        NODE_ENV: "test",
        DATABASE_URL: process.env.DATABASE_URL,
        DATABASE_SCHEMA: web.schemaName,
        ENCRYPTION_KEY: randomBytes(32).toString("hex"),
        REDIS_URL: "",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    worker.stdout.on("data", (d) => {
      out += d;
    });
    worker.stderr.on("data", (d) => {
      out += d;
    });
    const exited = new Promise<number | null>((resolve) => worker.once("exit", resolve));
    try {
      const { clientId } = await web.createClient();
      const userId = "00000000-0000-4000-8000-000000000001";
      // the web instance commits an event and its relay job but publishes nothing and works nothing
      await createTransact(web.db, { jobs: web.app.services.jobs })({ principal: OPERATOR }, async ({ emit }) => {
        emit("user.status.updated", clientId, { userId, status: "CLOSED", previousStatus: "ACTIVE" });
      });
      const published = async () => (await web.db.event.findFirst({ where: { clientId } }))?.publishedAt;
      expect(await eventually(published, Boolean, 40_000, 250)).toBeInstanceOf(Date); // stamped by the worker process's relay
      worker.kill("SIGTERM");
      expect(await exited).toBe(0);
      expect(JSON.parse(out.slice(out.indexOf("{")))).toEqual({ worker: "stopped", signal: "SIGTERM" });
    } finally {
      worker.kill("SIGKILL");
      await web.stop();
    }
  }, 90_000);
});

/** A job engine alone on a fresh in-memory PGlite, its errors handed to `onError`. */
function engineOnPGlite(onError: (entry: { err: string }) => void = () => {}) {
  const pglite = new PGlite();
  const quiet = () => {};
  return { pglite, jobs: createJobs({ pglite } as never, { error: onError, warn: quiet, info: quiet, debug: quiet } as never) };
}

describe("a job that ends while the database is gone (pglite)", () => {
  it("is logged as an engine error, not left as an unhandled rejection that would end the process", async () => {
    const errors: string[] = [];
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    const { pglite, jobs } = engineOnPGlite((o) => errors.push(o.err));
    let ran!: () => void;
    const handled = new Promise<void>((r) => {
      ran = r;
    });
    await jobs.define({
      name: "test.outage",
      workOptions: { pollingIntervalSeconds: 0.5 },
      work: async () => {
        await pglite.close();
        ran();
      },
    });
    await jobs.start();
    await jobs.send("test.outage", {});
    await handled;
    await new Promise((r) => setTimeout(r, 200)); // pg-boss completes the job after the handler returns
    process.off("unhandledRejection", onUnhandled);
    await jobs.stop().catch(() => {});
    expect(unhandled).toEqual([]);
    expect(errors.length).toBeGreaterThan(0);
  });
});

describe("the job engine's settings", () => {
  it("takes every value the settings allow, and refuses at start a schedule check pg-boss would refuse (over 45 s)", () => {
    const quiet = () => {};
    for (const [maintenance, cron] of [
      ["1", "1"],
      ["3600", "45"],
    ]) {
      const config = loadConfig({ JOBS_MAINTENANCE_SECONDS: maintenance, JOBS_CRON_CHECK_SECONDS: cron });
      const options = { maintenanceIntervalSeconds: config.jobsMaintenanceSeconds, cronCheckSeconds: config.cronCheckSeconds };
      expect(() => createJobs({ pglite: new PGlite() } as never, { error: quiet, warn: quiet, info: quiet, debug: quiet } as never, options)).not.toThrow();
    }
    expect(() => loadConfig({ JOBS_CRON_CHECK_SECONDS: "46" })).toThrow(ConfigError);
    expect(() => loadConfig({ JOBS_CRON_CHECK_SECONDS: "600" })).toThrow(/^JOBS_CRON_CHECK_SECONDS must be an integer from 1 to 45/);
  });
});

describe("a backlog worked on the embedded database (pglite)", () => {
  it("lets the event loop turn between jobs: sockets are served while a backlog of quick jobs is worked", async () => {
    const { pglite, jobs } = engineOnPGlite();
    const trace: string[] = [];
    let left = 60;
    let finished!: () => void;
    const all = new Promise<void>((r) => {
      finished = r;
    });
    // a job that only talks to PGlite resolves in microtasks, as a check run does there
    await jobs.start();
    await jobs.define({
      name: "test.backlog",
      eager: true,
      each: {
        concurrency: 4,
        run: async () => {
          await pglite.query("select 1");
          trace.push("job");
          if (--left === 0) finished();
        },
      },
    });
    await jobs.sendMany(
      "test.backlog",
      Array.from({ length: 60 }, () => ({ data: {} })),
    );
    let ticking = true;
    const tick = () => {
      trace.push("turn");
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    jobs.notify("test.backlog");
    await all;
    ticking = false;
    await jobs.stop();
    await pglite.close();
    // the longest stretch of jobs with no turn of the event loop in between: one refill, not the backlog
    const longest = Math.max(
      ...trace
        .join(",")
        .split("turn")
        .map((s) => s.split(",").filter((x) => x === "job").length),
    );
    expect(longest).toBeLessThanOrEqual(8);
  });
});

describe("jobs that wait together (pglite)", () => {
  it("are worked as one unit, and when that unit fails, each runs alone: only the failing job retries", async () => {
    const { jobs, pglite } = engineOnPGlite();
    const units: number[][] = [];
    const alone: number[] = [];
    await jobs.start();
    await jobs.define<{ n: number }>({
      name: "test.together",
      eager: true,
      queue: { retryLimit: 1, retryDelay: 60 },
      each: {
        concurrency: 1,
        run: async (job) => {
          alone.push(job.data.n);
          if (job.data.n === 13) throw new Error("unlucky");
        },
        together: {
          size: 50,
          run: async (batch) => {
            units.push(batch.map((j) => j.data.n));
            if (batch.some((j) => j.data.n === 13)) throw new Error("one of them fails");
          },
        },
      },
    });
    await jobs.sendMany(
      "test.together",
      Array.from({ length: 10 }, (_, n) => ({ data: { n } })),
    );
    jobs.notify("test.together");
    const queued = async () => (await jobs.boss.findJobs("test.together", { queued: true })).map((j) => (j.data as { n: number }).n);
    await eventually(
      () => units.flat().length,
      (n) => n === 10,
    );
    expect(units.flat().sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(units[0]!.length).toBeGreaterThan(1); // they waited together: worked as one unit, not ten
    expect(alone).toEqual([]);
    expect(await eventually(queued, (left) => left.length === 0)).toEqual([]);
    await jobs.sendMany(
      "test.together",
      [12, 13, 14].map((n) => ({ data: { n } })),
    );
    jobs.notify("test.together");
    await eventually(
      () => alone.length,
      (n) => n === 3,
    );
    expect([...alone].sort()).toEqual([12, 13, 14]);
    expect(await eventually(queued, (left) => left.length === 1)).toEqual([13]); // only it waits out its retry delay
    await jobs.stop();
    await pglite.close();
  });
});

/**
 * PostgreSQL and Redis instances owned by one fault test: started in a temp dir on free ports, and
 * stopped, killed and restarted at will. The machine's shared services (5432, 6379) serve every
 * other test run on it at the same time, so a fault test never touches them.
 * Every instance is torn down by `stop()` in afterAll and, should the worker die first, by an exit hook.
 */
import { spawn, spawnSync, type ChildProcess, type SpawnSyncOptions } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

const PG_BIN = process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin";
/** initdb refuses to run as root: then the cluster belongs to the `postgres` user */
const asRoot = process.getuid?.() === 0;

const cleanups = new Set<() => void>();
process.once("exit", () => {
  for (const cleanup of cleanups) {
    try {
      cleanup();
    } catch {
      /* exiting anyway */
    }
  }
});

/** Waits for `work` at most `ms`: an app that will not stop must not keep afterAll from removing the services. */
export const atMost = (work: Promise<unknown>, ms = 20_000) => Promise.race([work.catch(() => {}), new Promise((resolve) => setTimeout(resolve, ms).unref())]);

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
      .once("error", reject)
      .listen(0, "127.0.0.1", () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
  });
}

function run(bin: string, args: string[], options: SpawnSyncOptions = {}) {
  const [cmd, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", bin, ...args]] : [bin, args];
  const result = spawnSync(cmd, argv, { encoding: "utf8", timeout: 60_000, ...options });
  if (result.status !== 0) throw new Error(`${path.basename(bin)} ${args[0]} failed (${result.status}): ${result.stderr || result.stdout}`);
  return result;
}

export type PrivatePostgres = Awaited<ReturnType<typeof startPostgres>>;

/** A fresh PostgreSQL 15 cluster (trust auth, database `postgres`) on a free port. */
export async function startPostgres() {
  const dir = mkdtempSync(path.join(tmpdir(), "og-fault-pg-"));
  if (asRoot)
    chownSync(
      dir,
      Number(spawnSync("id", ["-u", "postgres"], { encoding: "utf8" }).stdout.trim()),
      Number(spawnSync("id", ["-g", "postgres"], { encoding: "utf8" }).stdout.trim()),
    );
  const data = path.join(dir, "data");
  const port = await freePort();
  run(path.join(PG_BIN, "initdb"), ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"]);
  const pgCtl = (...args: string[]) => run(path.join(PG_BIN, "pg_ctl"), ["-D", data, ...args]);
  const up = () =>
    pgCtl("start", "-w", "-t", "30", "-l", path.join(dir, "server.log"), "-o", `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=60`);
  const down = (mode: "fast" | "immediate") => {
    if (existsSync(path.join(data, "postmaster.pid"))) pgCtl("stop", "-w", "-t", "30", "-m", mode);
  };
  /** the postmaster and its backends, by the pid file this cluster wrote */
  const signalAll = (signal: NodeJS.Signals) => {
    const postmaster = Number(readFileSync(path.join(data, "postmaster.pid"), "utf8").split("\n")[0]);
    const children = spawnSync("ps", ["-o", "pid=", "--ppid", String(postmaster)], { encoding: "utf8" })
      .stdout.split(/\s+/)
      .filter(Boolean)
      .map(Number);
    for (const pid of [postmaster, ...children]) {
      try {
        process.kill(pid, signal);
      } catch {
        /* exited meanwhile */
      }
    }
  };
  const cleanup = () => {
    try {
      if (existsSync(path.join(data, "postmaster.pid"))) {
        signalAll("SIGCONT");
        down("immediate");
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  cleanups.add(cleanup);
  try {
    up();
  } catch (error) {
    cleanup();
    cleanups.delete(cleanup);
    throw error;
  }
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    port,
    /** `fast` ends every session with 57P01 (admin shutdown); `immediate` is a crash: recovery replays the WAL */
    stop: (mode: "fast" | "immediate" = "fast") => down(mode),
    start: () => up(),
    /**
     * SIGSTOP/SIGCONT to the postmaster and its backends: the server stops answering without closing
     * a socket, as a hung host or a network partition looks to the client.
     */
    freeze: (frozen = true) => signalAll(frozen ? "SIGSTOP" : "SIGCONT"),
    /** tears the cluster down and deletes its files */
    destroy() {
      cleanups.delete(cleanup);
      cleanup();
    },
  };
}

export type PrivateRedis = Awaited<ReturnType<typeof startRedis>>;

/** A redis-server without persistence on a free port; stop() kills it, start() brings it back empty. */
export async function startRedis() {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const up = () =>
    new Promise<void>((resolve, reject) => {
      const proc = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      child = proc;
      let out = "";
      const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${out}`)), 10_000);
      proc.stdout!.on("data", (chunk: Buffer) => {
        out += chunk;
        if (out.includes("Ready to accept connections")) {
          clearTimeout(timer);
          resolve();
        }
      });
      proc.once("exit", (code) => {
        clearTimeout(timer);
        if (child === proc) child = null;
        reject(new Error(`redis-server exited ${code}:\n${out}`));
      });
    });
  const down = async (signal: NodeJS.Signals = "SIGKILL") => {
    const proc = child;
    if (!proc) return;
    child = null;
    await new Promise<void>((resolve) => {
      proc.once("exit", () => resolve());
      proc.kill(signal);
    });
  };
  const cleanup = () => {
    (child as ChildProcess | null)?.kill("SIGKILL");
  };
  cleanups.add(cleanup);
  await up();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: down,
    start: up,
    async destroy() {
      cleanups.delete(cleanup);
      await down();
    },
  };
}

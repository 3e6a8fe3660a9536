/**
 * The service process exactly as `npm start` runs it: `node` with the flags of package.json's
 * "start" script (read from package.json, so the two never drift) on the compiled `dist/`. Every
 * wait on it is bounded and, when it fails, says how the child ended and what it printed last: an
 * attack that kills or wedges the process fails its test instead of hanging the suite.
 * No vitest import here: the global setup uses it too.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "../../..");
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

/** `[exec] node <flags> <entry>` of package.json's "start" script. */
function startCommand() {
  const script: string = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).scripts.start;
  const words = script
    .trim()
    .replace(/^exec\s+/, "")
    .split(/\s+/);
  const [node, entry] = [words[0], words.at(-1)!];
  const flags = words.slice(1, -1);
  if (node !== "node" || !entry.endsWith(".js") || flags.some((f) => !f.startsWith("--")))
    throw new Error(`package.json's start script is not "[exec] node <--flags> <file>.js": ${script}`);
  return { flags, entry };
}

/** The old-space cap of npm start's flags (`--max-old-space-size`), in bytes. */
export function heapCapBytes() {
  const flag = startCommand().flags.find((f) => f.startsWith("--max-old-space-size="));
  if (!flag) throw new Error("npm start's flags set no --max-old-space-size");
  return Number(flag.split("=")[1]) * 2 ** 20;
}

/** What `npm start`'s prestart does: compile what changed since the last build. */
export const build = () => execFileSync(process.execPath, ["scripts/build.mjs"], { cwd: root, stdio: "inherit" });

/**
 * The environment of every service here: its own data directory, any free loopback port, the
 * embedded database (CI's DATABASE_URL and REDIS_URL are emptied), a strong random operator key, no
 * periodic checks; production unless a test says otherwise. `overrides` win.
 */
export function serviceEnv(dataDir: string, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    DATA_DIR: dataDir,
    PORT: "0",
    HOST: "127.0.0.1",
    DATABASE_URL: "",
    REDIS_URL: "",
    ADMIN_API_KEY: randomBytes(24).toString("hex"),
    PERIODIC_CHECKS_CRON: "off",
    NODE_ENV: "production",
    LOG_LEVEL: "info",
    ...overrides,
  };
}

export type Exit = { code: number | null; signal: NodeJS.Signals | null };

/** Starts the service with exactly `env` over this process's environment; resolves once it listens. */
export async function launch(env: Record<string, string>) {
  const { flags, entry } = startCommand();
  // not `npm start` itself: npm would stand between the signals and the server
  const child = spawn(process.execPath, [...flags, entry], { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  running.add(child);
  let tail = "";
  let exit: Exit | null = null;
  const exited = new Promise<Exit>((resolve) =>
    child.once("exit", (code, signal) => {
      running.delete(child);
      resolve((exit = { code, signal }));
    }),
  );
  const listening = new Promise<number>((resolve) => {
    const onData = (chunk: Buffer) => {
      tail = (tail + chunk).slice(-16_000);
      const m = /listening on http:\/\/localhost:(\d+)/.exec(tail);
      if (m) resolve(Number(m[1]));
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
  });

  /** How the child stands, with the end of what it printed (an OOM shows as SIGABRT and V8's "heap out of memory"). */
  const state = () =>
    `${exit ? `the service EXITED (${exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`})` : "the service still runs"}; its last output:\n${tail.slice(-3000)}`;

  /** `work`, bounded: fails naming `what` when the child exits first, `ms` pass, or `work` fails. */
  async function guard<T>(what: string, work: Promise<T>, ms: number): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no result within ${ms} ms`)), ms);
    });
    const died = exited.then((): never => {
      throw new Error("the process exited first");
    });
    try {
      return await Promise.race([work, late, died]);
    } catch (error) {
      // a refused connection usually comes just before the exit event: give it a moment to be named
      await Promise.race([exited, sleep(500)]);
      throw new Error(`${what}: ${(error as Error).message}; ${state()}`, { cause: error });
    } finally {
      clearTimeout(timer);
    }
  }

  const port = await guard("start", listening, 60_000);
  return {
    child,
    pid: child.pid!,
    port,
    base: `http://127.0.0.1:${port}`,
    exited,
    guard,
    state,
    /** null while it runs */
    exit: () => exit,
    /** SIGTERM, as a supervisor stops it; SIGKILL after 15 s */
    async stop() {
      if (exit) return exit;
      child.kill("SIGTERM");
      const done = await Promise.race([exited, sleep(15_000).then(() => null)]);
      if (done) return done;
      child.kill("SIGKILL");
      return exited;
    },
  };
}

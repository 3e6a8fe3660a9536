/** The real server as `npm start` runs it (compiled: `node dist/src/main.js`), in its own process. */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "../../..");
const running = new Set<ChildProcess>();
let built = false;
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

export type ServerProcess = Awaited<ReturnType<typeof startServer>>;

/** Embedded PGlite under `dataDir` unless `env` says otherwise; resolves once it listens. */
export async function startServer(dataDir: string, env: Record<string, string> = {}) {
  // what `npm start`'s prestart does; not `npm start` itself, whose npm would take the signals meant for the server
  if (!built) execFileSync(process.execPath, ["scripts/build.mjs"], { cwd: root, stdio: "inherit" });
  built = true;
  const child = spawn(process.execPath, ["dist/src/main.js"], {
    cwd: root,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: "0",
      HOST: "127.0.0.1",
      DATABASE_URL: "",
      REDIS_URL: "",
      NODE_ENV: "production",
      LOG_LEVEL: "info",
      ...env,
    },
  });
  running.add(child);
  let out = "";
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once("exit", (code, signal) => {
      running.delete(child);
      resolve({ code, signal, at: Date.now() });
    }),
  );
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start within 60 s:\n${out}`)), 60_000);
    const onData = (chunk: Buffer) => {
      out += chunk;
      const m = /listening on http:\/\/localhost:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code ?? signal} before listening:\n${out}`));
    });
  });
  return {
    child,
    port,
    base: `http://127.0.0.1:${port}`,
    exited,
    output: () => out,
    /** the sandbox demo client's key, written to DATA_DIR on first start */
    demoKey: async () => JSON.parse(await readFile(path.join(dataDir, "bootstrap.json"), "utf8")).api_key as string,
    kill: (signal: NodeJS.Signals) => child.kill(signal),
  };
}

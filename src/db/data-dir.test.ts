import { execFile, spawn } from "node:child_process";
import { chmod, mkdir, mkdtemp, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { startTestApp } from "../../test/helpers/app.js";
import { DataDirInUse, secureDataDir } from "./data-dir.js";

const root = path.resolve(import.meta.dirname, "../..");
const onDisk = (dataDir: string) => ({ DATA_DIR: dataDir, DATABASE_URL: "", REDIS_URL: "" });

/** every path under `dir` with its permission bits */
async function modes(dir: string): Promise<[string, number][]> {
  const entries = await readdir(dir, { recursive: true });
  return Promise.all(entries.map(async (e) => [e, (await stat(path.join(dir, e))).mode & 0o777] as [string, number]));
}

describe("DATA_DIR", () => {
  it("is one process's: a second app on it is refused, and it is free again once the first stops", async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), "og-lock-"));
    const first = await startTestApp("pglite", onDisk(dataDir));
    try {
      expect((await readFile(path.join(dataDir, "lock.pid"), "utf8")).trim()).toBe(String(process.pid));
      await expect(startTestApp("pglite", onDisk(dataDir))).rejects.toThrow(DataDirInUse);
      // the CLI finding the database held and no control socket (the server is not listening) says so in one line
      const cli = await promisify(execFile)("node", ["--import", "tsx", "src/cli/main.ts", "clients", "list"], {
        cwd: root,
        env: { ...process.env, ...onDisk(dataDir), NODE_ENV: "test" },
      }).then(
        () => null,
        (error: { code: number; stderr: string }) => error,
      );
      expect(cli?.code).toBe(2);
      expect(cli?.stderr.trim()).toMatch(new RegExp(`^data: DATA_DIR \\S+ is in use by process ${process.pid}: [^\\n]+$`));
    } finally {
      await first.stop();
    }
    const again = await startTestApp("pglite", onDisk(dataDir));
    await again.stop();
  }, 180_000);

  it("takes over the lock of a process that is gone", async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), "og-lock-stale-"));
    const gone = spawn(process.execPath, ["-e", ""]);
    await new Promise((r) => gone.once("exit", r));
    await writeFile(path.join(dataDir, "lock.pid"), `${gone.pid}\n`);
    const t = await startTestApp("pglite", onDisk(dataDir));
    try {
      expect((await readFile(path.join(dataDir, "lock.pid"), "utf8")).trim()).toBe(String(process.pid));
    } finally {
      await t.stop();
    }
  }, 120_000);

  it("takes group and other bits off a DATA_DIR left readable by others, and everything under it", async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), "og-modes-"));
    await mkdir(path.join(dataDir, "pglite", "base"), { recursive: true });
    await writeFile(path.join(dataDir, "pglite", "base", "1"), "rows", { mode: 0o666 });
    await writeFile(path.join(dataDir, "encryption.key"), "k", { mode: 0o644 });
    for (const dir of [dataDir, path.join(dataDir, "pglite"), path.join(dataDir, "pglite", "base")]) await chmod(dir, 0o755);
    await chmod(path.join(dataDir, "pglite", "base", "1"), 0o666);
    await secureDataDir(dataDir);
    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
    expect(Object.fromEntries(await modes(dataDir))).toEqual({ pglite: 0o700, "pglite/base": 0o700, "pglite/base/1": 0o600, "encryption.key": 0o600 });
  });
});

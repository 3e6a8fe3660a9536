import { spawn, type ChildProcess } from "node:child_process";
import { chmod, mkdtemp, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { eventually } from "./helpers/eventually.js";

const root = path.resolve(import.meta.dirname, "..");

/** `npm start` as a user runs it: embedded PGlite under DATA_DIR, no DATABASE_URL, no Redis. */
function start(dataDir: string): Promise<{ child: ChildProcess; port: number; ms: number; output: () => string }> {
  const started = Date.now();
  const child = spawn("npm", ["start"], {
    cwd: root,
    env: { ...process.env, DATA_DIR: dataDir, PORT: "0", DATABASE_URL: "", REDIS_URL: "", NODE_ENV: "development", LOG_LEVEL: "info" },
  });
  let out = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start within 60 s:\n${out}`)), 60_000);
    const onData = (chunk: Buffer) => {
      out += chunk;
      const m = /listening on http:\/\/localhost:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, port: Number(m[1]), ms: Date.now() - started, output: () => out });
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.on("exit", (code) => reject(new Error(`exited ${code}:\n${out}`)));
  });
}

/** SIGTERM → the server logs its graceful stop and exits (npm itself may report the signal rather than 0). */
const stop = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    child.once("close", (code) => resolve(code));
    child.kill("SIGTERM");
  });

describe("npm start", () => {
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const c of children) c.kill("SIGKILL");
  });

  it("serves /healthz and GraphQL on a fresh DATA_DIR, prints the demo key, and keeps data across a restart", async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), "og-start-"));
    // as an earlier version left it: DATA_DIR and a file in it readable by everyone
    await chmod(dataDir, 0o755);
    await writeFile(path.join(dataDir, "left-before.txt"), "x", { mode: 0o644 });
    const first = await start(dataDir);
    children.push(first.child);
    const base = `http://127.0.0.1:${first.port}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    // personal data lies in PGlite's files (tables, WAL): nothing under DATA_DIR is readable by other accounts
    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
    const open = [];
    for (const entry of await readdir(dataDir, { recursive: true })) {
      const mode = (await stat(path.join(dataDir, entry)).catch(() => null))?.mode ?? 0; // a file PGlite removed meanwhile
      if (mode & 0o077) open.push(`${entry} ${(mode & 0o777).toString(8)}`);
    }
    expect(open).toEqual([]);
    // a second server on the same DATA_DIR stops at once, with one line
    const refused = spawn(process.execPath, ["dist/src/main.js"], {
      cwd: root,
      env: { ...process.env, DATA_DIR: dataDir, PORT: "0", DATABASE_URL: "", REDIS_URL: "", NODE_ENV: "development" },
    });
    let refusal = "";
    refused.stderr!.on("data", (chunk) => {
      refusal += chunk;
    });
    expect(await new Promise((resolve) => refused.once("close", resolve))).toBe(1);
    expect(refusal.trim()).toMatch(/^data: DATA_DIR \S+ is in use by process \d+: [^\n]+$/);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const bootstrap = JSON.parse(await readFile(path.join(dataDir, "bootstrap.json"), "utf8"));
    expect((await stat(path.join(dataDir, "bootstrap.json"))).mode & 0o777).toBe(0o600);
    expect(first.output()).toContain(bootstrap.api_key);
    const auth = { authorization: `Bearer ${bootstrap.api_key}`, "content-type": "application/json" };
    const typename = await fetch(`${base}/graphql`, { method: "POST", headers: auth, body: JSON.stringify({ query: "{ __typename }" }) });
    expect(await typename.json()).toEqual({ data: { __typename: "Query" } });
    // a query is a read, through yoga (first) and the lean lane (then): logged at debug, like a GET
    for (const id of ["start-test-query-1", "start-test-query-2"])
      expect(
        (
          await fetch(`${base}/graphql`, {
            method: "POST",
            headers: { ...auth, "x-request-id": id },
            body: JSON.stringify({ query: "{ users(first: 1) { totalCount } }" }),
          })
        ).status,
      ).toBe(200);
    const created = await (
      await fetch(`${base}/v2/users`, {
        method: "POST",
        headers: { ...auth, "x-request-id": "start-test-1" },
        body: JSON.stringify({ first_name: "Kept", last_name: "Data", email: "kept@example.com", tax_id: "Z99887766" }),
      })
    ).json();
    // one structured JSON line per write, carrying the request id and no personal data
    // the line is written after the answer: give a loaded machine a few seconds
    const logged = () =>
      first
        .output()
        .split("\n")
        .find((l) => l.includes('"request_id":"start-test-1"'));
    const line = await eventually(logged, Boolean, 15_000, 50);
    expect(JSON.parse(line!)).toMatchObject({ method: "POST", route: "/v2/users", status: 201, msg: "request" });
    expect(first.output()).not.toContain("start-test-query");
    expect(first.output()).not.toContain("kept@example.com");
    expect(first.output()).not.toContain("Z99887766");
    expect([0, null]).toContain(await stop(first.child));
    expect(first.output()).toContain("stopping: finishing in-flight requests");
    console.log(`npm start: first start ${first.ms} ms`);

    const second = await start(dataDir);
    children.push(second.child);
    console.log(`npm start: restart ${second.ms} ms`);
    expect(second.output()).not.toContain("Demo sandbox API key");
    const read = await fetch(`http://127.0.0.1:${second.port}/v2/users/${created.user_id}`, { headers: auth });
    expect(read.status).toBe(200);
    expect((await read.json()).email).toBe("kept@example.com");
    expect([0, null]).toContain(await stop(second.child));
  }, 120_000);

  it("with DATA_DIR=memory:// prints the demo key and names no bootstrap.json it did not write", async () => {
    const started = await start("memory://");
    children.push(started.child);
    expect(started.output()).toMatch(/Demo sandbox API key: ogk_sandbox_/);
    expect(started.output()).toContain("created the sandbox demo client");
    expect(started.output()).not.toMatch(/bootstrap\.json|memory:\//);
    expect([0, null]).toContain(await stop(started.child));
  }, 120_000);
});

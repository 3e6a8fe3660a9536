/**
 * An idempotent POST whose server process is killed (SIGKILL) at an exact point of the request, on
 * embedded PGlite and on PostgreSQL (a private cluster): before its write committed, and after the
 * write committed but before its answer was stored and sent. Restarted, a retry with the same
 * Idempotency-Key and body runs afresh in the first case and answers with the committed user in the
 * second; neither is refused for long, and neither leaves two users.
 * The kill is made by the process itself as it sends the named statement (helpers/kill-on-sql.mjs).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startServer, type ServerProcess } from "./helpers/server-process.js";
import { atMost, startPostgres, type PrivatePostgres } from "./helpers/services.js";

const ADMIN = "fault-admin-key-0123456789abcdef";
const KILL_ON_SQL = pathToFileURL(path.join(import.meta.dirname, "helpers/kill-on-sql.mjs")).href;
/** the sign-up's insert: nothing of the write has committed when it is sent */
const BEFORE_COMMIT = String.raw`insert into users \(`;
/** the statement that stores an idempotent request's answer: the write has committed, the answer is not sent yet */
const BEFORE_ANSWER = String.raw`update\s+("[^"]+"\.)?"?idempotency_keys"?\s+set\s+"?response_status`;
/** how long a retry may keep being told the key is in use before the dead request's claim gives way */
const RETRY_WITHIN_MS = 30_000;

describe.each(["pglite", "postgres"] as const)("an idempotent POST whose process is killed (%s)", (backend) => {
  let pg: PrivatePostgres | undefined;
  let dataDir = "";
  let env: Record<string, string> = {};
  let key = "";
  const servers: ServerProcess[] = [];
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "og-fault-idem-"));
    env = { ADMIN_API_KEY: ADMIN, ENCRYPTION_KEY: randomBytes(32).toString("hex"), RATE_LIMIT_PER_MINUTE: "0" };
    if (backend === "postgres") {
      pg = await startPostgres();
      env = { ...env, DATABASE_URL: pg.url, DATABASE_SCHEMA: "idem" };
    }
  });
  // a failed test must not leave its server holding the data directory the next one opens
  afterEach(async () => {
    for (const s of servers.splice(0)) {
      s.kill("SIGKILL");
      await s.exited;
    }
  });
  afterAll(async () => {
    await atMost(pg?.stop() ?? Promise.resolve());
    pg?.destroy();
    await rm(dataDir, { recursive: true, force: true });
  });

  const start = async (killOn?: string) => {
    const s = await startServer(dataDir, killOn ? { ...env, NODE_OPTIONS: `--import=${KILL_ON_SQL}`, KILL_ON_SQL: killOn } : env);
    servers.push(s);
    key ||= (await call(s, "POST", "/admin/clients", ADMIN, { name: "Retrying", mode: "SANDBOX" })).body.api_key;
    return s;
  };
  const call = async (s: ServerProcess, method: string, url: string, apiKey: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${s.base}${url}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, body: await res.json().catch(() => null) };
  };
  /** the POST the client sends, and sends again after a failure, with the same key and body */
  const signUp = (s: ServerProcess, idempotencyKey: string, email: string) =>
    call(s, "POST", "/v2/users", key, { first_name: "Retry", last_name: "Safe", email }, { "idempotency-key": idempotencyKey });
  /** the killed request: the connection closes with no answer */
  const killedDuring = async (s: ServerProcess, idempotencyKey: string, email: string) => {
    await expect(signUp(s, idempotencyKey, email)).rejects.toThrow();
    expect((await s.exited).signal).toBe("SIGKILL");
  };
  /** retries while the key is said to be in use, as a client following Retry-After would; the first other answer */
  const retry = async (s: ServerProcess, idempotencyKey: string, email: string) => {
    const started = Date.now();
    const refusals: (string | null)[] = [];
    for (;;) {
      const answer = await signUp(s, idempotencyKey, email);
      if (answer.status !== 409 || Date.now() - started > RETRY_WITHIN_MS) return { answer, refusals, ms: Date.now() - started };
      expect(answer.body.code).toBe("IDEMPOTENCY_KEY_IN_USE");
      refusals.push(answer.headers.get("retry-after"));
      await new Promise((r) => setTimeout(r, 500));
    }
  };
  const usersWith = async (s: ServerProcess, email: string) =>
    (await call(s, "GET", `/v2/users?email=${encodeURIComponent(email)}`, key)).body.data.map((u: { user_id: string }) => u.user_id) as string[];

  it("killed before its write committed: a retry with the same key runs afresh, refused for a few seconds at most", async () => {
    const email = `before-${randomUUID()}@example.com`;
    await killedDuring(await start(BEFORE_COMMIT), "killed-before-commit", email);
    const restarted = await start();
    const { answer, refusals, ms } = await retry(restarted, "killed-before-commit", email);
    console.info(`${backend}: before commit, the retry ran after ${refusals.length} refusals (${ms} ms after the restart)`);
    expect(answer.status).toBe(201);
    expect(refusals.every((after) => Number(after) >= 1)).toBe(true);
    expect(await usersWith(restarted, email)).toEqual([answer.body.user_id]);
  });

  it("killed after its write committed but before it answered: a retry answers with the committed user, made once", async () => {
    const email = `after-${randomUUID()}@example.com`;
    await killedDuring(await start(BEFORE_ANSWER), "killed-before-answer", email);
    const restarted = await start();
    const committed = await usersWith(restarted, email);
    expect(committed).toHaveLength(1);
    const { answer, refusals, ms } = await retry(restarted, "killed-before-answer", email);
    console.info(`${backend}: after commit, the retry answered after ${refusals.length} refusals (${ms} ms after the restart)`);
    expect(answer.status).toBe(201);
    expect(answer.body.user_id).toBe(committed[0]);
    expect(answer.headers.get("idempotent-replayed")).toBe("true");
    // the answer is stored now: the next retry is its replay
    const again = await signUp(restarted, "killed-before-answer", email);
    expect([again.status, again.body.user_id, again.headers.get("idempotent-replayed")]).toEqual([201, committed[0], "true"]);
    expect(await usersWith(restarted, email)).toEqual(committed);
  });
});

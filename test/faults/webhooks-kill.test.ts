/**
 * The service as its own process (`node --import tsx src/main.ts`) on PostgreSQL (a private cluster,
 * helpers/services.ts) killed with SIGKILL while its delivery jobs are sending: every request is out,
 * none has its answer or its attempt record. Restarted, it sends every committed event again (the
 * jobs expire and run again): each event reaches the receiver, with the same webhook-id, signed.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.js";
import { startServer, type ServerProcess } from "./helpers/server-process.js";
import { atMost, startPostgres, type PrivatePostgres } from "./helpers/services.js";
import { eventually, within } from "../helpers/eventually.js";

const ADMIN = "fault-admin-key-0123456789abcdef";
const EVENTS = 12;

describe("webhook deliveries when the service is killed mid-send", () => {
  let pg: PrivatePostgres;
  let receiver: WebhookReceiver;
  let dataDir = "";
  const servers: ServerProcess[] = [];
  let env: Record<string, string> = {};
  beforeAll(async () => {
    [pg, receiver, dataDir] = await Promise.all([startPostgres(), startWebhookReceiver(), mkdtemp(path.join(tmpdir(), "og-fault-hooks-"))]);
    env = {
      DATABASE_URL: pg.url,
      DATABASE_SCHEMA: "hooks",
      ENCRYPTION_KEY: randomBytes(32).toString("hex"),
      ADMIN_API_KEY: ADMIN,
      RATE_LIMIT_PER_MINUTE: "0",
      WEBHOOK_ALLOW_PRIVATE: "1",
      WEBHOOK_RETRY_SCHEDULE: "0.5",
      // a send in flight for 6 s is a TIMEOUT; a job in hand for 7 s belongs to a dead process; looked for every second
      WEBHOOK_TIMEOUT_SECONDS: "6",
      WEBHOOK_JOB_EXPIRE_SECONDS: "7",
      JOBS_MAINTENANCE_SECONDS: "1",
      CHECK_JOB_EXPIRE_SECONDS: "10", // a check run the kill left in hand runs again after 10 s
    };
  });
  afterAll(async () => {
    for (const s of servers) s.kill("SIGKILL");
    await receiver?.close();
    await atMost(pg?.stop() ?? Promise.resolve());
    await rm(dataDir, { recursive: true, force: true });
  });

  const start = async () => {
    const s = await startServer(dataDir, env);
    servers.push(s);
    return s;
  };
  const call = async (s: ServerProcess, method: string, url: string, key: string, body?: unknown) => {
    const res = await fetch(`${s.base}${url}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json().catch(() => null) };
  };

  it("sends every committed event again after a restart, with the same webhook-id", async () => {
    const first = await start();
    const client = await call(first, "POST", "/admin/clients", ADMIN, { name: "Hooked", mode: "SANDBOX" });
    expect(client.status).toBe(201);
    const key = client.body.api_key as string;
    const hook = "/killed";
    const created = await call(first, "POST", "/v2/webhooks", key, { url: receiver.url(hook), event_types: ["user.status.updated"] });
    expect(created.status).toBe(201);
    receiver.sign(hook, created.body.secret);
    receiver.answerEach(hook, "hang", 200); // each event's first request gets no answer: it is in flight when the process dies

    const writing = Date.now();
    const users: string[] = [];
    await Promise.all(
      Array.from({ length: EVENTS }, async () => {
        const user = await call(first, "POST", "/v2/users", key, { first_name: "Kill", last_name: "Ed", email: `${randomUUID()}@example.com` });
        users.push(user.body.user_id);
        expect((await call(first, "PUT", `/v2/users/${user.body.user_id}`, key, { status: "CLOSED" })).status).toBe(200);
      }),
    );
    await receiver.until("every event's first request", () => new Set(receiver.at(hook).map((d) => d.id)).size >= EVENTS);
    console.info(`webhooks: ${EVENTS} events written and their first requests in flight after ${Date.now() - writing} ms`);
    first.kill("SIGKILL");
    await first.exited;
    const inFlight = new Set(receiver.at(hook).map((d) => d.id));
    expect(receiver.at(hook).every((d) => d.status === "hang")).toBe(true); // nothing was answered, so nothing was recorded as sent

    const killedAt = Date.now();
    const second = await start();
    // every committed event of the type: the closes (and any status move the checks engine raised)
    const events = await call(second, "GET", "/v2/events?types=user.status.updated&records_per_page=100", key);
    const ids = (events.body.data as { id: string }[]).map((e) => e.id);
    expect(ids.length).toBeGreaterThanOrEqual(EVENTS);
    expect(ids).toEqual(expect.arrayContaining([...inFlight]));
    const delivered = () =>
      new Set(
        receiver
          .at(hook)
          .filter((d) => d.status === 200)
          .map((d) => d.id),
      );
    await receiver.until("every event delivered after the restart", () => ids.every((id) => delivered().has(id)), 30_000);
    console.info(
      `webhooks: ${inFlight.size} events in flight at SIGKILL, all ${ids.length} delivered ${Date.now() - killedAt} ms after the kill (restart included)`,
    );
    expect(new Set(receiver.at(hook).map((d) => d.id))).toEqual(new Set(ids));
    expect(receiver.at(hook).every((d) => d.verified)).toBe(true);
    // the attempts the dead process never recorded are not there; the ones after the restart are
    for (const id of ids.slice(0, 3)) {
      const endpoint = created.body.webhook_id;
      const read = async (): Promise<string[]> =>
        (await call(second, "GET", `/v2/webhooks/${endpoint}/attempts?event_id=${id}`, key)).body.data.map((a: { outcome: string }) => a.outcome);
      const outcomes = await eventually(read, (o) => o.includes("SUCCEEDED"), 5_000);
      expect(outcomes).toEqual(["SUCCEEDED"]);
    }
    // the check runs each new user queued complete too, whatever state the kill left them in
    const unfinished = async () =>
      (await Promise.all(users.map(async (id) => (await call(second, "GET", `/v2/users/${id}/checks`, key)).body.data as { status: string }[])))
        .flat()
        .filter((r) => r.status === "QUEUED" || r.status === "RUNNING").length;
    await within("check runs finished after the restart", unfinished, (n) => n === 0, 60_000, 250);
    second.kill("SIGTERM");
    expect((await second.exited).code).toBe(0);
  });
});

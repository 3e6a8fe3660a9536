/**
 * Webhooks fed by the outbox, end to end: a committed change → its delivery jobs → a signed POST to a
 * local receiver that verifies the signature with the endpoint's secret (standardwebhooks).
 */
import { randomUUID } from "node:crypto";
import { COMPLETE_SG } from "../../../test/helpers/people.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, multiInstance, startTestApp, startTwoInstances, type TestApp } from "../../../test/helpers/app.js";
import { registerEndpoint, startWebhookReceiver, type WebhookReceiver } from "../../../test/helpers/webhook-receiver.js";
import { OPERATOR } from "../../principal.js";
import { loadConfig } from "../../config.js";
import { createTransact } from "../../platform/write.js";
import { deliveryJobId, WEBHOOK_DELIVERY_JOB } from "./webhooks.dispatch.js";
import { eventually } from "../../../test/helpers/eventually.js";

/** retries 0.2 s apart instead of 5 s, 5 min, …: a test sees the whole schedule */
const FAST = { WEBHOOK_ALLOW_PRIVATE: "1", WEBHOOK_RETRY_SCHEDULE: "0.2,0.2,0.2,0.2" };

type Client = { key: string; clientId: string };

/** A user of `client` closed: one committed `user.status.updated` event; returns the user id. */
async function closeUser(t: TestApp, client: Client) {
  const created = await t.rest("POST", "/v2/users", { key: client.key, body: { first_name: "Hook", last_name: "Ed", email: `${randomUUID()}@example.com` } });
  expect(created.status).toBe(201);
  const closed = await t.rest("PUT", `/v2/users/${created.body.user_id}`, { key: client.key, body: { status: "CLOSED" } });
  expect(closed.status).toBe(200);
  return created.body.user_id as string;
}

type Attempt = { event_id: string; attempt_number: number; outcome: string; status_code: number; next_retry_at: string | null };
/** GET /v2/webhooks/{id}/attempts, oldest first, once it lists `count` (an attempt is recorded just after its answer) */
async function attemptsOf(t: TestApp, client: Client, endpointId: string, count: number) {
  const read = async (): Promise<Attempt[]> => (await t.rest("GET", `/v2/webhooks/${endpointId}/attempts`, { key: client.key })).body.data.reverse();
  return eventually(read, (attempts) => attempts.length >= count, 15_000, 50);
}

/** the user's close (the checks engine raises events of the same user besides) */
const eventOf = async (t: TestApp, userId: string) =>
  t.db.event.findFirstOrThrow({
    where: { type: "user.status.updated", AND: [{ data: { path: ["userId"], equals: userId } }, { data: { path: ["status"], equals: "CLOSED" } }] },
  });
const metric = (text: string, name: string) => Number(new RegExp(`^${name.replace(/[{}"]/g, "\\$&")} (\\S+)$`, "m").exec(text)?.[1] ?? NaN);

describe("webhook configuration", () => {
  it("reads WEBHOOK_RETRY_SCHEDULE as seconds and refuses a bad one naming the variable", () => {
    expect(loadConfig({}).webhookRetrySchedule).toEqual([5, 300, 1800, 7200, 18000, 36000, 36000].map((s) => s * 1000));
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: "0.5, 2,60" }).webhookRetrySchedule).toEqual([500, 2000, 60000]);
    for (const bad of ["5,,300", "five", "-1", "0", "1e3"])
      expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: bad }), bad).toThrow(/^WEBHOOK_RETRY_SCHEDULE must be/);
    expect(() => loadConfig({ WEBHOOK_TIMEOUT_SECONDS: "10", WEBHOOK_JOB_EXPIRE_SECONDS: "10" })).toThrow(
      /^WEBHOOK_JOB_EXPIRE_SECONDS \(10\) must be greater than WEBHOOK_TIMEOUT_SECONDS/,
    );
  });
});

describe.each(backends)("webhooks fed by the outbox on %s", (backend) => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let a: Client;
  let b: Client;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    t = await startTestApp(backend, FAST);
    a = await t.createClient("Hooked");
    b = await t.createClient("Other");
  });
  afterAll(async () => {
    await t?.stop();
    await receiver?.close();
  });

  it("sends a committed event, signed, to each subscribed endpoint; not to an unsubscribed, a disabled or another client's one", async () => {
    const tag = randomUUID().slice(0, 8);
    const [subscribed, wildcard, otherType, disabled, stranger] = ["subscribed", "wildcard", "other-type", "disabled", "stranger"].map((p) => `/${tag}/${p}`);
    await registerEndpoint(t, receiver, a.key, subscribed, ["user.status.updated"]);
    await registerEndpoint(t, receiver, a.key, wildcard, ["*"]);
    await registerEndpoint(t, receiver, a.key, otherType, ["check.kyc.updated"]);
    const { webhook_id: off } = await registerEndpoint(t, receiver, a.key, disabled, ["*"]);
    expect((await t.rest("PUT", `/v2/webhooks/${off}`, { key: a.key, body: { enabled: false } })).status).toBe(200);
    await registerEndpoint(t, receiver, b.key, stranger, ["*"]);

    const userId = await closeUser(t, a);
    const event = await eventOf(t, userId);
    // the checks engine's events for the new user may come too (`*`): only this event's deliveries count here
    const of = (path: string) => receiver.at(path).filter((d) => d.id === event.id);
    await receiver.until("both subscribed endpoints", () => of(subscribed).length > 0 && of(wildcard).length > 0);
    for (const path of [subscribed, wildcard]) {
      const [got] = of(path);
      expect(got.verified, path).toBe(true);
      expect(got.id).toBe(event.id);
      expect(JSON.parse(got.body)).toEqual({
        id: event.id,
        type: "user.status.updated",
        created_at: event.createdAt.toISOString(),
        data: { user_id: userId, status: "CLOSED", previous_status: "PENDING", user: expect.objectContaining({ user_id: userId, status: "CLOSED" }) },
      });
    }
    // nothing was queued for the others, so nothing can arrive later either
    const { rows } = await t.app.services.jobs.boss
      .getDb()
      .executeSql(
        `select data->>'endpointId' as endpoint from ${backend === "postgres" ? `"${t.schemaName}_boss"` : "pgboss"}.job where name = $1 and data->'event'->>'id' = $2`,
        [WEBHOOK_DELIVERY_JOB, event.id],
      );
    expect(rows).toHaveLength(2);
    for (const path of [otherType, disabled, stranger]) expect(of(path), path).toEqual([]);
    expect(receiver.at(disabled)).toEqual([]);
    expect(receiver.at(stranger)).toEqual([]);
    // the attempt is on record, as the client sees it
    const webhookId = (await t.rest("GET", "/v2/webhooks?records_per_page=100", { key: a.key })).body.data.find((e: { url: string }) =>
      e.url.endsWith(subscribed),
    ).webhook_id;
    const attempts = (await attemptsOf(t, a, webhookId, 1)).filter((x) => x.event_id === event.id);
    expect(attempts.map((x) => [x.event_id, x.outcome])).toEqual([[event.id, "SUCCEEDED"]]);
  });

  it("retries on the schedule: 500 three times then 200 → four attempts, one SUCCEEDED, the same webhook-id", async () => {
    const path = `/${randomUUID().slice(0, 8)}/flaky`;
    const { webhook_id: id } = await registerEndpoint(t, receiver, a.key, path, ["user.status.updated"]);
    receiver.answerEach(path, 500, 500, 500, 200);
    const before = await (await t.app.fetch("/metrics")).text();
    const userId = await closeUser(t, a);
    const event = await eventOf(t, userId);
    const of = () => receiver.at(path).filter((d) => d.id === event.id);
    await receiver.until("the fourth attempt", () => of().length >= 4);
    expect(of().map((d) => [d.id, d.status, d.verified])).toEqual([
      [event.id, 500, true],
      [event.id, 500, true],
      [event.id, 500, true],
      [event.id, 200, true],
    ]);
    const attempts = (await attemptsOf(t, a, id, 4)).filter((x) => x.event_id === event.id);
    expect(attempts.map((x) => [x.attempt_number, x.outcome, x.status_code])).toEqual([
      [1, "HTTP_ERROR", 500],
      [2, "HTTP_ERROR", 500],
      [3, "HTTP_ERROR", 500],
      [4, "SUCCEEDED", 200],
    ]);
    expect(attempts[3].next_retry_at).toBeNull();
    await new Promise((r) => setTimeout(r, 500)); // a fifth would have come by now
    expect(of()).toHaveLength(4);
    const after = await (await t.app.fetch("/metrics")).text();
    const outcome = (text: string, o: string) => metric(text, `webhook_deliveries_total{outcome="${o}"}`) || 0;
    expect(outcome(after, "HTTP_ERROR") - outcome(before, "HTTP_ERROR")).toBeGreaterThanOrEqual(3);
    expect(outcome(after, "SUCCEEDED") - outcome(before, "SUCCEEDED")).toBeGreaterThanOrEqual(1);
  });

  it("sends what the checks engine raises: verification → check.* and user.* events, each signed, each once", async () => {
    const path = `/${randomUUID().slice(0, 8)}/verified`;
    await registerEndpoint(t, receiver, a.key, path, ["*"]);
    const created = await t.rest("POST", "/v2/users", { key: a.key, body: { ...COMPLETE_SG, email: `${randomUUID()}@example.com` } });
    const userId = created.body.user_id as string;
    for (const documentType of ["PASSPORT", "PROOF_OF_ADDRESS"] as const)
      await t.db.document.create({
        data: { clientId: a.clientId, userId, documentType, fileName: "scan.pdf", mimeType: "application/pdf", sizeBytes: 1, sha256: "0".repeat(64) },
      });
    await t.db.user.update({ where: { id: userId }, data: { phoneVerified: true } }); // OTP is another domain's
    // the checks the creation queued may still be writing the user: a 409 CONFLICT asks to submit again
    let verify = await t.rest("POST", "/v2/users/verify", { key: a.key, body: { user_id: userId } });
    for (let i = 0; verify.status === 409 && i < 20; i++) {
      await new Promise((r) => setTimeout(r, 100));
      verify = await t.rest("POST", "/v2/users/verify", { key: a.key, body: { user_id: userId } });
    }
    expect(verify.status).toBe(202);
    const mine = () =>
      receiver
        .at(path)
        .map((d) => ({ ...d, envelope: JSON.parse(d.body) }))
        .filter((d) => d.envelope.data.user_id === userId);
    const statuses = () =>
      mine()
        .filter((d) => d.envelope.type === "user.status.updated")
        .map((d) => d.envelope.data.status);
    await receiver.until("the user ACTIVE", () => statuses().includes("ACTIVE"), 30_000);
    // deliveries run side by side: the run's own event may land after the status move it caused
    const ALL = ["check.kyc.updated", "check.sanctions_screening.updated", "check.transaction_monitoring.updated", "user.status.updated"];
    await receiver.until("every type", () => ALL.every((type) => mine().some((d) => d.envelope.type === type)), 30_000);
    const types = new Set(mine().map((d) => d.envelope.type));
    for (const type of ["check.kyc.updated", "check.sanctions_screening.updated", "check.transaction_monitoring.updated", "user.status.updated"])
      expect(types, type).toContain(type);
    expect(mine().every((d) => d.verified)).toBe(true);
    // every event of this user in the outbox was sent once, no more
    const outbox = (await t.rest("GET", `/v2/events?records_per_page=100`, { key: a.key })).body.data.filter(
      (e: { data: { user_id: string } }) => e.data.user_id === userId,
    );
    await receiver.until("every event of the user", () => mine().length >= outbox.length);
    expect(
      mine()
        .map((d) => d.id)
        .sort(),
    ).toEqual(outbox.map((e: { id: string }) => e.id).sort());
    expect(mine().find((d) => d.envelope.type === "check.kyc.updated")!.envelope.data).toMatchObject({
      user_id: userId,
      check: { type: "KYC" },
      user: { user_id: userId },
    });
  }, 40_000);

  it("sends the events of any public type: fan-out needs only the type to be public", async () => {
    const path = `/${randomUUID().slice(0, 8)}/any-writer`;
    await registerEndpoint(t, receiver, a.key, path, ["check.kyc.updated"]);
    const userId = randomUUID();
    await t.app.services.transact({ principal: OPERATOR }, async ({ emit }) => {
      // a topic the checks engine brings: fan-out needs only the type to be public, not to know it
      (emit as (topic: string, ...args: unknown[]) => void)("check.kyc.updated", a.clientId, { userId, check: { status: "CLEAR" } });
    });
    const of = () => receiver.at(path).filter((d) => JSON.parse(d.body).data.user_id === userId);
    await receiver.until("the check event", () => of().length > 0);
    const [got] = of();
    expect(got.verified).toBe(true);
    expect(JSON.parse(got.body)).toMatchObject({ type: "check.kyc.updated", data: { user_id: userId, check: { status: "CLEAR" } } });
  });

  it("loses no event when its writer dies between commit and relay: the relay job sends the webhook and the subscription event", async () => {
    const path = `/${randomUUID().slice(0, 8)}/after-crash`;
    await registerEndpoint(t, receiver, a.key, path, ["user.status.updated"]);
    const userId = randomUUID();
    const heard = t.app.services.events.subscribe("user.status.updated", a.clientId);
    const subscriptionEvent = (async () => {
      for await (const e of heard) if ((e as { userId: string }).userId === userId) return e;
    })();
    // committed with its relay job and never relayed by the writer: what a process that died right after commit leaves
    await createTransact(t.db, { jobs: t.app.services.jobs })({ principal: OPERATOR }, async ({ emit }) => {
      emit("user.status.updated", a.clientId, { userId, status: "CLOSED", previousStatus: "ACTIVE" });
    });
    const row = () => t.db.event.findFirstOrThrow({ where: { data: { path: ["userId"], equals: userId } } });
    expect((await row()).publishedAt).toBeNull();
    await receiver.until("the webhook, sent once the relay job ran", () => receiver.at(path).some((d) => JSON.parse(d.body).data.user_id === userId), 25_000);
    expect(await subscriptionEvent).toMatchObject({ userId, status: "CLOSED" });
    expect((await row()).publishedAt).toBeInstanceOf(Date);
    expect(receiver.at(path).filter((d) => JSON.parse(d.body).data.user_id === userId)).toHaveLength(1);
    await heard.return?.();
  }, 40_000);

  it("queues an attempt once however often it is enqueued (job ids from endpoint, event and attempt)", async () => {
    expect(deliveryJobId("e", "v", 1)).toBe(deliveryJobId("e", "v", 1));
    expect(deliveryJobId("e", "v", 1)).not.toBe(deliveryJobId("e", "v", 2));
    expect(deliveryJobId("e", "v", 1)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/);
    const path = `/${randomUUID().slice(0, 8)}/twice`;
    const { webhook_id: endpointId } = await registerEndpoint(t, receiver, a.key, path, ["*"]);
    const event = { id: randomUUID(), type: "user.status.updated", createdAt: new Date().toISOString(), data: {} };
    const job = { id: deliveryJobId(endpointId, event.id, 1), data: { endpointId, event } };
    await t.app.services.jobs.sendMany(WEBHOOK_DELIVERY_JOB, [job, job]);
    await t.app.services.jobs.sendMany(WEBHOOK_DELIVERY_JOB, [job]);
    t.app.services.jobs.notify(WEBHOOK_DELIVERY_JOB);
    const of = () => receiver.at(path).filter((d) => d.id === event.id);
    await receiver.until("the delivery", () => of().length > 0);
    await new Promise((r) => setTimeout(r, 500));
    expect(of()).toHaveLength(1);
  });

  it("/metrics shows queue depth and oldest age per job queue and the outbox lag, and they move", async () => {
    const read = async () => (await t.app.fetch("/metrics")).text();
    const first = await read();
    for (const name of [
      `job_queue_depth{queue="${WEBHOOK_DELIVERY_JOB}"}`,
      `job_queue_scheduled{queue="${WEBHOOK_DELIVERY_JOB}"}`,
      `job_queue_oldest_age_seconds{queue="${WEBHOOK_DELIVERY_JOB}"}`,
      "outbox_unpublished_events",
      "outbox_oldest_unpublished_age_seconds",
    ])
      expect(metric(first, name), name).toBeGreaterThanOrEqual(0);
    // a queue nobody works here: its jobs wait, and the oldest one ages
    const queue = `test.idle-${backend}`;
    await t.app.services.jobs.define({ name: queue });
    await t.app.services.jobs.send(queue, { n: 1 });
    await t.app.services.jobs.send(queue, { n: 2 }, { startAfter: 3600 });
    await new Promise((r) => setTimeout(r, 1100));
    const queued = await read();
    expect(metric(queued, `job_queue_depth{queue="${queue}"}`)).toBe(1);
    expect(metric(queued, `job_queue_scheduled{queue="${queue}"}`)).toBe(1);
    expect(metric(queued, `job_queue_oldest_age_seconds{queue="${queue}"}`)).toBeGreaterThanOrEqual(1);
    // an event committed by a writer without the relay stays unpublished until the relay takes it (a client with no endpoints)
    await createTransact(t.db)({ principal: OPERATOR }, async ({ emit }) => {
      emit("user.status.updated", randomUUID(), { userId: randomUUID(), status: "CLOSED", previousStatus: "ACTIVE" });
    });
    await new Promise((r) => setTimeout(r, 600));
    const lagging = await read();
    expect(metric(lagging, "outbox_unpublished_events")).toBeGreaterThanOrEqual(1);
    expect(metric(lagging, "outbox_oldest_unpublished_age_seconds")).toBeGreaterThan(0.5);
    await t.app.outbox.relayPending();
    await new Promise((r) => setTimeout(r, 600));
    const caughtUp = await read();
    expect(metric(caughtUp, "outbox_unpublished_events")).toBe(0);
    expect(metric(caughtUp, "outbox_oldest_unpublished_age_seconds")).toBe(0);
  });
});

describe.runIf(multiInstance)("webhooks on two instances (postgres + redis)", () => {
  it("makes each attempt once: events from both instances, a 500 then a 200 each → two requests per webhook-id, attempts 1 and 2", async () => {
    const receiver = await startWebhookReceiver();
    const { a, b, stop } = await startTwoInstances(FAST);
    try {
      const client = await a.createClient("Twice");
      const path = "/two/instances";
      const { webhook_id: id } = await registerEndpoint(a, receiver, client.key, path, ["user.status.updated"]);
      receiver.answerEach(path, 500, 200); // every event's first attempt fails, its retry succeeds
      const users = await Promise.all(Array.from({ length: 20 }, (_, i) => closeUser(i % 2 ? b : a, client)));
      // the closes, and whatever status moves the checks engine raised for these users meanwhile
      const events = await a.db.event.findMany({ where: { clientId: client.clientId, type: "user.status.updated" }, select: { id: true, data: true } });
      expect(events.length).toBeGreaterThanOrEqual(users.length);

      await receiver.until(
        "a success per event",
        () =>
          new Set(
            receiver
              .at(path)
              .filter((d) => d.status === 200)
              .map((d) => d.id),
          ).size >= events.length,
        30_000,
      );
      await new Promise((r) => setTimeout(r, 1000)); // a duplicate would have come by now
      const perId = new Map<string, number[]>();
      for (const d of receiver.at(path)) perId.set(d.id, [...(perId.get(d.id) ?? []), d.status as number]);
      expect(new Set(perId.keys())).toEqual(new Set(events.map((e) => e.id)));
      expect([...perId.values()].filter((s) => s.join() !== "500,200")).toEqual([]);
      expect(receiver.at(path).every((d) => d.verified)).toBe(true);
      const attempts = await a.db.webhookAttempt.findMany({ where: { endpointId: id }, select: { eventId: true, attemptNumber: true } });
      expect(attempts).toHaveLength(2 * events.length);
      expect(new Set(attempts.map((x) => `${x.eventId}#${x.attemptNumber}`)).size).toBe(attempts.length);
    } finally {
      await stop();
      await receiver.close();
    }
  }, 60_000);
});

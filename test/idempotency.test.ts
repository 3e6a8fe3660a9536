/**
 * Idempotency-Key across the keys of one client: a stored answer belongs to the API key whose request
 * made it. Another key sending the same key and body (a reviewer's key, without the scope the route
 * needs) is not handed that answer (a webhook endpoint's signing secret, shown once), on REST and
 * GraphQL; the key that made it still gets its replay.
 * And a claim whose holder died: its lease runs out, and a retry runs afresh when nothing had
 * committed, or answers from the writes that had (the process kills themselves: test/faults/idempotency-kill.test.ts).
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY, backends, startTestApp, type TestApp } from "./helpers/app.js";
import { eventually } from "./helpers/eventually.js";

describe.each(backends)("idempotency keys across the API keys of a client (%s)", (backend) => {
  let t: TestApp;
  let owner = "";
  let reviewer = "";
  beforeAll(async () => {
    t = await startTestApp(backend, { WEBHOOK_ALLOW_PRIVATE: "1" });
    const client = await t.createClient("Two keys");
    owner = client.key;
    reviewer = (await t.rest("POST", `/admin/clients/${client.clientId}/reviewers`, { key: ADMIN_KEY, body: { name: "Rev", email: "rev@example.com" } })).body
      .api_key;
  });
  afterAll(() => t?.stop());

  const endpoint = { url: "http://127.0.0.1:9/hook", event_types: ["user.status.updated"] };

  it("a key without webhooks:manage replaying another key's POST is not served its answer", async () => {
    const headers = { "idempotency-key": "endpoint-1" };
    const made = await t.rest("POST", "/v2/webhooks", { key: owner, body: endpoint, headers });
    expect(made.status).toBe(201);
    expect(made.body.secret).toBeTruthy();

    const replayed = await t.rest("POST", "/v2/webhooks", { key: reviewer, body: endpoint, headers });
    expect(replayed.status).toBe(422);
    expect(replayed.body.code).toBe("IDEMPOTENCY_KEY_REUSED");
    expect(replayed.headers.get("idempotent-replayed")).toBeNull();
    expect(JSON.stringify(replayed.body)).not.toContain(made.body.secret);

    // the key that made it gets its answer again
    const again = await t.rest("POST", "/v2/webhooks", { key: owner, body: endpoint, headers });
    expect([again.status, again.body.secret, again.headers.get("idempotent-replayed")]).toEqual([201, made.body.secret, "true"]);
  });

  it("the same holds for a GraphQL mutation", async () => {
    const mutation = `mutation { createWebhookEndpoint(input: { url: "${endpoint.url}", eventTypes: ["user.status.updated"] }) { id secret } }`;
    const headers = { "idempotency-key": "endpoint-2" };
    const made = await t.gql(owner, mutation, undefined, headers);
    expect(made.data.createWebhookEndpoint.secret).toBeTruthy();
    const replayed = await t.gql(reviewer, mutation, undefined, headers);
    expect(replayed.headers.get("idempotent-replayed")).toBeNull();
    expect(JSON.stringify(replayed.body)).not.toContain(made.data.createWebhookEndpoint.secret);
    expect(replayed.errors?.[0]?.extensions.code).toBe("IDEMPOTENCY_KEY_REUSED");
  });

  /** the row of a request whose process died: unanswered, its holder gone, its lease run out */
  const orphan = () => ({ responseStatus: null, responseBody: null, holder: "00000000-0000-4000-8000-00000000dead", leaseUntil: new Date(Date.now() - 1000) });
  const rowOf = async (key: string) => (await t.db.idempotencyKey.findMany({ where: { key } }))[0]!;
  const usersWith = async (email: string) =>
    (await t.rest("GET", `/v2/users?email=${encodeURIComponent(email)}`, { key: owner })).body.data.map((u: { user_id: string }) => u.user_id);

  it("a claim whose holder died before its write committed gives way: the retry runs afresh", async () => {
    const body = { first_name: "Never", last_name: "Committed", email: "never-committed@example.com" };
    // the key's row as the dead request left it: claimed, nothing recorded, no user made
    await t.rest("POST", "/v2/webhooks", { key: owner, body: {}, headers: { "idempotency-key": "probe" } }); // a 400, stored: a row to copy
    const { clientId, keyId, expiresAt } = await rowOf("probe");
    const requestHash = createHash("sha256")
      .update(`POST /v2/users\n${JSON.stringify(body)}`)
      .digest("hex");
    await t.db.idempotencyKey.create({ data: { clientId, keyId, key: "died-before", requestHash, expiresAt, ...orphan() } });
    const retried = await t.rest("POST", "/v2/users", { key: owner, body, headers: { "idempotency-key": "died-before" } });
    expect(retried.status).toBe(201);
    expect(retried.headers.get("idempotent-replayed")).toBeNull();
    expect(await usersWith(body.email)).toEqual([retried.body.user_id]);
  });

  it("a claim whose holder died after its write committed answers from the recorded write: the same user, made once", async () => {
    const body = { first_name: "Was", last_name: "Committed", email: "was-committed@example.com" };
    const made = await t.rest("POST", "/v2/users", { key: owner, body, headers: { "idempotency-key": "died-after" } });
    const { clientId, writes } = await rowOf("died-after");
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatch(/^v1\./); // encrypted, as the answer is
    await t.db.idempotencyKey.update({ where: { clientId_key: { clientId, key: "died-after" } }, data: orphan() });
    const retried = await t.rest("POST", "/v2/users", { key: owner, body, headers: { "idempotency-key": "died-after" } });
    expect([retried.status, retried.body.user_id, retried.headers.get("idempotent-replayed")]).toEqual([201, made.body.user_id, "true"]);
    expect(retried.body).toEqual(made.body);
    expect(await usersWith(body.email)).toEqual([made.body.user_id]);
  });

  it("a webhook endpoint made before the holder died is answered with its own secret, not a new one", async () => {
    const headers = { "idempotency-key": "died-after-endpoint" };
    const made = await t.rest("POST", "/v2/webhooks", { key: owner, body: endpoint, headers });
    const { clientId } = await rowOf("died-after-endpoint");
    await t.db.idempotencyKey.update({ where: { clientId_key: { clientId, key: "died-after-endpoint" } }, data: orphan() });
    const retried = await t.rest("POST", "/v2/webhooks", { key: owner, body: endpoint, headers });
    expect([retried.status, retried.body.webhook_id, retried.body.secret]).toEqual([201, made.body.webhook_id, made.body.secret]);
  });

  it("an upstream check result posted before the holder died is recorded once", async () => {
    const user = await t.rest("POST", "/v2/users", { key: owner, body: { first_name: "Up", last_name: "Stream", email: "upstream@example.com" } });
    const [run] = (await t.rest("GET", `/v2/users/${user.body.user_id}/checks`, { key: owner })).body.data;
    const headers = { "idempotency-key": "died-after-result" };
    const result = { status: "CONSIDER", reasons: ["manual look"] };
    const made = await t.rest("POST", `/v2/checks/${run.check_id}/result`, { key: ADMIN_KEY, body: result, headers });
    expect(made.status).toBe(200);
    const { clientId, writes } = await rowOf("died-after-result");
    expect(writes).toHaveLength(1);
    await t.db.idempotencyKey.update({ where: { clientId_key: { clientId, key: "died-after-result" } }, data: orphan() });
    const retried = await t.rest("POST", `/v2/checks/${run.check_id}/result`, { key: ADMIN_KEY, body: result, headers });
    expect([retried.status, retried.headers.get("idempotent-replayed")]).toEqual([200, "true"]);
    expect(retried.body).toEqual(made.body);
  });

  // PostgreSQL only: the test holds a lock while the request waits on it (PGlite has one connection)
  it.runIf(backend === "postgres")("an attempt whose key was taken over meanwhile cannot commit its write", async () => {
    const body = { first_name: "Over", last_name: "Taken", email: "overtaken@example.com" };
    const headers = { "idempotency-key": "taken-over" };
    let release = () => {};
    const locked = new Promise<void>((resolve) => {
      void t.db.$transaction(
        async (tx) => {
          await tx.$executeRawUnsafe("lock table users in share mode");
          resolve();
          await new Promise<void>((done) => {
            release = done;
          });
        },
        { timeout: 30_000 },
      );
    });
    await locked;
    const slow = t.rest("POST", "/v2/users", { key: owner, body, headers });
    // the request has claimed its key and waits on the lock: a retry takes the key over, as after a lapsed lease
    const row = await eventually(
      () => t.db.idempotencyKey.findMany({ where: { key: "taken-over" } }),
      (rows) => rows.length === 1,
    );
    await t.db.idempotencyKey.update({
      where: { clientId_key: { clientId: row[0]!.clientId, key: "taken-over" } },
      data: { holder: "00000000-0000-4000-8000-0000000000aa" },
    });
    release();
    const answer = await slow;
    expect([answer.status, answer.body.code]).toEqual([409, "IDEMPOTENCY_KEY_IN_USE"]);
    expect(await usersWith(body.email)).toEqual([]);
  });

  it("a request that deletes its own key's row (a sandbox reset) still commits", async () => {
    const reset = await t.rest("POST", "/v2/sandbox/reset", { key: owner, body: {}, headers: { "idempotency-key": "reset-1" } });
    expect(reset.status).toBe(200);
  });
});

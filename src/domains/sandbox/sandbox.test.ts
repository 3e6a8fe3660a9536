/**
 * The sandbox end to end: magic inputs reach their outcome on a SANDBOX key and mean nothing on a
 * LIVE one; a check's result and a monitoring alert can be simulated; a reset leaves no row of the
 * client and every other client's rows as they were.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, PNG_BASE64, startTestApp, type TestApp } from "../../../test/helpers/app.js";
import { within } from "../../../test/helpers/eventually.js";
import { startWebhookReceiver, type WebhookReceiver } from "../../../test/helpers/webhook-receiver.js";
import { SANDBOX_INPUTS } from "../../kernel/sandbox-inputs.js";

const PERSON = { first_name: "Ana", date_of_birth: "1990-05-17" };

describe.each(backends)("the sandbox on %s", (backend) => {
  let t: TestApp;
  let sandbox: { key: string; clientId: string };
  let live: { key: string; clientId: string };
  let receiver: WebhookReceiver;

  const signUp = async (key: string, body: Record<string, unknown>) => {
    const res = await t.rest("POST", "/v2/users", { key, body: { ...PERSON, email: `${randomUUID()}@example.com`, ...body } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.user_id as string;
  };
  /** the sandbox client's verified webhook of `type` about `userId` */
  const webhookOf = (type: string, userId: string) =>
    within(
      `${type} webhook`,
      () => receiver.at("/sandbox").filter((d) => JSON.parse(d.body).type === type && JSON.parse(d.body).data.user_id === userId),
      (d) => d.length > 0 && d.every((one) => one.verified === true),
    );
  const latest = async (key: string, userId: string, type: string) =>
    ((await t.rest("GET", `/v2/users/${userId}/checks`, { key })).body.data as any[]).find((run) => run.type === type);

  beforeAll(async () => {
    t = await startTestApp(backend, { WEBHOOK_ALLOW_PRIVATE: "1" });
    sandbox = await t.createClient("Sandbox");
    live = await t.createClient("Live", undefined, "LIVE");
    receiver = await startWebhookReceiver();
    const endpoint = await t.rest("POST", "/v2/webhooks", { key: sandbox.key, body: { url: receiver.url("/sandbox"), event_types: ["*"] } });
    receiver.sign("/sandbox", endpoint.body.secret);
  }, 60_000);
  afterAll(async () => {
    await receiver?.close();
    await t?.stop();
  });

  it("rejects SandboxReject and holds SandboxReview for review on the sandbox list, each with its verified webhook; LIVE screens them as any name", async () => {
    const rejected = await signUp(sandbox.key, { last_name: SANDBOX_INPUTS.rejectLastName });
    const review = await signUp(sandbox.key, { last_name: "sandboxreview" }); // any case
    const plain = await signUp(live.key, { last_name: SANDBOX_INPUTS.rejectLastName });
    await t.checksSettled();
    const hit = (await latest(sandbox.key, rejected, "SANCTIONS_SCREENING")) as any;
    expect(hit).toMatchObject({
      status: "REJECTED",
      result: { matches: [expect.objectContaining({ list: "SANDBOX", entryId: "SANDBOX-1", status: "REJECTED" })] },
    });
    expect(await latest(sandbox.key, review, "SANCTIONS_SCREENING")).toMatchObject({ status: "CONSIDER" });
    expect(await latest(live.key, plain, "SANCTIONS_SCREENING")).toMatchObject({ status: "CLEAR" });
    const webhook = await within(
      "the rejection's webhook",
      () =>
        receiver.at("/sandbox").filter((d) => JSON.parse(d.body).type === "check.sanctions_screening.updated" && JSON.parse(d.body).data.user_id === rejected),
      (d) => d.length > 0,
    );
    expect(webhook[0]!.verified).toBe(true);
    expect(JSON.parse(webhook[0]!.body).data.check.status).toBe("REJECTED");
    // the possible match opened a review, as a real one does
    await within(
      "the review's webhook",
      () => receiver.at("/sandbox").filter((d) => JSON.parse(d.body).type === "review.opened" && JSON.parse(d.body).data.user_id === review),
      (d) => d.length === 1 && d[0]!.verified === true,
    );
  }, 60_000);

  it("raises a monitoring alert for SandboxAlert in the address, on a sandbox key only", async () => {
    const address = { line1: SANDBOX_INPUTS.alertAddressLine, city: "Singapore", postal_code: "018989", country: "SG" };
    const alerted = await signUp(sandbox.key, { last_name: "Cruz", residential_address: address });
    const plain = await signUp(live.key, { last_name: "Cruz", residential_address: address });
    await t.checksSettled();
    expect(await latest(sandbox.key, alerted, "TRANSACTION_MONITORING")).toMatchObject({
      status: "CONSIDER",
      result: { reasons: expect.arrayContaining(["sandbox_alert:residential_address.line1", "upstream_alert_open"]) },
    });
    expect(await latest(live.key, plain, "TRANSACTION_MONITORING")).toMatchObject({ status: "CLEAR" });
    const [delivered] = await webhookOf("check.transaction_monitoring.updated", alerted);
    expect(JSON.parse(delivered!.body).data.check.status).toBe("CONSIDER");
  }, 60_000);

  it("makes a document numbered SANDBOXINVALID INVALID on a sandbox key, with KYC saying why; a new number or a LIVE key makes it ACTIVE", async () => {
    const upload = (key: string, userId: string) =>
      t.rest("POST", "/v2/users/authentications/documents", {
        key,
        body: {
          user_id: userId,
          document_type: "PASSPORT",
          document_number: SANDBOX_INPUTS.invalidDocumentNumber,
          issuing_country: "SG",
          expiry_date: "2031-01-01",
          file: { file_name: "passport.png", mime_type: "image/png", content_base64: PNG_BASE64 },
        },
      });
    const userId = await signUp(sandbox.key, { last_name: "Doc" });
    const invalid = await upload(sandbox.key, userId);
    expect(invalid.status, JSON.stringify(invalid.body)).toBe(201);
    expect(invalid.body).toMatchObject({ status: "INVALID", invalid_reason: "document_number_not_recognised" });
    await t.checksSettled();
    const kyc = await latest(sandbox.key, userId, "KYC");
    expect(kyc).toMatchObject({
      status: "CONSIDER",
      result: { reasons: expect.arrayContaining(["document_invalid:PASSPORT:document_number_not_recognised"]) },
    });
    await webhookOf("check.kyc.updated", userId);
    const listed = await t.gql(sandbox.key, `query($id: ID!) { user(id: $id) { documents(status: INVALID) { id status invalidReason } } }`, { id: userId });
    expect(listed.data.user.documents).toEqual([{ id: invalid.body.document_id, status: "INVALID", invalidReason: "document_number_not_recognised" }]);
    const renumbered = await t.rest("PUT", "/v2/users/authentications/documents", {
      key: sandbox.key,
      body: { document_id: invalid.body.document_id, document_number: "E1234567" },
    });
    expect(renumbered.body).toMatchObject({ status: "ACTIVE", invalid_reason: null });

    const liveUser = await signUp(live.key, { last_name: "Doc" });
    expect((await upload(live.key, liveUser)).body).toMatchObject({ status: "ACTIVE", invalid_reason: null });
  }, 60_000);

  it("simulates a provider's result and an upstream alert over REST and GraphQL, moving the user as upstream results do", async () => {
    const userId = await signUp(sandbox.key, { last_name: "Cruz" });
    await t.checksSettled();
    const screening = await latest(sandbox.key, userId, "SANCTIONS_SCREENING");
    const simulated = await t.rest("POST", `/v2/sandbox/checks/${screening.check_id}/simulate`, {
      key: sandbox.key,
      body: { status: "REJECTED", reasons: ["provider_confirmed"], matches: [{ entryId: "UP-7", name: "CRUZ, Ana" }] },
    });
    expect(simulated.status, JSON.stringify(simulated.body)).toBe(200);
    expect(simulated.body).toMatchObject({ status: "REJECTED", decided_by: "PROVIDER", result: { provider: "upstream", reasons: ["provider_confirmed"] } });
    await t.checksSettled();
    // a user who has not asked to be verified keeps PENDING: its risk moves
    expect((await t.rest("GET", `/v2/users/${userId}`, { key: sandbox.key })).body).toMatchObject({ risk_level: "HIGH", risk_assessment_status: "REJECTED" });

    const other = await signUp(sandbox.key, { last_name: "Lim" });
    const alert = await t.gql(
      sandbox.key,
      `mutation($input: RaiseSandboxAlertInput!) { raiseSandboxAlert(input: $input) { id type status decidedBy result { reasons provider } } }`,
      { input: { userId: other, reasons: ["structuring"] } },
    );
    expect(alert.errors).toBeUndefined();
    expect(alert.data.raiseSandboxAlert).toMatchObject({
      type: "TRANSACTION_MONITORING",
      status: "CONSIDER",
      decidedBy: "PROVIDER",
      result: { provider: "upstream" },
    });
    // the alert stays open in the next monitoring run, as an upstream one does
    expect((await t.rest("POST", `/v2/users/${other}/checks`, { key: sandbox.key, body: { type: "TRANSACTION_MONITORING" } })).status).toBe(202);
    await t.checksSettled();
    expect(await latest(sandbox.key, other, "TRANSACTION_MONITORING")).toMatchObject({
      status: "CONSIDER",
      result: { reasons: expect.arrayContaining(["upstream_alert_open", "upstream:structuring"]) },
    });
  }, 60_000);

  it("answers 404 to every sandbox route with a LIVE key, and to another client's check", async () => {
    const mine = await signUp(sandbox.key, { last_name: "Tan" });
    const theirs = await signUp(live.key, { last_name: "Tan" });
    await t.checksSettled();
    const run = await latest(live.key, theirs, "KYC");
    for (const [path, body] of [
      [`/v2/sandbox/checks/${run.check_id}/simulate`, { status: "CLEAR" }],
      [`/v2/sandbox/users/${theirs}/alerts`, {}],
      ["/v2/sandbox/reset", {}],
    ] as const)
      expect((await t.rest("POST", path, { key: live.key, body })).status, path).toBe(404);
    expect((await t.gql(live.key, `mutation { resetSandbox { deletedUsers } }`)).errors?.[0]?.extensions.code).toBe("NOT_FOUND");
    expect((await t.rest("POST", `/v2/sandbox/checks/${run.check_id}/simulate`, { key: sandbox.key, body: { status: "CLEAR" } })).status).toBe(404);
    expect((await t.rest("POST", `/v2/sandbox/users/${theirs}/alerts`, { key: sandbox.key, body: {} })).status).toBe(404);
    expect((await t.rest("POST", `/v2/sandbox/users/${mine}/alerts`, { key: sandbox.key, body: {} })).status).toBe(201);
  }, 60_000);

  it("resets the sandbox client's rows and no other client's", async () => {
    const other = await t.createClient("Bystander");
    await signUp(other.key, { last_name: "Stays" });
    const userId = await signUp(sandbox.key, { last_name: SANDBOX_INPUTS.reviewLastName });
    await t.rest("POST", "/v2/users/authentications/documents", {
      key: sandbox.key,
      body: { user_id: userId, document_type: "PROOF_OF_ADDRESS", file: { file_name: "bill.png", mime_type: "image/png", content_base64: PNG_BASE64 } },
    });
    await t.rest("POST", "/v2/users/trigger/otp/email", { key: sandbox.key, body: { user_id: userId } });
    await t.checksSettled();
    const count = async (clientId: string) =>
      (
        await t.db.$queryRawUnsafe<Record<string, number>[]>(
          `select ${OWNED.map((table) => `(select count(*)::int from ${table} where client_id = $1::uuid) as ${table}`).join(", ")}`,
          clientId,
        )
      )[0]!;
    const before = { mine: await count(sandbox.clientId), theirs: await count(other.clientId), live: await count(live.clientId) };
    for (const table of ["users", "documents", "check_runs", "reviews", "review_hits", "otp_codes", "sandbox_messages", "events"])
      expect(before.mine[table], table).toBeGreaterThan(0);
    const reset = await t.rest("POST", "/v2/sandbox/reset", { key: sandbox.key, body: {} });
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);
    expect(reset.body.deleted_users).toBe(before.mine.users);
    expect(Object.values(await count(sandbox.clientId)).every((n) => n === 0)).toBe(true);
    expect(await count(other.clientId)).toEqual(before.theirs);
    expect(await count(live.clientId)).toEqual(before.live);
    // the client's keys and webhook endpoint stay: it starts again at once
    expect((await t.rest("GET", "/v2/webhooks", { key: sandbox.key })).body.data).toHaveLength(1);
    expect(await signUp(sandbox.key, { last_name: "Again" })).toBeTruthy();
    expect(await t.db.auditEntry.count({ where: { action: "sandbox.reset", clientId: sandbox.clientId } })).toBe(1);
  }, 60_000);
});

/** Every table holding a client's sandbox data. */
const OWNED = ["users", "documents", "check_runs", "reviews", "review_hits", "otp_codes", "sandbox_messages", "events", "wallets", "cards"];

describe.each(backends)("the sandbox clock on %s", (backend) => {
  let t: TestApp;
  let a: { key: string; clientId: string };
  let b: { key: string; clientId: string };
  const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

  /** A Singapore user with a passport expiring in 30 days and a proof of address, as each client signs them up. */
  async function userWithPassport(key: string) {
    const userId = (
      await t.rest("POST", "/v2/users", {
        key,
        body: {
          first_name: "Mei",
          last_name: "Lim",
          email: `${randomUUID()}@example.com`,
          phone_number: "+6591234567",
          date_of_birth: "1988-03-04",
          nationality: "SG",
          country_of_residence: "SG",
          residential_address: { line1: "1 Marina Blvd", city: "Singapore", postal_code: "018989", country: "SG" },
        },
      })
    ).body.user_id as string;
    const file = { file_name: "scan.png", mime_type: "image/png", content_base64: PNG_BASE64 };
    const passport = await t.rest("POST", "/v2/users/authentications/documents", {
      key,
      body: { user_id: userId, document_type: "PASSPORT", document_number: "E7654321", issuing_country: "SG", expiry_date: inDays(30), file },
    });
    expect(passport.status, JSON.stringify(passport.body)).toBe(201);
    await t.rest("POST", "/v2/users/authentications/documents", { key, body: { user_id: userId, document_type: "PROOF_OF_ADDRESS", file } });
    return { userId, documentId: passport.body.document_id as string };
  }
  const due = async (key: string, userId: string) => (await t.rest("GET", `/v2/users/${userId}`, { key })).body.requirements.currently_due as string[];

  beforeAll(async () => {
    t = await startTestApp(backend, { WEBHOOK_ALLOW_PRIVATE: "1" });
    a = await t.createClient("Clock A");
    b = await t.createClient("Clock B");
  }, 60_000);
  afterAll(() => t?.stop());

  it("expires a document for the client whose clock moved, and for no other", async () => {
    const mine = await userWithPassport(a.key);
    const theirs = await userWithPassport(b.key);
    await t.checksSettled();
    expect(await due(a.key, mine.userId)).not.toContain("documents.identity");

    const moved = await t.rest("POST", "/v2/sandbox/clock/advance", { key: a.key, body: { days: 31 } });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body).toMatchObject({ offset_seconds: 31 * 86_400, documents_expired: 1 });
    expect(Date.parse(moved.body.now) - Date.now()).toBeGreaterThan(30.9 * 86_400_000);
    await t.checksSettled();

    expect((await t.rest("GET", `/v2/users/authentications/documents/${mine.documentId}`, { key: a.key })).body.status).toBe("EXPIRED");
    expect(await due(a.key, mine.userId)).toContain("documents.identity");
    const kyc = ((await t.rest("GET", `/v2/users/${mine.userId}/checks`, { key: a.key })).body.data as any[]).find((r) => r.type === "KYC");
    expect(kyc).toMatchObject({ trigger: "DOCUMENT_CHANGED", status: "CONSIDER", result: { reasons: expect.arrayContaining(["due:documents.identity"]) } });
    const events = (await t.rest("GET", "/v2/events?types=check.kyc.updated&records_per_page=100", { key: a.key })).body.data as any[];
    expect(events.some((e) => e.data.check.check_id === kyc.check_id)).toBe(true);

    // the other client's identical document is untouched
    expect((await t.rest("GET", `/v2/users/authentications/documents/${theirs.documentId}`, { key: b.key })).body.status).toBe("ACTIVE");
    expect(await due(b.key, theirs.userId)).not.toContain("documents.identity");
    expect(
      await t.db.checkRun.count({ where: { userId: theirs.userId, trigger: "DOCUMENT_CHANGED", createdAt: { gt: new Date(Date.now() + 86_400_000) } } }),
    ).toBe(0);

    // what the client creates now carries its time
    const later = await t.rest("POST", "/v2/users", { key: a.key, body: { first_name: "New", last_name: "Comer", email: `${randomUUID()}@example.com` } });
    expect(Date.parse(later.body.created_at) - Date.now()).toBeGreaterThan(30.9 * 86_400_000);
    expect((await t.gql(a.key, `{ sandboxClock { offsetSeconds } }`)).data.sandboxClock.offsetSeconds).toBe(31 * 86_400);
  }, 90_000);

  it("stamps what is written for the client with its clock, also when a job, a provider or a settlement writes it", async () => {
    // the clock stands 31 days ahead (the test above)
    const ahead = (at: string | Date | null | undefined) => (at ? new Date(at).getTime() - Date.now() : 0) > 30.9 * 86_400_000;
    const userId = (
      await t.rest("POST", "/v2/users", { key: a.key, body: { first_name: "Ana", last_name: "SandboxReview", email: `${randomUUID()}@example.com` } })
    ).body.user_id as string;
    const theirs = (
      await t.rest("POST", "/v2/users", { key: b.key, body: { first_name: "Ana", last_name: "SandboxReview", email: `${randomUUID()}@example.com` } })
    ).body.user_id as string;
    await t.checksSettled();
    const runs = (await t.rest("GET", `/v2/users/${userId}/checks`, { key: a.key })).body.data as any[];
    expect(runs.length).toBeGreaterThan(0);
    for (const run of runs) expect([run.created_at, run.completed_at].every(ahead), JSON.stringify(run)).toBe(true);
    const stored = await t.db.checkRun.findMany({ where: { userId }, select: { startedAt: true } });
    expect(stored.every((run) => ahead(run.startedAt))).toBe(true);
    // opened by the settlement, a job's write on behalf of the client
    const review = await t.db.review.findFirstOrThrow({ where: { userId } });
    expect([review.createdAt, review.updatedAt].every(ahead)).toBe(true);
    const events = (await t.rest("GET", "/v2/events?records_per_page=100", { key: a.key })).body.data as any[];
    const about = events.filter((e) => e.data.user_id === userId);
    expect(about.map((e) => e.type)).toEqual(expect.arrayContaining(["check.sanctions_screening.updated", "review.opened"]));
    expect(
      about.every((e) => ahead(e.created_at)),
      JSON.stringify(about.map((e) => [e.type, e.created_at])),
    ).toBe(true);

    // a provider's result, and a change the client makes
    const screening = runs.find((run) => run.type === "SANCTIONS_SCREENING");
    const simulated = await t.rest("POST", `/v2/sandbox/checks/${screening.check_id}/simulate`, { key: a.key, body: { status: "CLEAR" } });
    expect(simulated.status, JSON.stringify(simulated.body)).toBe(200);
    expect(ahead(simulated.body.completed_at)).toBe(true);
    const updated = await t.rest("PUT", `/v2/users/${userId}`, { key: a.key, body: { middle_name: "Maria" } });
    expect(ahead(updated.body.updated_at), updated.body.updated_at).toBe(true);
    const endpoint = await t.rest("POST", "/v2/webhooks", { key: a.key, body: { url: "http://127.0.0.1:9/clock", event_types: ["user.risk_level.updated"] } });
    expect([endpoint.body.created_at, endpoint.body.updated_at].every(ahead), JSON.stringify(endpoint.body)).toBe(true);
    // what happens on a real network keeps real time: a test event's attempt, and its redelivery
    const sent = await t.rest("POST", `/v2/webhooks/${endpoint.body.webhook_id}/test`, { key: a.key, body: {} });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    const again = await t.rest("POST", `/v2/webhooks/${endpoint.body.webhook_id}/redeliver`, { key: a.key, body: { event_id: sent.body.event_id } });
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    for (const attempt of [sent.body, again.body]) expect(ahead(attempt.attempted_at), attempt.attempted_at).toBe(false);

    // the other client's identical sign-up keeps real time throughout
    const real = (at: string | Date | null) => !!at && Math.abs(new Date(at).getTime() - Date.now()) < 3_600_000;
    const other = (await t.rest("GET", `/v2/users/${theirs}/checks`, { key: b.key })).body.data as any[];
    expect(other.every((run) => real(run.created_at) && real(run.completed_at))).toBe(true);
    expect(real((await t.db.review.findFirstOrThrow({ where: { userId: theirs } })).createdAt)).toBe(true);
  }, 90_000);

  it("runs the re-screening that falls due for that client's users only, and expires its OTP codes", async () => {
    const mine = (await t.db.user.findMany({ where: { clientId: a.clientId }, select: { id: true } })).map((u) => u.id);
    const theirs = (await t.db.user.findMany({ where: { clientId: b.clientId }, select: { id: true } })).map((u) => u.id);
    const otp = await t.rest("POST", "/v2/users/trigger/otp/sms", { key: a.key, body: { user_id: mine[0] } });
    expect(otp.status, JSON.stringify(otp.body)).toBe(202);
    const code = ((await t.rest("GET", `/v2/sandbox/messages?user_id=${mine[0]}`, { key: a.key })).body.data as any[])[0].code;

    const moved = await t.gql(a.key, `mutation { advanceSandboxClock(input: { days: 366 }) { offsetSeconds rescreened } }`);
    expect(moved.errors).toBeUndefined();
    expect(moved.data.advanceSandboxClock.rescreened).toBe(mine.length);
    await t.checksSettled();
    const periodic = (ids: string[]) => t.db.checkRun.count({ where: { userId: { in: ids }, trigger: "PERIODIC", type: "SANCTIONS_SCREENING" } });
    expect(await periodic(mine)).toBe(mine.length);
    expect(await periodic(theirs)).toBe(0);
    // a second advance finds nothing due: the re-screens carry the clock's time
    expect((await t.rest("POST", "/v2/sandbox/clock/advance", { key: a.key, body: { hours: 1 } })).body.rescreened).toBe(0);

    const late = await t.rest("POST", "/v2/users/verify/otp", { key: a.key, body: { user_id: mine[0], channel: "SMS", code } });
    expect(late).toMatchObject({ status: 422, body: { code: "OTP_EXPIRED" } });
  }, 90_000);

  it("goes back to real time on reset, and answers 404 to a LIVE key", async () => {
    const reset = await t.rest("POST", "/v2/sandbox/clock/reset", { key: a.key, body: {} });
    expect(reset.body).toMatchObject({ offset_seconds: 0 });
    expect((await t.rest("GET", "/v2/sandbox/clock", { key: a.key })).body.offset_seconds).toBe(0);
    const live = await t.createClient("Clock LIVE", undefined, "LIVE");
    for (const [method, path] of [
      ["GET", "/v2/sandbox/clock"],
      ["POST", "/v2/sandbox/clock/advance"],
      ["POST", "/v2/sandbox/clock/reset"],
    ] as const)
      expect(
        (await t.rest(method, path, { key: live.key, ...(method === "POST" ? { body: path.endsWith("advance") ? { days: 1 } : {} } : {}) })).status,
        path,
      ).toBe(404);
    expect((await t.rest("POST", "/v2/sandbox/clock/advance", { key: a.key, body: { days: -1 } })).status).toBe(400);
    expect((await t.rest("POST", "/v2/sandbox/clock/advance", { key: a.key, body: {} })).status).toBe(400);
  }, 60_000);
});

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { pino } from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startSmtp } from "../../../test/helpers/smtp.js";
import { backends, startTestApp, type TestApp } from "../../../test/helpers/app.js";
import { ConfigError, loadConfig } from "../../config.js";

/** A local SMS provider: keeps each JSON POST and answers `status` (set 500 to make delivery fail). */
async function startSmsReceiver() {
  const received: { to: string; body: string }[] = [];
  const state = { status: 200 };
  const server: Server = createServer((req, res) => {
    let text = "";
    // no keep-alive: a send must never meet a connection the receiver is just closing (its 5 s idle timeout)
    req
      .on("data", (c) => (text += c))
      .on("end", () => {
        received.push(JSON.parse(text));
        res.writeHead(state.status, { connection: "close" }).end();
      });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return { received, state, url: `http://127.0.0.1:${port}/sms`, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const codeIn = (text: string) => /\b(\d{6})\b/.exec(text)![1];
const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, "0");

describe.each(backends)("OTP on %s", (backend) => {
  let t: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let sms: Awaited<ReturnType<typeof startSmsReceiver>>;
  let live: string, sandbox: string, other: string;
  let offset = 0;
  const advance = (ms: number) => {
    offset += ms;
  };

  beforeAll(async () => {
    [smtp, sms] = await Promise.all([startSmtp(), startSmsReceiver()]);
    t = await startTestApp(backend, { SMTP_URL: smtp.url, SMS_WEBHOOK_URL: sms.url, OTP_FROM: "Gateway <otp@gateway.test>" });
    t.app.services.now = () => new Date(Date.now() + offset);
    live = (await t.createClient("Live", undefined, "LIVE")).key;
    sandbox = (await t.createClient("Sandbox")).key;
    other = (await t.createClient("Other")).key;
  });
  afterAll(async () => {
    await t?.stop();
    await Promise.all([smtp?.stop(), sms?.stop()]);
  });
  beforeEach(() => {
    sms.state.status = 200;
  });

  let n = 0;
  async function newUser(key: string, fields: Record<string, unknown> = {}) {
    n++;
    const res = await t.rest("POST", "/v2/users", {
      key,
      body: { first_name: "O", last_name: "Tp", email: `user${n}@example.com`, phone_number: `+659123${String(4000 + n)}`, ...fields },
    });
    expect(res.status).toBe(201);
    return res.body.user_id as string;
  }
  const trigger = (key: string, userId: string, channel: "email" | "sms") =>
    t.rest("POST", `/v2/users/trigger/otp/${channel}`, { key, body: { user_id: userId } });
  const verify = (key: string, body: Record<string, unknown>, method = "POST") => t.rest(method, "/v2/users/verify/otp", { key, body });
  /** A sandbox user with an email code just sent */
  async function issued() {
    const userId = await newUser(sandbox);
    expect((await trigger(sandbox, userId, "email")).status).toBe(202);
    return { userId, code: await sandboxCode(userId) };
  }
  /** The same refusal through REST and through GraphQL */
  async function expectRefused(userId: string, code: string, status: number, errorCode: string) {
    const res = await verify(sandbox, { user_id: userId, channel: "EMAIL", code });
    expect(res.status).toBe(status);
    expect(res.body.code).toBe(errorCode);
    const gql = await t.gql(sandbox, `mutation($i: VerifyOtpInput!) { verifyOtp(input: $i) { verified } }`, { i: { userId, channel: "EMAIL", code } });
    expect(gql.errors![0].extensions.code).toBe(errorCode);
  }
  async function sandboxCode(userId: string, channel = "EMAIL") {
    const res = await t.rest("GET", `/v2/sandbox/messages?user_id=${userId}&channel=${channel}`, { key: sandbox });
    return res.body.data[0].code as string;
  }

  it("sends a code by email over SMTP and verifies the email with it (REST)", async () => {
    const userId = await newUser(live, { email: "ana.cruz@example.com" });
    const before = Date.now() + offset;
    const res = await trigger(live, userId, "email");
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      otp_id: expect.any(String),
      channel: "EMAIL",
      destination: "a******z@example.com",
      expires_at: expect.any(String),
      resend_available_at: expect.any(String),
    });
    expect(Date.parse(res.body.expires_at) - before).toBeGreaterThanOrEqual(10 * 60_000 - 1000);
    expect(Date.parse(res.body.expires_at) - before).toBeLessThanOrEqual(10 * 60_000 + 5000);
    expect(Date.parse(res.body.resend_available_at) - before).toBeGreaterThanOrEqual(59_000);

    const mail = smtp.received.at(-1)!;
    expect(mail.to).toMatchObject({ text: "ana.cruz@example.com" });
    expect(mail.from).toMatchObject({ value: [{ address: "otp@gateway.test", name: "Gateway" }] });
    const code = codeIn(mail.text!);

    // stored only as an HMAC: the code is nowhere in the row
    const row = await t.db.otpCode.findUniqueOrThrow({ where: { id: res.body.otp_id } });
    expect(JSON.stringify(row)).not.toContain(code);
    expect(row.codeHash).toMatch(/^[0-9a-f]{64}$/);

    const bad = await verify(live, { user_id: userId, channel: "EMAIL", code: wrong(code) });
    expect(bad.status).toBe(422);
    expect(bad.body).toMatchObject({ code: "OTP_INVALID", attempts_remaining: 4 });
    expect(bad.headers.get("content-type")).toContain("application/problem+json");

    const ok = await verify(live, { user_id: userId, channel: "EMAIL", code });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ user_id: userId, channel: "EMAIL", verified: true, verified_at: expect.any(String) });
    expect((await t.rest("GET", `/v2/users/${userId}`, { key: live })).body).toMatchObject({ email_verified: true, phone_verified: false });

    const again = await verify(live, { user_id: userId, channel: "EMAIL", code });
    expect(again.status).toBe(404);
    expect(again.body.code).toBe("OTP_NOT_FOUND");
  });

  it("sends a code by SMS through the HTTP provider and verifies the phone with it (GraphQL)", async () => {
    const userId = await newUser(live, { phone_number: "+6591230001" });
    const sent = await t.gql(
      live,
      `mutation($input: TriggerOtpInput!) { triggerOtp(input: $input) { otpId channel destination expiresAt resendAvailableAt } }`,
      { input: { userId, channel: "SMS" } },
    );
    expect(sent.errors).toBeUndefined();
    expect(sent.data.triggerOtp).toMatchObject({ channel: "SMS", destination: "+65*****001" });
    expect(sms.received.at(-1)).toEqual({ to: "+6591230001", body: expect.stringMatching(/\b\d{6}\b/) });
    const code = codeIn(sms.received.at(-1)!.body);

    const VERIFY = `mutation($input: VerifyOtpInput!) { verifyOtp(input: $input) { userId channel verified verifiedAt } }`;
    const bad = await t.gql(live, VERIFY, { input: { userId, channel: "SMS", code: wrong(code) } });
    expect(bad.errors![0].extensions).toMatchObject({ code: "OTP_INVALID", attemptsRemaining: 4 });
    const ok = await t.gql(live, VERIFY, { input: { userId, channel: "SMS", code } });
    expect(ok.errors).toBeUndefined();
    expect(ok.data.verifyOtp).toMatchObject({ userId, channel: "SMS", verified: true });
    const reuse = await t.gql(live, VERIFY, { input: { userId, channel: "SMS", code } });
    expect(reuse.errors![0].extensions.code).toBe("OTP_NOT_FOUND");
    expect((await t.gql(live, `query($id: ID!) { user(id: $id) { phoneVerified emailVerified } }`, { id: userId })).data.user).toEqual({
      phoneVerified: true,
      emailVerified: false,
    });
  });

  it("puts a sandbox client's messages in the outbox, readable over REST and GraphQL, and 404 for a live key", async () => {
    const userId = await newUser(sandbox);
    expect((await trigger(sandbox, userId, "sms")).status).toBe(202);
    const res = await t.rest("GET", `/v2/sandbox/messages?user_id=${userId}&channel=SMS`, { key: sandbox });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      {
        user_id: userId,
        channel: "SMS",
        to: expect.stringMatching(/^\+659123/),
        body: expect.stringContaining(res.body.data[0].code),
        code: expect.stringMatching(/^\d{6}$/),
        created_at: expect.any(String),
      },
    ]);
    const gql = await t.gql(sandbox, `query($u: ID) { sandboxMessages(userId: $u, first: 5) { totalCount edges { node { channel code } } } }`, { u: userId });
    expect(gql.data.sandboxMessages).toEqual({ totalCount: 1, edges: [{ node: { channel: "SMS", code: res.body.data[0].code } }] });
    expect((await verify(sandbox, { user_id: userId, channel: "SMS", code: res.body.data[0].code })).status).toBe(200);

    const forLive = await t.rest("GET", "/v2/sandbox/messages", { key: live });
    expect(forLive.status).toBe(404);
    expect((await t.gql(live, `{ sandboxMessages { totalCount } }`)).errors![0].extensions.code).toBe("NOT_FOUND");
    expect((await t.rest("GET", "/v2/sandbox/messages?user_id=nope", { key: sandbox })).status).toBe(400);
    // another client's outbox is not visible
    expect((await t.rest("GET", `/v2/sandbox/messages?user_id=${userId}`, { key: other })).body.data).toEqual([]);
  });

  it("counts down attempts_remaining and blocks the sixth try with 429, even with the right code", async () => {
    const { userId, code } = await issued();
    const remaining = [];
    for (let i = 0; i < 5; i++) {
      const res = await verify(sandbox, { user_id: userId, channel: "EMAIL", code: wrong(code) });
      expect(res.status).toBe(422);
      remaining.push(res.body.attempts_remaining);
    }
    expect(remaining).toEqual([4, 3, 2, 1, 0]);
    await expectRefused(userId, code, 429, "OTP_ATTEMPTS_EXCEEDED");
  });

  it("refuses an expired code with 422 OTP_EXPIRED", async () => {
    const { userId, code } = await issued();
    advance(10 * 60_000 - 1000);
    expect((await verify(sandbox, { user_id: userId, channel: "EMAIL", code: wrong(code) })).body.code).toBe("OTP_INVALID"); // still live
    advance(2000);
    await expectRefused(userId, code, 422, "OTP_EXPIRED");
  });

  it("voids the old code when a new one is triggered", async () => {
    const { userId, code: first } = await issued();
    advance(61_000);
    await trigger(sandbox, userId, "email");
    const second = await sandboxCode(userId);
    if (first !== second) {
      const old = await verify(sandbox, { user_id: userId, channel: "EMAIL", code: first });
      expect(old.status).toBe(422);
      expect(old.body.code).toBe("OTP_INVALID");
    }
    const rows = await t.db.otpCode.findMany({ where: { userId }, orderBy: { createdAt: "asc" }, select: { status: true } });
    expect(rows.map((r) => r.status)).toEqual(["VOIDED", "ACTIVE"]);
    expect((await verify(sandbox, { user_id: userId, channel: "EMAIL", code: second })).status).toBe(200);
  });

  it("answers 429 RATE_LIMITED with Retry-After inside the 60 s cooldown and past 5 codes an hour", async () => {
    const userId = await newUser(sandbox);
    expect((await trigger(sandbox, userId, "email")).status).toBe(202);
    const soon = await trigger(sandbox, userId, "email");
    expect(soon.status).toBe(429);
    expect(soon.body).toMatchObject({ code: "RATE_LIMITED", retry_after: 60 });
    expect(soon.headers.get("retry-after")).toBe("60");
    // the other channel has its own budget
    expect((await trigger(sandbox, userId, "sms")).status).toBe(202);
    for (let i = 0; i < 4; i++) {
      advance(61_000);
      expect((await trigger(sandbox, userId, "email")).status).toBe(202);
    }
    advance(61_000);
    const capped = await trigger(sandbox, userId, "email");
    expect(capped.status).toBe(429);
    expect(capped.body.retry_after).toBe(3600 - 5 * 61);
    expect(capped.headers.get("retry-after")).toBe(String(3600 - 5 * 61));
    const gql = await t.gql(sandbox, `mutation($i: TriggerOtpInput!) { triggerOtp(input: $i) { otpId } }`, { i: { userId, channel: "EMAIL" } });
    expect(gql.errors![0].extensions).toMatchObject({ code: "RATE_LIMITED", retryAfter: 3600 - 5 * 61 });
    advance((3600 - 5 * 61) * 1000);
    expect((await trigger(sandbox, userId, "email")).status).toBe(202);
  });

  it("holds the cooldown and the hourly cap per phone number, whichever of 20 user records with that number asks", async () => {
    const pumped = "+6591237777";
    const users = await Promise.all(Array.from({ length: 20 }, () => newUser(live, { phone_number: pumped })));
    const sentTo = () => sms.received.filter((m) => m.to === pumped).length;
    const burst = await Promise.all(users.map((id) => trigger(live, id, "sms")));
    expect(burst.filter((r) => r.status === 202)).toHaveLength(1);
    const refused = burst.filter((r) => r.status !== 202);
    expect(
      refused.every(
        (r) => r.status === 429 && r.body.code === "RATE_LIMITED" && Number(r.headers.get("retry-after")) >= 1 && Number(r.headers.get("retry-after")) <= 60,
      ),
    ).toBe(true);
    expect(refused[0]!.body.detail).toContain("this phone number");
    expect(sentTo()).toBe(1);
    // past the cooldown, another record's code goes out, up to 5 an hour to the number
    for (let i = 1; i < 5; i++) {
      advance(61_000);
      expect((await trigger(live, users[i]!, "sms")).status).toBe(202);
    }
    advance(61_000);
    const capped = await trigger(live, users[5]!, "sms");
    expect(capped.status).toBe(429);
    // the first code went out during the burst, a moment before the clock was moved on
    expect(Number(capped.headers.get("retry-after"))).toBeGreaterThan(3600 - 5 * 61 - 10);
    expect(Number(capped.headers.get("retry-after"))).toBeLessThanOrEqual(3600 - 5 * 61);
    expect(sentTo()).toBe(5);
    // a number of its own is not held back
    expect((await trigger(live, await newUser(live), "sms")).status).toBe(202);
  });

  it("keeps a changed verified email pending until PUT /v2/users/verify/otp confirms it", async () => {
    const userId = await newUser(sandbox, { email: "old@example.com" });
    const noPending = await verify(sandbox, { user_id: userId, channel: "EMAIL", code: "123456" }, "PUT");
    expect(noPending.status).toBe(409);
    expect(noPending.body.code).toBe("NO_PENDING_CHANGE");

    await trigger(sandbox, userId, "email");
    expect((await verify(sandbox, { user_id: userId, channel: "EMAIL", code: await sandboxCode(userId) })).status).toBe(200);
    const changed = await t.rest("PUT", `/v2/users/${userId}`, { key: sandbox, body: { email: "New@Example.com" } });
    expect(changed.body).toMatchObject({ email: "old@example.com", pending_email: "New@Example.com", email_verified: true });

    advance(61_000);
    const sent = await trigger(sandbox, userId, "email");
    expect(sent.body.destination).toBe("N*w@Example.com");
    const msg = (await t.rest("GET", `/v2/sandbox/messages?user_id=${userId}`, { key: sandbox })).body.data[0];
    expect(msg.to).toBe("New@Example.com");
    // the code went to the new address: it proves nothing about the current one
    expect((await verify(sandbox, { user_id: userId, channel: "EMAIL", code: msg.code })).body.code).toBe("OTP_NOT_FOUND");
    expect((await t.rest("GET", `/v2/users/${userId}`, { key: sandbox })).body.email).toBe("old@example.com");

    const confirmed = await verify(sandbox, { user_id: userId, channel: "EMAIL", code: msg.code }, "PUT");
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({ user_id: userId, email: "New@Example.com", pending_email: null, email_verified: true });
    expect(confirmed.body.etag).toBeUndefined();
    const read = await t.rest("GET", `/v2/users/${userId}`, { key: sandbox });
    expect(confirmed.headers.get("etag")).toBe(read.headers.get("etag"));
    // the user's checks may complete in between: the risk they assess moves on its own, the ETag does not
    const unassessed = ({ risk_level, risk_score, risk_assessment_status, ...user }: Record<string, unknown>) => user;
    expect(unassessed(read.body)).toEqual(unassessed(confirmed.body));
    expect((await verify(sandbox, { user_id: userId, channel: "EMAIL", code: msg.code }, "PUT")).body.code).toBe("NO_PENDING_CHANGE");
  });

  it("confirms a pending phone change through GraphQL confirmContactChange", async () => {
    const userId = await newUser(sandbox, { phone_number: "+6591110000" });
    await trigger(sandbox, userId, "sms");
    expect((await verify(sandbox, { user_id: userId, channel: "SMS", code: await sandboxCode(userId, "SMS") })).status).toBe(200);
    await t.gql(sandbox, `mutation($i: UpdateUserInput!) { updateUser(input: $i) { id } }`, { i: { id: userId, phoneNumber: "+6591110001" } });
    advance(61_000);
    await trigger(sandbox, userId, "sms");
    const CONFIRM = `mutation($i: ConfirmContactChangeInput!) { confirmContactChange(input: $i) { id phoneNumber pendingPhoneNumber phoneVerified } }`;
    const code = await sandboxCode(userId, "SMS");
    const bad = await t.gql(sandbox, CONFIRM, { i: { userId, channel: "SMS", code: wrong(code) } });
    expect(bad.errors![0].extensions).toMatchObject({ code: "OTP_INVALID", attemptsRemaining: 4 });
    const ok = await t.gql(sandbox, CONFIRM, { i: { userId, channel: "SMS", code } });
    expect(ok.data.confirmContactChange).toEqual({ id: userId, phoneNumber: "+6591110001", pendingPhoneNumber: null, phoneVerified: true });
  });

  it("answers 409 CONFLICT when the confirmed email was taken meanwhile, and keeps the code usable", async () => {
    const a = await newUser(sandbox, { email: "taken-a@example.com" });
    await trigger(sandbox, a, "email");
    await verify(sandbox, { user_id: a, channel: "EMAIL", code: await sandboxCode(a) });
    await t.rest("PUT", `/v2/users/${a}`, { key: sandbox, body: { email: "wanted@example.com" } });
    advance(61_000);
    await trigger(sandbox, a, "email");
    const code = await sandboxCode(a);
    const b = await newUser(sandbox, { email: "wanted@example.com" });
    const clash = await verify(sandbox, { user_id: a, channel: "EMAIL", code }, "PUT");
    expect(clash.status).toBe(409);
    expect(clash.body.code).toBe("CONFLICT");
    await t.rest("PUT", `/v2/users/${b}`, { key: sandbox, body: { email: "elsewhere@example.com" } });
    expect((await verify(sandbox, { user_id: a, channel: "EMAIL", code }, "PUT")).status).toBe(200);
  });

  it("answers 404 for another client's user and 404 OTP_NOT_FOUND when no code was issued", async () => {
    const { userId, code } = await issued();
    expect((await trigger(other, userId, "email")).status).toBe(404);
    expect((await trigger(other, userId, "email")).body.code).toBe("NOT_FOUND");
    expect((await verify(other, { user_id: userId, channel: "EMAIL", code })).body.code).toBe("NOT_FOUND");
    expect((await verify(other, { user_id: userId, channel: "EMAIL", code }, "PUT")).status).toBe(404);
    const gql = await t.gql(other, `mutation($i: VerifyOtpInput!) { verifyOtp(input: $i) { verified } }`, { i: { userId, channel: "EMAIL", code } });
    expect(gql.errors![0].extensions.code).toBe("NOT_FOUND");
    expect((await verify(sandbox, { user_id: userId, channel: "SMS", code: "123456" })).body).toMatchObject({ code: "OTP_NOT_FOUND" });
    expect((await verify(sandbox, { user_id: userId, channel: "SMS", code: "12ab" })).status).toBe(400);
    // the owner's code still works after the other client's tries
    expect((await verify(sandbox, { user_id: userId, channel: "EMAIL", code })).status).toBe(200);
  });

  it("leaves no usable code when delivery fails, and does not count it against the cooldown", async () => {
    const userId = await newUser(live, { phone_number: "+6591239999" });
    sms.state.status = 500;
    let logged = "";
    const logger = t.app.services.logger;
    t.app.services.logger = pino(
      { level: "debug" },
      new Writable({
        write(chunk, _enc, done) {
          logged += chunk;
          done();
        },
      }),
    );
    const failed = await trigger(live, userId, "sms").finally(() => {
      t.app.services.logger = logger;
    });
    expect(failed.status).toBe(502);
    expect(failed.body.code).toBe("DELIVERY_FAILED");
    const leaked = codeIn(sms.received.at(-1)!.body); // the provider saw it, the user did not get it
    // the failure is logged, without the code, the message or the number
    expect(logged).toContain("otp delivery failed");
    expect(logged).not.toContain(leaked);
    expect(logged).not.toContain("9239999");
    expect(JSON.stringify(failed.body)).not.toContain(leaked);
    expect((await verify(live, { user_id: userId, channel: "SMS", code: leaked })).body.code).toBe("OTP_NOT_FOUND");
    sms.state.status = 200;
    expect((await trigger(live, userId, "sms")).status).toBe(202);
  });

  it("lets only one of two concurrent verifications of a code succeed", async () => {
    const { userId, code } = await issued();
    const results = await Promise.all([0, 1, 2].map(() => verify(sandbox, { user_id: userId, channel: "EMAIL", code })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 404, 404]);
  });
});

describe.each(backends)("OTP delivery not configured on %s", (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend);
  });
  afterAll(() => t?.stop());

  it("answers 503 DELIVERY_UNAVAILABLE to a live key and stores no code", async () => {
    const { key } = await t.createClient("Live", undefined, "LIVE");
    const user = await t.rest("POST", "/v2/users", { key, body: { first_name: "N", last_name: "D", email: "nd@example.com", phone_number: "+6598765432" } });
    for (const channel of ["email", "sms"]) {
      const res = await t.rest("POST", `/v2/users/trigger/otp/${channel}`, { key, body: { user_id: user.body.user_id } });
      expect(res.status).toBe(503);
      expect(res.body.code).toBe("DELIVERY_UNAVAILABLE");
    }
    const gql = await t.gql(key, `mutation($i: TriggerOtpInput!) { triggerOtp(input: $i) { otpId } }`, { i: { userId: user.body.user_id, channel: "EMAIL" } });
    expect(gql.errors![0].extensions.code).toBe("DELIVERY_UNAVAILABLE");
    expect(await t.db.otpCode.count()).toBe(0);
  });
});

describe("OTP sends per client", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp("pglite", { OTP_SENDS_PER_CLIENT_PER_HOUR: "3" });
  });
  afterAll(() => t?.stop());

  it("caps a client's codes an hour (OTP_SENDS_PER_CLIENT_PER_HOUR), every user and channel together, with Retry-After; other clients are not held back", async () => {
    const { key } = await t.createClient("Pumper");
    const { key: neighbour } = await t.createClient("Neighbour");
    const userOf = async (k: string, i: number) =>
      (
        await t.rest("POST", "/v2/users", {
          key: k,
          body: { first_name: "C", last_name: "Ap", email: `cap${i}@example.com`, phone_number: `+65912350${10 + i}` },
        })
      ).body.user_id;
    const send = (k: string, userId: string, channel: string) => t.rest("POST", `/v2/users/trigger/otp/${channel}`, { key: k, body: { user_id: userId } });
    const [a, b] = [await userOf(key, 1), await userOf(key, 2)];
    for (const [userId, channel] of [
      [a, "sms"],
      [a, "email"],
      [b, "sms"],
    ])
      expect((await send(key, userId!, channel!)).status).toBe(202);
    const over = await send(key, b, "email");
    expect(over).toMatchObject({ status: 429, body: { code: "RATE_LIMITED" } });
    expect(over.body.detail).toContain("at most 3 codes an hour");
    const wait = Number(over.headers.get("retry-after"));
    expect(wait).toBeGreaterThan(3500);
    expect(wait).toBeLessThanOrEqual(3600);
    expect((await send(neighbour, await userOf(neighbour, 3), "sms")).status).toBe(202);
    // an hour on, the client may send again
    t.app.services.now = () => new Date(Date.now() + 3601_000);
    expect((await send(key, b, "email")).status).toBe(202);
  });
});

describe("OTP configuration", () => {
  const base = { NODE_ENV: "test", DATA_DIR: "memory://" };
  it("reads SMTP_URL, SMS_WEBHOOK_URL and OTP_FROM, and refuses bad values naming the variable", () => {
    const config = loadConfig({ ...base, SMTP_URL: "smtp://mail.test:2525", SMS_WEBHOOK_URL: "https://sms.test/send", OTP_FROM: "Acme <otp@acme.test>" });
    expect(config).toMatchObject({ smtpUrl: "smtp://mail.test:2525", smsWebhookUrl: "https://sms.test/send", otpFrom: "Acme <otp@acme.test>" });
    expect(loadConfig(base)).toMatchObject({ smtpUrl: undefined, smsWebhookUrl: undefined, otpFrom: "no-reply@localhost" });
    expect(() => loadConfig({ ...base, SMTP_URL: "http://mail.test" })).toThrow(/^SMTP_URL must start with smtp: or smtps:/);
    expect(() => loadConfig({ ...base, SMS_WEBHOOK_URL: "not a url" })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, SMS_WEBHOOK_URL: "ftp://x" })).toThrow(/^SMS_WEBHOOK_URL/);
    expect(() => loadConfig({ ...base, OTP_FROM: "nobody" })).toThrow(/^OTP_FROM must be an email address/);
    expect(loadConfig(base).otpSendsPerClientPerHour).toBe(1000);
    expect(loadConfig({ ...base, OTP_SENDS_PER_CLIENT_PER_HOUR: "50" }).otpSendsPerClientPerHour).toBe(50);
    expect(() => loadConfig({ ...base, OTP_SENDS_PER_CLIENT_PER_HOUR: "0" })).toThrow(/^OTP_SENDS_PER_CLIENT_PER_HOUR must be an integer from 1/);
  });
});

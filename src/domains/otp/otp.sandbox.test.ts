import { Writable } from "node:stream";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSmtp } from "../../../test/helpers/smtp.js";
import { backends, startTestApp, type TestApp } from "../../../test/helpers/app.js";
import { startWebhookReceiver, type WebhookReceiver } from "../../../test/helpers/webhook-receiver.js";
import { SANDBOX_OTP } from "./otp.rules.js";

const { anyCode, undeliverable } = SANDBOX_OTP;
const codeIn = (text: string) => /\b(\d{6})\b/.exec(text)![1]!;
const VERIFY = `mutation($i: VerifyOtpInput!) { verifyOtp(input: $i) { userId channel verified } }`;
const CONFIRM = `mutation($i: ConfirmContactChangeInput!) { confirmContactChange(input: $i) { email phoneNumber pendingEmail pendingPhoneNumber } }`;
const TRIGGER = `mutation($i: TriggerOtpInput!) { triggerOtp(input: $i) { otpId } }`;

describe.each(backends)("the OTP sandbox's magic values on %s", (backend) => {
  let t: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let sms: WebhookReceiver;
  let sandbox: string, live: string;
  let offset = 0;
  const advance = (ms: number) => {
    offset += ms;
  };

  beforeAll(async () => {
    [smtp, sms] = await Promise.all([startSmtp(), startWebhookReceiver()]);
    // delivery configured, so the LIVE client sends for real and its failures are a provider's
    t = await startTestApp(backend, { SMTP_URL: smtp.url, SMS_WEBHOOK_URL: sms.url("/sms"), OTP_FROM: "otp@gateway.test" });
    t.app.services.now = () => new Date(Date.now() + offset);
    sandbox = (await t.createClient("Sandbox")).key;
    live = (await t.createClient("Live", undefined, "LIVE")).key;
  });
  afterAll(async () => {
    await t?.stop();
    await Promise.all([smtp?.stop(), sms?.close()]);
  });

  let n = 0;
  async function newUser(key: string, fields: Record<string, unknown> = {}) {
    n++;
    const body = { first_name: "Sand", last_name: "Box", email: `magic${n}@example.com`, phone_number: `+659124${String(1000 + n)}`, ...fields };
    const res = await t.rest("POST", "/v2/users", { key, body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.user_id as string;
  }
  const trigger = (key: string, userId: string, channel: "EMAIL" | "SMS") =>
    t.rest("POST", `/v2/users/trigger/otp/${channel.toLowerCase()}`, { key, body: { user_id: userId } });
  const verify = (key: string, body: Record<string, unknown>, method = "POST") => t.rest(method, "/v2/users/verify/otp", { key, body });
  async function sandboxCode(userId: string, channel: "EMAIL" | "SMS") {
    const res = await t.rest("GET", `/v2/sandbox/messages?user_id=${userId}&channel=${channel}`, { key: sandbox });
    return res.body.data[0].code as string;
  }
  const statuses = async (userId: string) =>
    (await t.db.otpCode.findMany({ where: { userId }, orderBy: { createdAt: "asc" }, select: { status: true } })).map((r) => r.status);
  /** A user of `key` with a code just sent by each channel, after the cooldown of any earlier send */
  async function withCodes(key: string) {
    const userId = await newUser(key);
    advance(61_000);
    for (const channel of ["EMAIL", "SMS"] as const) expect((await trigger(key, userId, channel)).status).toBe(202);
    return userId;
  }
  /** A LIVE user with codes just sent, neither of them 000000 itself (one code in a million is) */
  async function liveUser() {
    for (;;) {
      const userId = await withCodes(live);
      const codes = { SMS: codeIn(JSON.parse(sms.at("/sms").at(-1)!.body).body), EMAIL: codeIn(smtp.received.at(-1)!.text!) };
      if (codes.SMS !== anyCode && codes.EMAIL !== anyCode) return { userId, codes };
    }
  }

  describe(`OTP code ${anyCode}`, () => {
    it("verifies a sandbox user's email over REST and phone over GraphQL, with the code's effects", async () => {
      const userId = await withCodes(sandbox);
      const ok = await verify(sandbox, { user_id: userId, channel: "EMAIL", code: anyCode });
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ user_id: userId, channel: "EMAIL", verified: true });
      const gql = await t.gql(sandbox, VERIFY, { i: { userId, channel: "SMS", code: anyCode } });
      expect(gql.errors).toBeUndefined();
      expect(gql.data.verifyOtp).toEqual({ userId, channel: "SMS", verified: true });

      expect((await t.rest("GET", `/v2/users/${userId}`, { key: sandbox })).body).toMatchObject({ email_verified: true, phone_verified: true });
      expect(await statuses(userId)).toEqual(["USED", "USED"]);
      const audited = await t.db.auditEntry.findMany({ where: { targetId: userId, action: "user.contact.verified" } });
      expect(audited.map((a) => a.changedFields).sort()).toEqual([["emailVerified"], ["phoneVerified"]]);
      // it spent the code as the code would: neither it nor the real one verifies again
      expect((await verify(sandbox, { user_id: userId, channel: "EMAIL", code: anyCode })).body.code).toBe("OTP_NOT_FOUND");
      expect((await verify(sandbox, { user_id: userId, channel: "EMAIL", code: await sandboxCode(userId, "EMAIL") })).body.code).toBe("OTP_NOT_FOUND");
    });

    it("confirms a sandbox user's pending email (PUT) and phone (GraphQL confirmContactChange)", async () => {
      const userId = await withCodes(sandbox);
      for (const channel of ["EMAIL", "SMS"] as const) expect((await verify(sandbox, { user_id: userId, channel, code: anyCode })).status).toBe(200);
      const email = `moved${n}@example.com`;
      const phone = `+659125${String(1000 + n)}`;
      const changed = await t.rest("PUT", `/v2/users/${userId}`, { key: sandbox, body: { email, phone_number: phone } });
      expect(changed.body).toMatchObject({ pending_email: email, pending_phone_number: phone });
      advance(61_000);
      for (const channel of ["EMAIL", "SMS"] as const) expect((await trigger(sandbox, userId, channel)).status).toBe(202);

      const put = await verify(sandbox, { user_id: userId, channel: "EMAIL", code: anyCode }, "PUT");
      expect(put.status).toBe(200);
      expect(put.body).toMatchObject({ email, pending_email: null, email_verified: true });
      const gql = await t.gql(sandbox, CONFIRM, { i: { userId, channel: "SMS", code: anyCode } });
      expect(gql.errors).toBeUndefined();
      expect(gql.data.confirmContactChange).toEqual({ email, phoneNumber: phone, pendingEmail: null, pendingPhoneNumber: null });
      expect(await t.db.auditEntry.count({ where: { targetId: userId, action: "user.contact.confirmed" } })).toBe(2);
    });

    it("leaves the real code working on a sandbox user, over REST and GraphQL", async () => {
      const userId = await withCodes(sandbox);
      expect((await verify(sandbox, { user_id: userId, channel: "EMAIL", code: await sandboxCode(userId, "EMAIL") })).status).toBe(200);
      const gql = await t.gql(sandbox, VERIFY, { i: { userId, channel: "SMS", code: await sandboxCode(userId, "SMS") } });
      expect(gql.data.verifyOtp).toMatchObject({ verified: true });
    });

    it("answers as today where there is no code to stand in for: none, expired, blocked", async () => {
      const refused = async (userId: string, channel: string, status: number, code: string) => {
        const res = await verify(sandbox, { user_id: userId, channel, code: anyCode });
        expect(res.status).toBe(status);
        expect(res.body.code).toBe(code);
        expect((await t.gql(sandbox, VERIFY, { i: { userId, channel, code: anyCode } })).errors![0].extensions.code).toBe(code);
      };
      await refused(await newUser(sandbox), "EMAIL", 404, "OTP_NOT_FOUND");

      const expired = await withCodes(sandbox);
      advance(10 * 60_000 + 1000);
      await refused(expired, "EMAIL", 422, "OTP_EXPIRED");
      expect(await statuses(expired)).toEqual(["ACTIVE", "ACTIVE"]);

      const blocked = await withCodes(sandbox);
      const real = await sandboxCode(blocked, "SMS");
      const wrong = real === "111111" ? "222222" : "111111";
      for (let i = 0; i < 5; i++) await verify(sandbox, { user_id: blocked, channel: "SMS", code: wrong });
      await refused(blocked, "SMS", 429, "OTP_ATTEMPTS_EXCEEDED");
    });

    it("is a wrong code on a LIVE client: OTP_INVALID with an attempt counted, over REST and GraphQL", async () => {
      const { userId, codes } = await liveUser();

      const rest = await verify(live, { user_id: userId, channel: "EMAIL", code: anyCode });
      expect(rest.status).toBe(422);
      expect(rest.body).toMatchObject({ code: "OTP_INVALID", attempts_remaining: 4 });
      const gql = await t.gql(live, VERIFY, { i: { userId, channel: "EMAIL", code: anyCode } });
      expect(gql.errors![0].extensions).toMatchObject({ code: "OTP_INVALID", attemptsRemaining: 3 });
      const phone = await t.gql(live, VERIFY, { i: { userId, channel: "SMS", code: anyCode } });
      expect(phone.errors![0].extensions).toMatchObject({ code: "OTP_INVALID", attemptsRemaining: 4 });
      expect(await t.db.otpCode.findMany({ where: { userId }, select: { channel: true, attempts: true }, orderBy: { channel: "asc" } })).toEqual([
        { channel: "EMAIL", attempts: 2 },
        { channel: "SMS", attempts: 1 },
      ]);
      expect((await verify(live, { user_id: userId, channel: "EMAIL", code: codes.EMAIL })).status).toBe(200);
    });
  });

  describe.each([
    { channel: "SMS" as const, field: "phone_number", to: undeliverable.SMS },
    { channel: "EMAIL" as const, field: "email", to: undeliverable.EMAIL },
  ])("$channel to $to", ({ channel, field, to }) => {
    it("fails on a sandbox client as a provider failure does: 502 DELIVERY_FAILED, the code FAILED, nothing in the outbox, no cooldown", async () => {
      const userId = await newUser(sandbox, { [field]: to });
      advance(61_000);
      let logged = "";
      const logger = t.app.services.logger;
      const sink = new Writable({
        write(chunk, _enc, done) {
          logged += chunk;
          done();
        },
      });
      t.app.services.logger = pino({ level: "debug" }, sink);
      const failed = await trigger(sandbox, userId, channel).finally(() => {
        t.app.services.logger = logger;
      });
      expect(failed.status).toBe(502);
      expect(failed.body.code).toBe("DELIVERY_FAILED");
      // the service's own failure path ran: its log line, with the reason only
      expect(logged).toContain("otp delivery failed");
      expect(logged).toContain("SANDBOX_UNDELIVERABLE");
      expect(logged).not.toContain(to);

      // a failed delivery sent nothing, so it holds back no retry (429 would be the cooldown)
      const gql = await t.gql(sandbox, TRIGGER, { i: { userId, channel } });
      expect(gql.errors![0].extensions.code).toBe("DELIVERY_FAILED");
      expect(await statuses(userId)).toEqual(["FAILED", "FAILED"]);
      expect((await t.rest("GET", `/v2/sandbox/messages?user_id=${userId}`, { key: sandbox })).body.data).toEqual([]);
      expect((await verify(sandbox, { user_id: userId, channel, code: anyCode })).body.code).toBe("OTP_NOT_FOUND");

      // a deliverable contact gets its code at once
      const fresh = channel === "SMS" ? `+659126${String(1000 + n)}` : `fresh${n}@example.com`;
      expect((await t.rest("PUT", `/v2/users/${userId}`, { key: sandbox, body: { [field]: fresh } })).status).toBe(200);
      expect((await trigger(sandbox, userId, channel)).status).toBe(202);
      expect((await t.rest("GET", `/v2/sandbox/messages?user_id=${userId}`, { key: sandbox })).body.data).toMatchObject([{ to: fresh }]);
    });

    it("is sent as any other destination on a LIVE client, over REST and GraphQL", async () => {
      const userId = await newUser(live, { [field]: to });
      const delivered = () =>
        channel === "SMS"
          ? sms.at("/sms").filter((m) => JSON.parse(m.body).to === to).length
          : smtp.received.filter((m) => m.to && !Array.isArray(m.to) && m.to.text === to).length;
      const before = delivered();
      advance(61_000);
      expect((await trigger(live, userId, channel)).status).toBe(202);
      advance(61_000);
      const gql = await t.gql(live, TRIGGER, { i: { userId, channel } });
      expect(gql.errors).toBeUndefined();
      expect(delivered() - before).toBe(2);
      expect(await statuses(userId)).toEqual(["VOIDED", "ACTIVE"]);
    });
  });

  it("matches the undeliverable email as emails are compared, case aside", async () => {
    const { key } = await t.createClient("Sandbox, shouting");
    const userId = await newUser(key, { email: undeliverable.EMAIL.toUpperCase() });
    advance(61_000);
    expect((await trigger(key, userId, "EMAIL")).body.code).toBe("DELIVERY_FAILED");
  });
});

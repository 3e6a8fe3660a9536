import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { thrown } from "../../../test/helpers/refusal.js";
import {
  checkClientSendLimit,
  checkCodeFormat,
  checkTriggerLimits,
  destinationKeyInput,
  HOUR_MS,
  MAX_ATTEMPTS,
  macInput,
  maskDestination,
  messageOf,
  newCode,
  OTP_TTL_MS,
  RESEND_COOLDOWN_MS,
  SANDBOX_OTP,
  sameContact,
  standsInForCode,
  undeliverableInSandbox,
} from "./otp.rules.js";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const now = new Date("2026-03-01T12:00:00.000Z");
const ago = (ms: number) => new Date(now.getTime() - ms);

describe("the numbers the OTP rules use", () => {
  it("a code lives 10 minutes, takes 5 attempts, and a new one may be sent a minute after the last", () => {
    expect(OTP_TTL_MS).toBe(10 * MINUTE);
    expect(MAX_ATTEMPTS).toBe(5);
    expect(RESEND_COOLDOWN_MS).toBe(MINUTE);
    expect(HOUR_MS).toBe(60 * MINUTE);
  });
});

describe("newCode and checkCodeFormat: a code is six digits", () => {
  it("every new code is six digits, leading zeros kept", () => {
    for (let i = 0; i < 500; i++) expect(newCode()).toMatch(/^\d{6}$/);
  });

  it("new codes are not all the same", () => {
    expect(new Set(Array.from({ length: 20 }, newCode)).size).toBeGreaterThan(1);
  });

  it("accepts any six ASCII digits (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 999_999 }), (n) => {
        expect(() => checkCodeFormat(String(n).padStart(6, "0"))).not.toThrow();
      }),
    );
  });

  it.each(["12345", "1234567", "12345a", " 123456", "123456 ", "12 3456", "１２３４５６", "", "-12345"])("refuses %j, naming the code field", (code) => {
    expect(thrown(() => checkCodeFormat(code))).toMatchObject({ code: "VALIDATION_FAILED", fields: [{ field: "code", code: "invalid_format" }] });
  });

  it("the sandbox's stand-in code passes the format check, so a sandbox caller can type it", () => {
    expect(() => checkCodeFormat(SANDBOX_OTP.anyCode)).not.toThrow();
  });
});

describe("macInput: a code is bound to its one issue", () => {
  it("the same code of two issues hashes differently", () => {
    expect(macInput("otp-1", "123456")).not.toBe(macInput("otp-2", "123456"));
    expect(macInput("otp-1", "123456")).not.toBe(macInput("otp-1", "123457"));
    expect(macInput("otp-1", "123456")).toBe(macInput("otp-1", "123456"));
  });
});

describe("checkTriggerLimits: one code a minute and five an hour per user and channel", () => {
  it("allows the first code", () => {
    expect(thrown(() => checkTriggerLimits([], now))).toBeUndefined();
  });

  it("refuses a second code within a minute, saying how many seconds to wait", () => {
    const error = thrown(() => checkTriggerLimits([ago(20 * SECOND)], now));
    expect(error).toMatchObject({ code: "RATE_LIMITED", meta: { retryAfter: 40 } });
    expect(error?.message).toBe("One code every 60 s may be sent to this user and channel; retry in 40 s.");
  });

  it("allows a code exactly a minute after the last", () => {
    expect(thrown(() => checkTriggerLimits([ago(MINUTE)], now))).toBeUndefined();
  });

  it("rounds a wait up, and never asks to wait less than a second", () => {
    expect(thrown(() => checkTriggerLimits([ago(MINUTE - 1)], now))?.meta?.retryAfter).toBe(1);
    expect(thrown(() => checkTriggerLimits([ago(30 * SECOND + 500)], now))?.meta?.retryAfter).toBe(30);
  });

  it("allows a fifth code in the hour, refuses a sixth until the oldest is an hour old", () => {
    const four = [50, 40, 30, 20].map((m) => ago(m * MINUTE));
    expect(thrown(() => checkTriggerLimits(four, now))).toBeUndefined();
    const five = [...four, ago(10 * MINUTE)];
    const error = thrown(() => checkTriggerLimits(five, now));
    expect(error).toMatchObject({ code: "RATE_LIMITED", meta: { retryAfter: 10 * 60 } });
    expect(error?.message).toMatch(/^At most 5 codes an hour may be sent to this user and channel; retry in 600 s\.$/);
  });

  it("counts only the last hour's codes", () => {
    const old = [61, 62, 63, 64, 65, 90].map((m) => ago(m * MINUTE));
    expect(thrown(() => checkTriggerLimits(old, now))).toBeUndefined();
    expect(thrown(() => checkTriggerLimits([...old, ago(HOUR_MS)], now))).toBeUndefined();
  });

  it("reads the codes in time order, whatever order they come in", () => {
    const five = [10, 50, 30, 40, 20].map((m) => ago(m * MINUTE));
    expect(thrown(() => checkTriggerLimits(five, now))?.meta?.retryAfter).toBe(10 * 60);
  });

  it("when both limits bite, asks to wait for the later of the two", () => {
    const five = [59, 58, 57, 56].map((m) => ago(m * MINUTE)).concat(ago(30 * SECOND));
    // the cap frees up in 60 s, the cooldown in 30 s
    expect(thrown(() => checkTriggerLimits(five, now))?.meta?.retryAfter).toBe(60);
  });

  it("names whose limit it is", () => {
    expect(thrown(() => checkTriggerLimits([ago(SECOND)], now, "this phone number"))?.message).toMatch(/ may be sent to this phone number; /);
  });

  it("a refused trigger is allowed once its retryAfter has passed, and not a second before (property)", () => {
    const history = fc.array(fc.integer({ min: 0, max: HOUR_MS - 1 }), { maxLength: 12 });
    fc.assert(
      fc.property(history, (msAgo) => {
        const recent = msAgo.map(ago);
        const error = thrown(() => checkTriggerLimits(recent, now));
        if (!error) return;
        const retryAfter = error.meta!.retryAfter!;
        expect(retryAfter).toBeGreaterThanOrEqual(1);
        expect(retryAfter).toBeLessThanOrEqual(HOUR_MS / SECOND);
        expect(thrown(() => checkTriggerLimits(recent, new Date(now.getTime() + retryAfter * SECOND)))).toBeUndefined();
        if (retryAfter > 1)
          expect(thrown(() => checkTriggerLimits(recent, new Date(now.getTime() + (retryAfter - 1) * SECOND - 1)))?.code).toBe("RATE_LIMITED");
      }),
    );
  });
});

describe("checkClientSendLimit: a client's sends an hour are capped", () => {
  it("allows sends while the client is under its cap", () => {
    expect(thrown(() => checkClientSendLimit(null, now, 100))).toBeUndefined();
  });

  it("refuses while the send that filled the cap is less than an hour old, until it is", () => {
    const error = thrown(() => checkClientSendLimit(ago(59 * MINUTE), now, 100));
    expect(error).toMatchObject({ code: "RATE_LIMITED", meta: { retryAfter: 60 } });
    expect(error?.message).toBe("This client may send at most 100 codes an hour; retry in 60 s.");
  });

  it("allows sends again once the send that filled the cap is an hour old", () => {
    expect(thrown(() => checkClientSendLimit(ago(HOUR_MS), now, 100))).toBeUndefined();
    expect(thrown(() => checkClientSendLimit(ago(HOUR_MS - 1), now, 100))?.meta?.retryAfter).toBe(1);
  });
});

describe("destinationKeyInput and sameContact: a destination is compared as its channel compares it", () => {
  it("emails are one destination whatever their case", () => {
    expect(destinationKeyInput("EMAIL", "Ana.Cruz@Example.com")).toBe(destinationKeyInput("EMAIL", "ana.cruz@example.com"));
    expect(sameContact("EMAIL", "Ana.Cruz@Example.com", "ana.cruz@example.com")).toBe(true);
  });

  it("phone numbers are compared exactly", () => {
    expect(destinationKeyInput("SMS", "+6591234567")).toBe("SMS:+6591234567");
    expect(sameContact("SMS", "+6591234567", "+6591234567")).toBe(true);
    expect(sameContact("SMS", "+6591234567", "+6591234568")).toBe(false);
  });

  it("the same text on two channels is two destinations", () => {
    expect(destinationKeyInput("EMAIL", "x")).not.toBe(destinationKeyInput("SMS", "x"));
  });

  it("a missing contact is nobody's", () => {
    expect(sameContact("EMAIL", null, null)).toBe(false);
    expect(sameContact("SMS", "+6591234567", null)).toBe(false);
    expect(sameContact("EMAIL", null, "a@example.com")).toBe(false);
  });

  it("destinations that compare the same share one key (property)", () => {
    fc.assert(
      fc.property(fc.emailAddress(), (email) => {
        expect(sameContact("EMAIL", email, email.toUpperCase())).toBe(true);
        expect(destinationKeyInput("EMAIL", email)).toBe(destinationKeyInput("EMAIL", email.toUpperCase()));
      }),
    );
  });
});

describe("maskDestination: where a code went, without giving the address away", () => {
  it("keeps an email's first and last local characters and its domain", () => {
    expect(maskDestination("EMAIL", "ana.cruz@example.com")).toBe("a******z@example.com");
  });

  it("hides all but the first character of a short local part", () => {
    expect(maskDestination("EMAIL", "ab@example.com")).toBe("a*@example.com");
    expect(maskDestination("EMAIL", "a@example.com")).toBe("a*@example.com");
  });

  it("keeps a phone number's first and last three characters", () => {
    expect(maskDestination("SMS", "+6591234567")).toBe("+65*****567");
  });

  it("never shows the hidden part of an email (property)", () => {
    fc.assert(
      fc.property(fc.emailAddress(), (email) => {
        const at = email.lastIndexOf("@");
        const masked = maskDestination("EMAIL", email);
        expect(masked.endsWith(email.slice(at))).toBe(true);
        expect(masked[0]).toBe(email[0]);
        if (at > 2) expect(masked.slice(1, at - 1)).toBe("*".repeat(at - 2));
      }),
    );
  });

  it("keeps a phone number's length and hides its middle (property)", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\+[1-9]\d{7,14}$/), (phone) => {
        const masked = maskDestination("SMS", phone);
        expect(masked).toHaveLength(phone.length);
        expect(masked.slice(3, -3)).toMatch(/^\*+$/);
      }),
    );
  });
});

describe("the sandbox's OTP inputs hold for SANDBOX keys only", () => {
  it("000000 stands in for the code on a sandbox key", () => {
    expect(standsInForCode("SANDBOX", "000000")).toBe(true);
  });

  it("000000 is a wrong code like any other on a LIVE key, or with no key", () => {
    expect(standsInForCode("LIVE", "000000")).toBe(false);
    expect(standsInForCode(null, "000000")).toBe(false);
  });

  it("no other code stands in", () => {
    for (const code of ["123456", "00000", "0000000", " 000000"]) expect(standsInForCode("SANDBOX", code), code).toBe(false);
  });

  it("the undeliverable destinations are recognised as their channel compares them", () => {
    expect(undeliverableInSandbox("EMAIL", "FAIL@Sandbox.test")).toBe(true);
    expect(undeliverableInSandbox("SMS", "+15005550001")).toBe(true);
    expect(undeliverableInSandbox("SMS", "+15005550002")).toBe(false);
    expect(undeliverableInSandbox("EMAIL", "ana@example.com")).toBe(false);
  });

  it("an undeliverable destination of one channel is deliverable on the other", () => {
    expect(undeliverableInSandbox("SMS", SANDBOX_OTP.undeliverable.EMAIL)).toBe(false);
    expect(undeliverableInSandbox("EMAIL", SANDBOX_OTP.undeliverable.SMS)).toBe(false);
  });
});

describe("messageOf: the message that carries a code", () => {
  it("names the code and the 10 minutes it lasts", () => {
    for (const channel of ["EMAIL", "SMS"] as const) {
      const { subject, body } = messageOf(channel, "042917");
      expect(subject).toBe("Your verification code");
      expect(body).toContain("042917");
      expect(body).toContain("expires in 10 minutes");
    }
  });

  it("an email tells a person who did not ask for it to ignore it; an SMS stays short", () => {
    expect(messageOf("EMAIL", "042917").body).toContain("If you did not ask for it, ignore this email.");
    expect(messageOf("SMS", "042917").body).not.toContain("ignore");
  });

  it("an SMS fits one 160-character segment for every code (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 999_999 }), (n) => {
        expect(messageOf("SMS", String(n).padStart(6, "0")).body.length).toBeLessThanOrEqual(160);
      }),
    );
  });
});

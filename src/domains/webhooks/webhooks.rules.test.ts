import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { thrown } from "../../../test/helpers/refusal.js";
import {
  checkEventType,
  checkEventTypes,
  DEFAULT_RETRY_SCHEDULE_MS,
  DEFAULT_TEST_EVENT_TYPE,
  failingSince,
  newSecret,
  nextRetryAt,
  sandboxFailingAttempts,
  shouldDisable,
  subscribes,
} from "./webhooks.rules.js";

/** Every public event type, as the refusal of an unknown one lists them (so the list is the rules' own). */
const KNOWN = (() => {
  const message = thrown(() => checkEventType("no.such.type"))!.message;
  return message.slice(message.indexOf("use one of ") + "use one of ".length, -1).split(", ");
})();

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const t0 = new Date("2026-03-01T00:00:00.000Z");
const at = (ms: number) => new Date(t0.getTime() + ms);

describe("checkEventTypes: what an endpoint subscribes to", () => {
  it("offers at least the user, check and review events", () => {
    expect(KNOWN).toEqual(expect.arrayContaining(["user.status.updated", "check.kyc.updated", "review.decided"]));
  });

  it("accepts every public event type", () => {
    expect(checkEventTypes(KNOWN)).toEqual(KNOWN);
  });

  it("keeps each type once, trimmed, in the order first given", () => {
    expect(checkEventTypes([" check.kyc.updated", "user.status.updated", "check.kyc.updated "])).toEqual(["check.kyc.updated", "user.status.updated"]);
  });

  it('"*" is every type, now and later, and swallows any types named beside it', () => {
    expect(checkEventTypes(["*"])).toEqual(["*"]);
    expect(checkEventTypes(["check.kyc.updated", " * "])).toEqual(["*"]);
  });

  it("needs at least one type", () => {
    expect(thrown(() => checkEventTypes([]))).toMatchObject({ code: "VALIDATION_FAILED", fields: [{ field: "eventTypes", code: "required" }] });
  });

  it("refuses unknown types, naming each one and the field", () => {
    const error = thrown(() => checkEventTypes(["user.deleted", "check.kyc.updated", "", "*.updated"], "event_types"));
    expect(error).toMatchObject({ code: "VALIDATION_FAILED", fields: [{ field: "event_types", code: "invalid_choice" }] });
    expect(error?.fields?.[0]?.message).toMatch(/^Unknown event type "user.deleted", "", "\*.updated": use /);
  });

  it("an unknown type is refused even beside *", () => {
    expect(thrown(() => checkEventTypes(["*", "user.deleted"]))?.code).toBe("VALIDATION_FAILED");
  });
});

describe("checkEventType: the one type of a test event", () => {
  it("takes each public type, trimmed", () => {
    for (const type of KNOWN) expect(checkEventType(` ${type} `)).toBe(type);
  });

  it("the default test event is itself a public type", () => {
    expect(KNOWN).toContain(DEFAULT_TEST_EVENT_TYPE);
    expect(checkEventType(DEFAULT_TEST_EVENT_TYPE)).toBe(DEFAULT_TEST_EVENT_TYPE);
  });

  it('refuses "*" and unknown types, naming the field', () => {
    for (const type of ["*", "user.deleted", "", "USER.STATUS.UPDATED"])
      expect(
        thrown(() => checkEventType(type)),
        type,
      ).toMatchObject({ code: "VALIDATION_FAILED", fields: [{ field: "type", code: "invalid_choice" }] });
    expect(thrown(() => checkEventType("x", "event_type"))?.fields?.[0]?.field).toBe("event_type");
  });
});

describe("subscribes: which endpoints hear an event", () => {
  it("an endpoint hears the types it named, and no other", () => {
    expect(subscribes(["check.kyc.updated"], "check.kyc.updated")).toBe(true);
    expect(subscribes(["check.kyc.updated"], "user.status.updated")).toBe(false);
    expect(subscribes([], "user.status.updated")).toBe(false);
  });

  it('an endpoint subscribed to "*" hears every type, even one added later', () => {
    for (const type of [...KNOWN, "some.future.event"]) expect(subscribes(["*"], type)).toBe(true);
  });
});

describe("newSecret: a Standard Webhooks signing secret", () => {
  it("is whsec_ and the base64 of 32 bytes", () => {
    const secret = newSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice("whsec_".length), "base64")).toHaveLength(32);
  });

  it("is new each time", () => {
    const secrets = new Set(Array.from({ length: 50 }, newSecret));
    expect(secrets.size).toBe(50);
  });
});

describe("nextRetryAt: the retry schedule after a failed attempt", () => {
  it("waits 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h after the 1st to 7th failure", () => {
    const waits = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];
    waits.forEach((wait, i) => {
      expect(nextRetryAt(i + 1, t0)).toEqual(at(wait));
    });
  });

  it("gives up after the 7th failure", () => {
    expect(nextRetryAt(8, t0)).toBeNull();
    expect(nextRetryAt(100, t0)).toBeNull();
  });

  it("never waits less after a later failure than after an earlier one", () => {
    for (let i = 1; i < DEFAULT_RETRY_SCHEDULE_MS.length; i++) expect(DEFAULT_RETRY_SCHEDULE_MS[i]).toBeGreaterThanOrEqual(DEFAULT_RETRY_SCHEDULE_MS[i - 1]!);
  });

  it("follows a configured schedule, counting attempts from 1", () => {
    expect(nextRetryAt(1, t0, [10, 20])).toEqual(at(10));
    expect(nextRetryAt(2, t0, [10, 20])).toEqual(at(20));
    expect(nextRetryAt(3, t0, [10, 20])).toBeNull();
    expect(nextRetryAt(1, t0, [])).toBeNull();
  });

  it("has no retry before the first attempt", () => {
    expect(nextRetryAt(0, t0)).toBeNull();
  });
});

describe("failingSince and shouldDisable: an endpoint that keeps failing is disabled after 5 days", () => {
  const fail = (ms: number) => ({ attemptedAt: at(ms), succeeded: false });
  const ok = (ms: number) => ({ attemptedAt: at(ms), succeeded: true });

  it("an endpoint with no attempts, or whose latest attempt succeeded, is not failing", () => {
    expect(failingSince([])).toBeNull();
    expect(failingSince([ok(0)])).toBeNull();
    expect(failingSince([fail(0), fail(1), ok(2)])).toBeNull();
  });

  it("is failing since the first failure after its last success", () => {
    expect(failingSince([fail(0), ok(DAY), fail(2 * DAY), fail(3 * DAY)])).toEqual(at(2 * DAY));
    expect(failingSince([fail(0), fail(DAY)])).toEqual(at(0));
  });

  it("reads attempts in time order, whatever order they come in", () => {
    expect(failingSince([fail(3 * DAY), ok(DAY), fail(2 * DAY), fail(0)])).toEqual(at(2 * DAY));
    expect(failingSince([ok(2 * DAY), fail(3 * DAY), fail(0)])).toEqual(at(3 * DAY));
  });

  it("the answer does not depend on the order of the attempts (property)", () => {
    const attempts = fc.uniqueArray(fc.record({ ms: fc.integer({ min: 0, max: 30 * DAY }), succeeded: fc.boolean() }), { selector: (a) => a.ms });
    fc.assert(
      fc.property(
        attempts.chain((list) => fc.tuple(fc.constant(list), fc.shuffledSubarray(list, { minLength: list.length, maxLength: list.length }))),
        ([list, shuffled]) => {
          const rows = list.map((a) => ({ attemptedAt: at(a.ms), succeeded: a.succeeded }));
          const expected = failingSince(rows);
          expect(failingSince(shuffled.map((a) => ({ attemptedAt: at(a.ms), succeeded: a.succeeded })))).toEqual(expected);
          const sorted = [...list].sort((a, b) => a.ms - b.ms);
          const last = sorted.at(-1);
          if (!last || last.succeeded) expect(expected).toBeNull();
          else {
            const lastSuccess = sorted.findLast((a) => a.succeeded);
            expect(expected).toEqual(at(sorted.find((a) => !a.succeeded && (!lastSuccess || a.ms > lastSuccess.ms))!.ms));
          }
        },
      ),
    );
  });

  it("disables at 5 days of failing, not a millisecond before", () => {
    expect(shouldDisable(t0, at(5 * DAY - 1))).toBe(false);
    expect(shouldDisable(t0, at(5 * DAY))).toBe(true);
    expect(shouldDisable(t0, at(9 * DAY))).toBe(true);
  });

  it("never disables an endpoint that is not failing", () => {
    expect(shouldDisable(null, at(365 * DAY))).toBe(false);
  });

  it("takes another threshold when one is given", () => {
    expect(shouldDisable(t0, at(HOUR), HOUR)).toBe(true);
    expect(shouldDisable(t0, at(HOUR - 1), HOUR)).toBe(false);
  });
});

describe("sandboxFailingAttempts: a sandbox endpoint ending /sandbox-fail-3 has its first three attempts fail", () => {
  it.each([
    "https://hooks.example/acme/sandbox-fail-3",
    "https://hooks.example/sandbox-fail-3",
    "http://127.0.0.1:9/Sandbox-Fail-3?from=test",
    "https://hooks.example/a/SANDBOX-FAIL-3#frag",
  ])("fails 3 attempts for a SANDBOX endpoint at %s", (url) => {
    expect(sandboxFailingAttempts("SANDBOX", url)).toBe(3);
  });

  it("never fails attempts for a LIVE endpoint, whatever its path", () => {
    expect(sandboxFailingAttempts("LIVE", "https://hooks.example/acme/sandbox-fail-3")).toBe(0);
  });

  it.each([
    "https://hooks.example/acme/events",
    "https://hooks.example/sandbox-fail-3/",
    "https://hooks.example/sandbox-fail-30",
    "https://hooks.example/sandbox-fail-3/more",
    "https://hooks.example/x?path=/sandbox-fail-3",
    "https://hooks.example/x#/sandbox-fail-3",
    "https://sandbox-fail-3.example/",
    "not a url /sandbox-fail-3",
  ])("sends every attempt for a SANDBOX endpoint at %s", (url) => {
    expect(sandboxFailingAttempts("SANDBOX", url)).toBe(0);
  });
});

/**
 * Class 8: OTP pumping. Twenty users of one client share a phone number (numbers need not be
 * unique) and an SMS code is asked for each within seconds. The limit holds per destination: past
 * its cap the answers are 429 RATE_LIMITED with Retry-After, and no more codes reach that number.
 */
import { describe, expect, it } from "vitest";
import { pool } from "./helpers/attacks.js";
import { useService } from "./helpers/service.js";

const service = useService();
const PHONE = "+6591234567";
/** the per-user cap (otp.rules.ts MAX_TRIGGERS_PER_HOUR), which a destination should not exceed either */
const PER_DESTINATION_CAP = 5;

describe("OTP pumping", () => {
  it("SMS codes for 20 users sharing one number: after the per-destination cap, 429 RATE_LIMITED with Retry-After; alive", async () => {
    const s = await service();
    const users = await s.guard(
      "20 users",
      pool(20, 4, () => s.createUser({ phone_number: PHONE })),
      60_000,
    );
    const started = Date.now();
    const answers = [];
    for (const userId of users) answers.push(await s.call("POST", "/v2/users/trigger/otp/sms", { body: { user_id: userId } }));
    const sent = answers.filter((a) => a.status === 202).length;
    const outbox = await s.call("GET", "/v2/sandbox/messages?channel=SMS&records_per_page=100");
    const toPhone = (outbox.body?.data ?? []).filter((m: { to?: string }) => m.to === PHONE).length;
    console.log(
      `20 SMS triggers to one number in ${Date.now() - started} ms: ${JSON.stringify(answers.map((a) => a.status))}; ${toPhone} messages in the sandbox outbox`,
    );
    await s.alive();
    expect(sent, "codes sent").toBeGreaterThan(0);
    expect(sent, "codes sent to one number").toBeLessThanOrEqual(PER_DESTINATION_CAP);
    const wrong = answers.filter((a) => a.status !== 202 && !(a.status === 429 && a.body?.code === "RATE_LIMITED" && a.headers.get("retry-after")));
    expect(
      wrong.map((a) => `${a.status} ${a.text.slice(0, 200)}`),
      "refusals other than 429 RATE_LIMITED with Retry-After",
    ).toEqual([]);
    expect(toPhone, "messages to the number in the sandbox outbox").toBe(sent);
  });
});

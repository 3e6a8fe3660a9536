/** OTP rules: pure functions and the numbers they use; no I/O. */
import { randomInt } from "node:crypto";
import { DomainError, invalid } from "../../lib/errors.js";
import { SANDBOX_INPUTS } from "../../kernel/sandbox-inputs.js";

/** The ways a code reaches a person; declared here, the domain's leaf, so the sender can use the rules without an import circle. */
export type Channel = "EMAIL" | "SMS";

export const OTP_TTL_MS = 10 * 60_000;
export const MAX_ATTEMPTS = 5;
export const RESEND_COOLDOWN_MS = 60_000;
const MAX_TRIGGERS_PER_HOUR = 5;
export const HOUR_MS = 60 * 60_000;

/** Six digits from the CSPRNG, leading zeros kept. */
export const newCode = () => String(randomInt(0, 1_000_000)).padStart(6, "0");

/** What the HMAC covers: the row id binds a code to its one issue. */
export const macInput = (otpId: string, code: string) => `${otpId}:${code}`;

export function checkCodeFormat(code: string) {
  if (!/^\d{6}$/.test(code)) throw invalid([{ field: "code", code: "invalid_format", message: "code must be the 6 digits that were sent." }]);
}

/**
 * A trigger inside the cooldown of the last one, or over the hourly cap, is refused with the number
 * of seconds until the next one is allowed. `recent`: the triggers of the last hour for `whose`
 * (the user and channel, or the destination, whichever user record asks).
 */
export function checkTriggerLimits(recent: Date[], now: Date, whose = "this user and channel") {
  const t = now.getTime();
  const sorted = recent
    .map((d) => d.getTime())
    .filter((x) => x > t - HOUR_MS)
    .sort((a, b) => a - b);
  const waits: number[] = [];
  const last = sorted.at(-1);
  if (last !== undefined && t - last < RESEND_COOLDOWN_MS) waits.push(last + RESEND_COOLDOWN_MS - t);
  if (sorted.length >= MAX_TRIGGERS_PER_HOUR) waits.push(sorted[sorted.length - MAX_TRIGGERS_PER_HOUR] + HOUR_MS - t);
  if (!waits.length) return;
  const why = sorted.length >= MAX_TRIGGERS_PER_HOUR ? `At most ${MAX_TRIGGERS_PER_HOUR} codes an hour` : `One code every ${RESEND_COOLDOWN_MS / 1000} s`;
  throw rateLimited(`${why} may be sent to ${whose}`, Math.max(...waits));
}

/**
 * A client's sends of the last hour, capped: `capReached` is the send that filled the cap (the
 * cap-th newest of the last hour), or null while the client is under it.
 */
export function checkClientSendLimit(capReached: Date | null, now: Date, cap: number) {
  if (!capReached || capReached.getTime() <= now.getTime() - HOUR_MS) return;
  throw rateLimited(`This client may send at most ${cap} codes an hour`, capReached.getTime() + HOUR_MS - now.getTime());
}

function rateLimited(what: string, waitMs: number) {
  const retryAfter = Math.max(1, Math.ceil(waitMs / 1000));
  return new DomainError("RATE_LIMITED", `${what}; retry in ${retryAfter} s.`, undefined, { retryAfter });
}

/** What a destination is counted by: the channel and the address as the channel compares it (sameContact). */
export const destinationKeyInput = (channel: Channel, to: string) => `${channel}:${channel === "EMAIL" ? to.toLowerCase() : to}`;

/** `ana.cruz@example.com` → `a*******z@example.com`; `+6591234567` → `+65*****567` */
export function maskDestination(channel: Channel, to: string) {
  if (channel === "EMAIL") {
    const at = to.lastIndexOf("@");
    const local = to.slice(0, at);
    const hidden = local.length <= 2 ? `${local[0]}*` : `${local[0]}${"*".repeat(local.length - 2)}${local.at(-1)}`;
    return `${hidden}${to.slice(at)}`;
  }
  return `${to.slice(0, 3)}${"*".repeat(Math.max(0, to.length - 6))}${to.slice(-3)}`;
}

/** Same contact? Emails compare case-insensitively (uniqueness does too). */
export const sameContact = (channel: Channel, a: string | null, b: string | null) =>
  a !== null && b !== null && (channel === "EMAIL" ? a.toLowerCase() === b.toLowerCase() : a === b);

/**
 * The sandbox's magic OTP values (src/kernel/sandbox-inputs.ts). They hold for SANDBOX keys only: on a LIVE key
 * `000000` is a wrong code like any other, and these destinations are sent to as any other.
 */
export const SANDBOX_OTP = {
  anyCode: SANDBOX_INPUTS.anyOtpCode,
  undeliverable: SANDBOX_INPUTS.undeliverable,
} as const satisfies { anyCode: string; undeliverable: Record<Channel, string> };

/** Does `code` pass as the code? Only a sandbox key's `000000`; the real code is checked by its HMAC. */
export const standsInForCode = (mode: "SANDBOX" | "LIVE" | null, code: string) => mode === "SANDBOX" && code === SANDBOX_OTP.anyCode;

/** A sandbox destination that no message reaches (compared as the channel compares contacts). */
export const undeliverableInSandbox = (channel: Channel, to: string) => sameContact(channel, to, SANDBOX_OTP.undeliverable[channel]);

export function messageOf(channel: Channel, code: string) {
  const minutes = OTP_TTL_MS / 60_000;
  return {
    subject: "Your verification code",
    body:
      channel === "EMAIL"
        ? `Your verification code is ${code}. It expires in ${minutes} minutes. If you did not ask for it, ignore this email.`
        : `Your verification code is ${code}. It expires in ${minutes} minutes.`,
  };
}

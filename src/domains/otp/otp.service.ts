/**
 * One-time codes: trigger, verify the current contact, confirm a pending change.
 * A code is stored only as an HMAC; the clock is `ctx.now` so tests move time instead of sleeping.
 */
import { randomUUID } from "node:crypto";
import type { RequestContext } from "../../context.js";
import { tenantOf } from "../../context.js";
import type { Write } from "../../platform/write.js";
import { safeEqual } from "../../lib/crypto.js";
import { DomainError, invalid } from "../../lib/errors.js";
import { isUuid } from "../../lib/ids.js";
import { inTurns } from "../../lib/in-turn.js";
import { userInWrite } from "../users/users.service.js";
import {
  type Channel,
  checkClientSendLimit,
  checkCodeFormat,
  checkTriggerLimits,
  destinationKeyInput,
  HOUR_MS,
  macInput,
  maskDestination,
  MAX_ATTEMPTS,
  messageOf,
  newCode,
  OTP_TTL_MS,
  RESEND_COOLDOWN_MS,
  sameContact,
  standsInForCode,
} from "./otp.rules.js";

export type TriggerInput = { userId: string; channel: Channel };
export type VerifyInput = { userId: string; channel: Channel; code: string };

/** one reservation of a client's sends at a time in this process (step 1 of triggerOtp) */
const reserveInTurn = inTurns();

const CONTACT_SELECT = { id: true, email: true, phoneNumber: true, pendingEmail: true, pendingPhoneNumber: true } as const;
type Contacts = { email: string | null; phoneNumber: string | null; pendingEmail: string | null; pendingPhoneNumber: string | null };
const current = (u: Contacts, channel: Channel) => (channel === "EMAIL" ? u.email : u.phoneNumber);
const pending = (u: Contacts, channel: Channel) => (channel === "EMAIL" ? u.pendingEmail : u.pendingPhoneNumber);
const noun = (channel: Channel) => (channel === "EMAIL" ? "email" : "phone number");
const hash = (ctx: RequestContext, otpId: string, code: string) => ctx.cipher.mac("otp", macInput(otpId, code));
const destinationKey = (ctx: RequestContext, channel: Channel, to: string) => ctx.cipher.mac("otp-destination", destinationKeyInput(channel, to));

export async function triggerOtp(ctx: RequestContext, { userId, channel }: TriggerInput) {
  const clientId = tenantOf(ctx);
  const mode = ctx.principal.mode!;
  const sender = ctx.delivery.senderFor(mode, channel);
  if (!sender)
    throw new DomainError(
      "DELIVERY_UNAVAILABLE",
      `${channel === "EMAIL" ? "Email" : "SMS"} delivery is not configured for live keys on this server; nothing was sent.`,
    );
  const now = ctx.now();
  const code = newCode();
  const otpId = randomUUID();
  // 1. reserve: the client's sends are taken one at a time (in turn in this process, an advisory lock
  //    across processes, then the user row), so concurrent triggers cannot all pass a limit, and a
  //    burst waits holding one connection; the code is SENDING (not usable) until its message has gone out
  const sends = `otp:${clientId}`;
  const reserved = await reserveInTurn(sends, () =>
    ctx.transact(ctx, async ({ tx, audit }) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${sends}, 0))`;
      const user = await userInWrite(tx, ctx, userId, { select: CONTACT_SELECT });
      await tx.$executeRaw`SELECT 1 FROM users WHERE id = ${user.id}::uuid FOR UPDATE`;
      const destination = pending(user, channel) ?? current(user, channel);
      if (!destination)
        throw new DomainError("VALIDATION_FAILED", `The user has no ${noun(channel)}; set one with PUT /v2/users/{user_id} first.`, [
          { field: "userId", code: "no_contact", message: `The user has no ${noun(channel)}.` },
        ]);
      const recent = await tx.otpCode.findMany({
        where: { userId: user.id, channel, createdAt: { gt: new Date(now.getTime() - HOUR_MS) }, status: { not: "FAILED" } },
        select: { createdAt: true },
      });
      checkTriggerLimits(
        recent.map((r) => r.createdAt),
        now,
      );
      const toKey = destinationKey(ctx, channel, destination);
      await checkSendLimits(tx, clientId, channel, toKey, now, ctx.delivery.sendsPerClientPerHour);
      const row = await tx.otpCode.create({
        data: {
          id: otpId,
          clientId,
          userId: user.id,
          channel,
          destination,
          destinationKey: toKey,
          codeHash: hash(ctx, otpId, code),
          expiresAt: new Date(now.getTime() + OTP_TTL_MS),
          createdAt: now,
        },
      });
      audit({ action: "otp.triggered", targetType: "user", targetId: user.id, changedFields: [] });
      return row;
    }),
  );
  // 2. deliver outside the transaction: an SMTP round trip must not hold the database
  try {
    await sender.send({ clientId, userId: reserved.userId, channel, to: reserved.destination, ...messageOf(channel, code), code, createdAt: now });
  } catch (error) {
    await ctx.db.otpCode.update({ where: { id: otpId }, data: { status: "FAILED" } });
    // the reason only: the error of a mail or SMS library may quote the address or the message
    ctx.logger.warn({ otpId, channel, reason: (error as { code?: string })?.code ?? (error as Error)?.name }, "otp delivery failed");
    throw new DomainError("DELIVERY_FAILED", "The code could not be delivered; it was discarded. Try again later.");
  }
  // 3. activate: this code is now the one of its channel, older ones are void
  await ctx.db.$transaction([
    ctx.db.otpCode.updateMany({
      where: { userId: reserved.userId, channel, status: { in: ["ACTIVE", "SENDING"] }, id: { not: otpId } },
      data: { status: "VOIDED" },
    }),
    ctx.db.otpCode.updateMany({ where: { id: otpId, status: "SENDING" }, data: { status: "ACTIVE" } }),
  ]);
  return {
    otpId,
    channel,
    destination: maskDestination(channel, reserved.destination),
    expiresAt: reserved.expiresAt,
    resendAvailableAt: new Date(now.getTime() + RESEND_COOLDOWN_MS),
  };
}

/**
 * Limits beyond the user record's, counted in the database so they hold across instances: the
 * destination's (phone numbers need not be unique, nor pending emails: every user record with the
 * same one shares its cooldown and hourly cap) and the client's sends an hour. A failed delivery sent nothing.
 */
async function checkSendLimits(tx: Write["tx"], clientId: string, channel: Channel, toKey: string, now: Date, perClientPerHour: number) {
  const window = { clientId, createdAt: { gt: new Date(now.getTime() - HOUR_MS) }, status: { not: "FAILED" as const } };
  const toSame = await tx.otpCode.findMany({ where: { ...window, destinationKey: toKey }, select: { createdAt: true } });
  checkTriggerLimits(
    toSame.map((r) => r.createdAt),
    now,
    `this ${noun(channel)}`,
  );
  const [capReached] = await tx.otpCode.findMany({
    where: window,
    orderBy: { createdAt: "desc" },
    skip: perClientPerHour - 1,
    take: 1,
    select: { createdAt: true },
  });
  checkClientSendLimit(capReached?.createdAt ?? null, now, perClientPerHour);
}

/** POST /v2/users/verify/otp: the code sent to the current contact marks it verified. */
export async function verifyOtp(ctx: RequestContext, input: VerifyInput) {
  return checkCode(ctx, input, "current", async ({ tx, audit }, userId, now) => {
    await tx.user.update({
      where: { id: userId },
      data: { ...(input.channel === "EMAIL" ? { emailVerified: true } : { phoneVerified: true }), version: { increment: 1 }, updatedAt: now },
    });
    audit({
      action: "user.contact.verified",
      targetType: "user",
      targetId: userId,
      changedFields: [input.channel === "EMAIL" ? "emailVerified" : "phoneVerified"],
    });
    return { userId, channel: input.channel, verified: true, verifiedAt: now };
  });
}

type Outcome<T> = { ok: true; value: T } | { ok: false; attemptsRemaining: number };

/**
 * Checks a code in one transaction. The attempt counter and the USED mark are conditional updates
 * (`status = ACTIVE AND attempts < 5`), so two requests with one code cannot both succeed and
 * concurrent wrong guesses cannot exceed the limit. A wrong guess is committed before it is reported.
 */
export async function checkCode<T>(
  ctx: RequestContext,
  input: VerifyInput,
  target: "current" | "pending",
  onSuccess: (write: Write, userId: string, now: Date) => Promise<T>,
) {
  const clientId = tenantOf(ctx);
  const { channel, code } = input;
  checkCodeFormat(code);
  const now = ctx.now();
  const outcome: Outcome<T> = await ctx.transact(ctx, async (write) => {
    const { tx } = write;
    const user = await userInWrite(tx, ctx, input.userId, { select: CONTACT_SELECT });
    if (target === "pending" && !pending(user, channel))
      throw new DomainError(
        "NO_PENDING_CHANGE",
        `The user has no pending ${noun(channel)} to confirm; use POST /v2/users/verify/otp to verify the current one.`,
      );
    const otp = await tx.otpCode.findFirst({
      where: { clientId, userId: user.id, channel, status: { in: ["ACTIVE", "USED"] } },
      orderBy: { createdAt: "desc" },
    });
    const expected = target === "pending" ? pending(user, channel) : current(user, channel);
    if (!otp || !sameContact(channel, otp.destination, expected))
      throw new DomainError("OTP_NOT_FOUND", `No code was sent to the user's ${target} ${noun(channel)}; trigger one first.`);
    if (otp.status === "USED") throw new DomainError("OTP_NOT_FOUND", "The last code sent was already used; trigger a new one.");
    if (otp.attempts >= MAX_ATTEMPTS)
      throw new DomainError("OTP_ATTEMPTS_EXCEEDED", `This code was tried ${MAX_ATTEMPTS} times and is blocked; trigger a new one.`);
    if (now >= otp.expiresAt) throw new DomainError("OTP_EXPIRED", "The code has expired; trigger a new one.");
    const live = { id: otp.id, status: "ACTIVE" as const, attempts: { lt: MAX_ATTEMPTS } };
    if (!safeEqual(hash(ctx, otp.id, code), otp.codeHash) && !standsInForCode(ctx.principal.mode, code)) {
      const { count } = await tx.otpCode.updateMany({ where: live, data: { attempts: { increment: 1 } } });
      if (!count) throw new DomainError("OTP_ATTEMPTS_EXCEEDED", `This code was tried ${MAX_ATTEMPTS} times and is blocked; trigger a new one.`);
      const { attempts } = await tx.otpCode.findUniqueOrThrow({ where: { id: otp.id }, select: { attempts: true } });
      return { ok: false, attemptsRemaining: MAX_ATTEMPTS - attempts };
    }
    const { count } = await tx.otpCode.updateMany({ where: live, data: { status: "USED", usedAt: now } });
    if (!count) throw new DomainError("OTP_NOT_FOUND", "The code was used by a concurrent request; trigger a new one.");
    return { ok: true, value: await onSuccess(write, user.id, now) };
  });
  if (!outcome.ok)
    throw new DomainError("OTP_INVALID", `The code is not correct; ${outcome.attemptsRemaining} attempt(s) left.`, undefined, {
      attemptsRemaining: outcome.attemptsRemaining,
    });
  return outcome.value;
}

/** The sandbox outbox of the caller (SANDBOX keys only: a LIVE key has none, 404). */
export function sandboxMessagesWhere(ctx: RequestContext, filters: { userId?: string | null; channel?: Channel | null }) {
  if (ctx.principal.mode !== "SANDBOX") throw new DomainError("NOT_FOUND", "The sandbox outbox exists for sandbox keys only.");
  if (filters.userId && !isUuid(filters.userId)) throw invalid([{ field: "userId", code: "invalid", message: "userId must be a user id (UUID)." }]);
  return { clientId: tenantOf(ctx), ...(filters.userId ? { userId: filters.userId } : {}), ...(filters.channel ? { channel: filters.channel } : {}) };
}

export const countSandboxMessages = (ctx: RequestContext, filters: Parameters<typeof sandboxMessagesWhere>[1]) =>
  ctx.db.sandboxMessage.count({ where: sandboxMessagesWhere(ctx, filters) });

export const listSandboxMessages = (ctx: RequestContext, filters: Parameters<typeof sandboxMessagesWhere>[1], window: { offset: number; limit: number }) =>
  ctx.db.sandboxMessage.findMany({
    where: sandboxMessagesWhere(ctx, filters),
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    skip: window.offset,
    take: window.limit,
  });

/**
 * Users v2: read, list, and the users module's part of a create and an update, always inside the
 * caller's client. What a change of a user sets off in other modules (its checks) is the flows'
 * (src/flows/sign-up.ts, src/flows/update-user.ts, src/flows/confirm-contact.ts).
 */
import type { RequestContext } from "../../context.js";
import { tenantOf } from "../../context.js";
import { Prisma } from "../../../generated/prisma/client.js";
import { parseSort, type SortArgs } from "../../lib/choices.js";
import { DomainError } from "../../lib/errors.js";
import { foundOr404 } from "../../lib/found.js";
import type { Tx } from "../../db/transaction.js";
import type { Write } from "../../platform/write.js";
import { userStateOf } from "./users.store.js";
import { readUserById } from "./users.reads.js";
import { checkStatusMove, checkUserFields, etagOf, type Address, type CheckedUser, type UserInput, type UserStatusValue } from "./users.rules.js";

/** Pothos's selection for the requested fields, so relations load in the same query. */
export type Selection = { select?: Prisma.UserSelect; include?: Prisma.UserInclude };
// columns services need whatever the caller selected
const BASE_SELECT = { id: true, version: true, email: true, phoneNumber: true, emailVerified: true, phoneVerified: true, status: true } as const;
export const withBase = (query?: Selection) => (query?.select ? { select: { ...query.select, ...BASE_SELECT } } : (query ?? {}));

export type UserFilters = SortArgs & { email?: string | null; externalId?: string | null; status?: UserStatusValue | null };
/** sort_fields values → columns; newest first unless the caller sorts */
export const USER_SORTS = { created_at: "createdAt", updated_at: "updatedAt", last_name: "lastName", email: "emailKey" } as const;

/** The user inside a write: what the write's transaction sees of it, or 404. */
export const userInWrite = (tx: Tx, ctx: RequestContext, id: string, query?: Selection) =>
  foundOr404("user", id, (id) => readUserById(tx, tenantOf(ctx), id, query));

export async function getUser(ctx: RequestContext, id: string, query?: Selection) {
  const clientId = tenantOf(ctx);
  // batched with concurrent reads of other requests (db/batched-reads.ts); a transaction reads alone
  return foundOr404("user", id, (id) => readUserById(ctx.db, clientId, id, query));
}

/** A new user's columns, checked (a new user always starts PENDING). */
export function newUserColumns(ctx: RequestContext, input: UserInput) {
  const checked = checkUserFields(input, { creating: true });
  if (checked.status) throw new DomainError("INVALID_STATE_TRANSITION", "A new user always starts PENDING; status cannot be given.");
  const columns = Object.fromEntries(Object.entries(toColumns(ctx, checked)).map(([column, value]) => [column, value === Prisma.DbNull ? null : value]));
  return { columns, changedFields: Object.keys(checked) };
}

/**
 * A partial update inside the caller's write: the ETag and the status move checked, a verified
 * contact's change held as pending, the row written at the version read (or 412). Answers the user
 * and the columns that really changed (none: nothing was written).
 */
export async function changeUser(write: Write, ctx: RequestContext, input: UserInput & { id: string; ifMatch?: string | null }, query?: Selection) {
  const clientId = tenantOf(ctx);
  const { id, ifMatch, ...fields } = input;
  const checked = checkUserFields(fields, { creating: false });
  const { tx, audit, emit } = write;
  const current = await foundOr404("user", id, (id) => readUserById(tx, clientId, id, undefined));
  if (ifMatch && ifMatch !== etagOf(current) && ifMatch !== "*")
    throw new DomainError("PRECONDITION_FAILED", "The user changed since you read it: fetch it again and retry with the new ETag.");
  if (checked.status) checkStatusMove(current.status, checked.status, { byCaller: true });
  const data = holdVerifiedContactChanges(current, toColumns(ctx, checked));
  // a PUT that changes nothing writes nothing: updated_at, the version and the ETag stay as they were
  const changed = changedColumns(ctx, current, data);
  if (!changed.length) return { user: await tx.user.findFirstOrThrow({ ...withBase(query), where: { id } }), changed };
  await assertUnique(tx, clientId, checked, id);
  // optimistic: the row must still be at the version just read, or a concurrent write won
  const user = await tx.user
    .update({ ...withBase(query), where: { id, version: current.version }, data: { ...data, version: { increment: 1 }, updatedAt: write.now() } })
    .catch((error: { code?: string }) => {
      if (error?.code === "P2025") throw new DomainError("PRECONDITION_FAILED", "The user changed while this update ran: fetch it again and retry.");
      throw error;
    });
  audit({ action: "user.updated", targetType: "user", targetId: id, changedFields: Object.keys(checked) });
  if (checked.status && checked.status !== current.status)
    emit("user.status.updated", clientId, { userId: id, status: checked.status, previousStatus: current.status, user: await userStateOf(tx, id) });
  return { user, changed };
}

/**
 * Applies a pending email or phone change once its OTP is confirmed, inside the caller's write: the
 * pending value becomes the current, verified one. Answers the user and the column that changed.
 */
export async function applyPendingContact(write: Write, ctx: RequestContext, id: string, channel: "EMAIL" | "SMS", query?: Selection) {
  const { tx, audit } = write;
  const clientId = tenantOf(ctx);
  const current = await foundOr404("user", id, (id) =>
    readUserById(tx, clientId, id, { select: { ...BASE_SELECT, pendingEmail: true, pendingPhoneNumber: true } }),
  );
  const pending = channel === "EMAIL" ? current.pendingEmail : current.pendingPhoneNumber;
  if (!pending) throw new DomainError("NO_PENDING_CHANGE", `The user has no pending ${channel === "EMAIL" ? "email" : "phone number"} to confirm.`);
  const data: Prisma.UserUncheckedUpdateInput =
    channel === "EMAIL"
      ? { email: pending, emailKey: pending.toLowerCase(), pendingEmail: null, emailVerified: true }
      : { phoneNumber: pending, pendingPhoneNumber: null, phoneVerified: true };
  if (channel === "EMAIL") await assertUnique(tx, clientId, { email: pending } as CheckedUser, id);
  const user = await tx.user
    .update({ ...withBase(query), where: { id }, data: { ...data, version: { increment: 1 }, updatedAt: write.now() } })
    .catch(uniqueViolation);
  const changed = channel === "EMAIL" ? "email" : "phoneNumber";
  audit({ action: "user.contact.confirmed", targetType: "user", targetId: id, changedFields: [changed] });
  return { user, changed: [changed] };
}

function whereOf(clientId: string, filters: UserFilters): Prisma.UserWhereInput {
  return {
    clientId,
    ...(filters.email ? { emailKey: filters.email.trim().toLowerCase() } : {}),
    ...(filters.externalId ? { externalId: filters.externalId } : {}),
    ...(filters.status ? { status: filters.status } : {}),
  };
}

export const countUsers = (ctx: RequestContext, filters: UserFilters) => ctx.db.user.count({ where: whereOf(tenantOf(ctx), filters) });

export function listUsers(ctx: RequestContext, filters: UserFilters, window: { offset: number; limit: number }, query?: Selection) {
  const sort = parseSort(Object.keys(USER_SORTS) as (keyof typeof USER_SORTS)[], filters, { field: "created_at", order: "desc" });
  const orderBy = [{ [USER_SORTS[sort.field]]: sort.order }, { id: sort.order }];
  return ctx.db.user.findMany({ ...query, where: whereOf(tenantOf(ctx), filters), orderBy, skip: window.offset, take: window.limit });
}

function toColumns(ctx: RequestContext, checked: CheckedUser): Prisma.UserUncheckedUpdateInput {
  const { taxId, email, residentialAddress, billingAddress, status, ...rest } = checked;
  const data: Prisma.UserUncheckedUpdateInput = { ...(rest as Prisma.UserUncheckedUpdateInput) };
  if (status) data.status = status;
  if (email !== undefined) {
    data.email = email as string | null;
    data.emailKey = (email as string | null)?.toLowerCase() ?? null;
  }
  if (residentialAddress !== undefined) data.residentialAddress = json(residentialAddress as Address | null);
  if (billingAddress !== undefined) data.billingAddress = json(billingAddress as Address | null);
  if (taxId !== undefined) {
    data.taxIdEncrypted = taxId === null ? null : ctx.cipher.encrypt(taxId as string);
    data.taxIdLast4 = taxId === null ? null : (taxId as string).slice(-4);
  }
  return data;
}

/** The columns of `data` whose value differs from the stored row (ciphertexts compared by their plain text). */
function changedColumns(ctx: RequestContext, current: Record<string, unknown>, data: Prisma.UserUncheckedUpdateInput) {
  return Object.keys(data).filter((column) => {
    const next = (data as Record<string, unknown>)[column];
    const now = current[column];
    if (next === Prisma.DbNull || next === null) return now !== null;
    if (now === null || now === undefined) return true;
    if (column === "taxIdEncrypted") return ctx.cipher.decrypt(now as string) !== ctx.cipher.decrypt(next as string);
    if (now instanceof Date) return now.getTime() !== (next as Date).getTime();
    if (typeof now === "object") return canonical(now) !== canonical(next); // jsonb does not keep key order
    return now !== next;
  });
}

const canonical = (value: unknown) =>
  JSON.stringify(value, (_key, v) => (v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort()) : v));

const json = (value: Address | null) => (value === null ? Prisma.DbNull : (value as unknown as Prisma.InputJsonValue));

/**
 * A verified email or phone is not replaced at once: the new one waits as pending until confirmed
 * by OTP. Sending the verified value again withdraws a pending change.
 */
type Contact = {
  email: string | null;
  phoneNumber: string | null;
  emailVerified: boolean;
  phoneVerified: boolean;
  pendingEmail: string | null;
  pendingPhoneNumber: string | null;
};
function holdVerifiedContactChanges(current: Contact, data: Prisma.UserUncheckedUpdateInput) {
  const out = { ...data };
  if (current.emailVerified && typeof data.email === "string") {
    const same = data.email.toLowerCase() === current.email?.toLowerCase();
    if (!same) out.pendingEmail = data.email;
    else if (current.pendingEmail) out.pendingEmail = null;
    if (!same) {
      delete out.email;
      delete out.emailKey;
    }
  }
  if (current.phoneVerified && typeof data.phoneNumber === "string") {
    const same = data.phoneNumber === current.phoneNumber;
    if (!same) {
      out.pendingPhoneNumber = data.phoneNumber;
      delete out.phoneNumber;
    } else if (current.pendingPhoneNumber) out.pendingPhoneNumber = null;
  }
  return out;
}

async function assertUnique(tx: Pick<RequestContext["db"], "user">, clientId: string, checked: CheckedUser, selfId: string | null) {
  const probes: [string, Prisma.UserWhereInput][] = [];
  if (typeof checked.email === "string") probes.push(["email", { emailKey: checked.email.toLowerCase() }]);
  if (typeof checked.externalId === "string") probes.push(["externalId", { externalId: checked.externalId }]);
  for (const [field, where] of probes) {
    const clash = await tx.user.findFirst({ where: { clientId, ...where, ...(selfId ? { NOT: { id: selfId } } : {}) }, select: { id: true } });
    if (clash) throw clashOn(field);
  }
}

/** 409 naming the field another user of the client already has, whether a probe or an index found it. */
const clashOn = (field: string) =>
  new DomainError("CONFLICT", `Another user of this client already has this ${field}.`, [{ field, code: "duplicate", message: `${field} is already in use.` }]);

/** The unique index a write ran into names the field (adapter-pg names the index, PGlite's adapter its columns). */
type UniqueViolation = { code?: string; meta?: { driverAdapterError?: { cause?: { kind?: string; constraint?: { index?: string; fields?: string[] } } } } };
const CLASHING = [
  ["email_key", "email"],
  ["external_id", "externalId"],
] as const;

/**
 * A create is checked by the unique indexes alone (one statement less on every create); an update
 * asks first, since a verified user's new email waits as pending, where no index guards it. Either
 * way a clash answers 409 naming the field, and the transaction writes nothing.
 */
export function uniqueViolation(error: unknown): never {
  const { code, meta } = (error ?? {}) as UniqueViolation;
  // P2002 from Prisma's own queries, P2010 from a plain statement (the sign-up's)
  if (code !== "P2002" && meta?.driverAdapterError?.cause?.kind !== "UniqueConstraintViolation") throw error;
  const constraint = meta?.driverAdapterError?.cause?.constraint;
  const named = [constraint?.index ?? "", ...(constraint?.fields ?? [])].join(" ");
  const field = CLASHING.find(([column]) => named.includes(column))?.[1];
  if (!field) throw new DomainError("CONFLICT", "Another user of this client already has this email or external id.");
  throw clashOn(field);
}

/**
 * Identity documents: upload, update, read, list, delete, always inside the caller's client. What a
 * change of a document sets off beyond the documents (the user's KYC runs again) is the flow's
 * (src/flows/change-document.ts), handed in as the change's follow-up and run in its write.
 */
import { stamps } from "../../db/insert-rows.js";
import { createHash } from "node:crypto";
import { isMagic, SANDBOX_INPUTS } from "../../kernel/sandbox-inputs.js";
import type { RequestContext } from "../../context.js";
import { tenantOf } from "../../context.js";
import type { Prisma } from "../../../generated/prisma/client.js";
import { DomainError, notFound } from "../../lib/errors.js";
import { foundOr404 } from "../../lib/found.js";
import type { Write } from "../../platform/write.js";
import type { DocumentTypeValue } from "../../kernel/document-types.js";
import { newStorageKey, type ByteChanges } from "./documents.storage.js";
import {
  checkDocumentFields,
  checkFile,
  lastFour,
  type CheckedFields,
  type CheckedFile,
  type DocumentFields,
  type DocumentStatusValue,
  type FileInput,
} from "./documents.rules.js";

/** Pothos's selection for the requested fields, so relations load in the same query. */
type Selection = { select?: Prisma.DocumentSelect; include?: Prisma.DocumentInclude };
const withBase = (query?: Selection) => (query?.select ? { select: { ...query.select, id: true } } : (query ?? {}));

/** One change of a document, as its event carries it. */
export type DocumentChange = { documentId: string; userId: string; change: "uploaded" | "updated" | "deleted" | "expired" };
/** What a change sets off beyond the documents, in the change's write. */
export type FollowUp = (write: Write, clientId: string, change: DocumentChange) => Promise<unknown>;

export type UploadInput = DocumentFields & { userId: string; file: FileInput };
export type UpdateInput = DocumentFields & { id: string; file?: FileInput | null };
export type DocumentFilters = { userId?: string | null; status?: DocumentStatusValue | null; documentType?: DocumentTypeValue | null };

/** A live document of this client (not DELETED); anything else is "not found", as docs/api.md says. */
const findLive = (ctx: Pick<RequestContext, "db" | "principal">, id: string) =>
  foundOr404("document", id, (id) => ctx.db.document.findFirst({ where: { id, clientId: tenantOf(ctx as RequestContext), status: { not: "DELETED" } } }));

/** One document, DELETED ones included (their record is kept for audit). */
export const getDocument = (ctx: RequestContext, id: string, query?: Selection) =>
  foundOr404("document", id, (id) => ctx.db.document.findFirst({ ...query, where: { id, clientId: tenantOf(ctx) } }));

/** A live document, whose file is read with `readDocumentBytes` once its reader may have the bytes. */
export const getDocumentFile = (ctx: RequestContext, id: string) => findLive(ctx, id);

/** The stored bytes of a document's file; a row naming bytes the store does not hold has no file to show. */
export async function readDocumentBytes(ctx: RequestContext, storageKey: string) {
  const bytes = await ctx.documentStore.read(storageKey);
  if (!bytes) throw notFound("document file");
  return bytes;
}

export async function uploadDocument(ctx: RequestContext, input: UploadInput, followUp: FollowUp, query?: Selection) {
  const clientId = tenantOf(ctx);
  const { userId, file, ...fields } = input;
  await assertUser(ctx, userId);
  const checked = checkDocumentFields(fields, null);
  const content = await checkFile(file);
  const key = newStorageKey();
  return ctx.documentStore.transact(ctx, { put: { key, bytes: content.bytes } }, async (write) => {
    const doc = await write.tx.document.create({
      ...withBase(query),
      data: { clientId, userId, ...stamps(write.now()), ...columnsOf(ctx, checked), ...fileColumns(content, key) } as Prisma.DocumentUncheckedCreateInput,
    });
    await changed(write, clientId, followUp, { documentId: doc.id, userId, change: "uploaded" }, [...Object.keys(checked), "file"]);
    return doc;
  });
}

export async function updateDocument(ctx: RequestContext, input: UpdateInput, followUp: FollowUp, query?: Selection) {
  const clientId = tenantOf(ctx);
  const { id, file, ...fields } = input;
  const current = await findLive(ctx, id);
  const checked = checkDocumentFields(fields, { ...current, documentNumber: current.documentNumberLast4 });
  const content = file ? await checkFile(file) : null;
  const key = content ? newStorageKey() : null;
  const bytes: ByteChanges = content ? { put: { key: key!, bytes: content.bytes }, erase: current.storageKey } : {};
  return ctx.documentStore.transact(ctx, bytes, async (write) => {
    // the row must still be live and hold the bytes just read, or a concurrent write won
    const { count } = await write.tx.document.updateMany({
      where: { id, clientId, status: { not: "DELETED" }, storageKey: current.storageKey },
      data: { ...columnsOf(ctx, checked), ...(content ? fileColumns(content, key!) : {}), updatedAt: write.now() } as Prisma.DocumentUncheckedUpdateManyInput,
    });
    if (!count)
      throw (await write.tx.document.count({ where: { id, status: { not: "DELETED" } } }))
        ? new DomainError("CONFLICT", "The document's file was replaced while this update ran: read it again and retry.")
        : notFound("document");
    await changed(write, clientId, followUp, { documentId: id, userId: current.userId, change: "updated" }, [
      ...Object.keys(checked),
      ...(content ? ["file"] : []),
    ]);
    return write.tx.document.findUniqueOrThrow({ ...withBase(query), where: { id } });
  });
}

/** Erases the bytes and keeps the record as DELETED; a second delete finds nothing live → 404. */
export async function deleteDocument(ctx: RequestContext, id: string, followUp: FollowUp, query?: Selection) {
  const clientId = tenantOf(ctx);
  const current = await findLive(ctx, id);
  return ctx.documentStore.transact(ctx, { erase: current.storageKey }, async (write) => {
    const { count } = await write.tx.document.updateMany({
      where: { id, clientId, status: { not: "DELETED" } },
      data: { status: "DELETED", storageKey: null, deletedAt: write.now(), updatedAt: write.now() },
    });
    if (!count) throw notFound("document");
    await changed(write, clientId, followUp, { documentId: id, userId: current.userId, change: "deleted" }, ["status", "file"]);
    return write.tx.document.findUniqueOrThrow({ ...withBase(query), where: { id } });
  });
}

/** `now`: the caller's clock (a sandbox client's may run ahead), which decides what has expired. */
function whereOf(clientId: string, filters: DocumentFilters, now: Date): Prisma.DocumentWhereInput {
  const today = new Date(now.toISOString().slice(0, 10));
  const status: Prisma.DocumentWhereInput =
    filters.status === "DELETED"
      ? { status: "DELETED" }
      : filters.status === "EXPIRED"
        ? { status: "ACTIVE", expiryDate: { lt: today } }
        : filters.status === "INVALID"
          ? { status: "INVALID" }
          : filters.status === "ACTIVE"
            ? { status: "ACTIVE", OR: [{ expiryDate: null }, { expiryDate: { gte: today } }] }
            : { status: { not: "DELETED" } };
  return {
    clientId,
    ...status,
    ...(filters.userId ? { userId: filters.userId } : {}),
    ...(filters.documentType ? { documentType: filters.documentType } : {}),
  };
}

/** Filtering by a user of another client (or none) is 404, like reading that user. */
async function checkFilters(ctx: RequestContext, filters: DocumentFilters) {
  if (filters.userId) await assertUser(ctx, filters.userId);
}

export async function countDocuments(ctx: RequestContext, filters: DocumentFilters) {
  await checkFilters(ctx, filters);
  return ctx.db.document.count({ where: whereOf(tenantOf(ctx), filters, ctx.now()) });
}

export async function listDocuments(ctx: RequestContext, filters: DocumentFilters, window: { offset: number; limit: number }, query?: Selection) {
  await checkFilters(ctx, filters);
  return ctx.db.document.findMany({
    ...query,
    where: whereOf(tenantOf(ctx), filters, ctx.now()),
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    skip: window.offset,
    take: window.limit,
  });
}

/** The where of `User.documents`: the same status rules as the list. */
export const userDocumentsWhere = (status: DocumentStatusValue | null | undefined, now: Date) => {
  const { clientId: _c, ...where } = whereOf("", { status }, now);
  return where;
};

async function assertUser(ctx: RequestContext, userId: string) {
  await foundOr404("user", userId, (id) => ctx.db.user.findFirst({ where: { id, clientId: tenantOf(ctx) }, select: { id: true } }));
}

function columnsOf(ctx: RequestContext, checked: CheckedFields): Prisma.DocumentUncheckedUpdateInput {
  const { documentNumber, ...rest } = checked;
  const data: Prisma.DocumentUncheckedUpdateInput = { ...rest };
  if (documentNumber !== undefined) {
    data.documentNumberCiphertext = documentNumber === null ? null : ctx.cipher.encrypt(documentNumber);
    data.documentNumberLast4 = documentNumber === null ? null : lastFour(documentNumber);
    // the number is what is verified: a new one is judged afresh (the sandbox's magic number fails)
    const invalid = ctx.principal.mode === "SANDBOX" && isMagic(documentNumber, SANDBOX_INPUTS.invalidDocumentNumber);
    data.status = invalid ? "INVALID" : "ACTIVE";
    data.invalidReason = invalid ? "document_number_not_recognised" : null;
  }
  return data;
}

const fileColumns = (file: CheckedFile, storageKey: string) => ({
  fileName: file.fileName,
  mimeType: file.mimeType,
  sizeBytes: file.bytes.length,
  sha256: createHash("sha256").update(file.bytes).digest("hex"),
  storageKey,
});

/** Audit row, event and follow-up of one change. */
async function changed(write: Write, clientId: string, followUp: FollowUp, event: DocumentChange, fields: string[]) {
  write.audit({ action: `document.${event.change}`, targetType: "document", targetId: event.documentId, changedFields: fields });
  write.emit("document.changed", clientId, event);
  await followUp(write, clientId, event);
}

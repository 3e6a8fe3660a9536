/**
 * GraphQL for documents: the Document type, User.documents, document(id), documentFile(id),
 * documents (connection), uploadDocument, updateDocument, deleteDocument. Files arrive as base64
 * or as a part of a GraphQL multipart request (`file.upload`, the File scalar).
 */
import { DocumentStatus, DocumentType } from "../../../generated/prisma/enums.js";
import { builder, type SchemaTypes } from "../../graphql/builder.js";
import { costs } from "../../graphql/cost.js";
import { spendFileBytes } from "../../graphql/work-budget.js";
import { ownColumns } from "../../graphql/planned-query.js";
import { listResolver, relationFirst, relationTake, withTotalCount } from "../../graphql/paging.js";
import { maskTail } from "../../lib/masking.js";
import { documentStatus, MAX_DOCUMENT_BYTES } from "./documents.rules.js";
import {
  countDocuments,
  getDocument,
  getDocumentFile,
  listDocuments,
  readDocumentBytes,
  userDocumentsWhere,
  type DocumentFilters,
} from "./documents.service.js";
import { deleteDocument, updateDocument, uploadDocument } from "../../flows/change-document.js";

const DocumentTypeEnum = builder.enumType(DocumentType, { name: "DocumentType" });
const DocumentStatusEnum = builder.enumType(DocumentStatus, {
  name: "DocumentStatus",
  description:
    "EXPIRED: past its expiry date; DELETED: bytes erased, record kept; INVALID: not what it claims to be (invalidReason says why), satisfies no requirement",
});

type FileShape = { fileName: string; mimeType: string; sizeBytes: number; sha256: string; storageKey: string | null };

const DocumentFile = builder.objectRef<FileShape>("DocumentFile").implement({
  description: "A document's file: its content type is judged from the bytes",
  fields: (t) => ({
    fileName: t.exposeString("fileName"),
    mimeType: t.exposeString("mimeType", { description: "application/pdf, image/jpeg or image/png" }),
    sizeBytes: t.exposeInt("sizeBytes"),
    sha256: t.exposeString("sha256", { description: "hex SHA-256 of the bytes" }),
    contentBase64: t.string({
      nullable: true,
      description:
        "The bytes, base64; null once the document is deleted. REST serves them raw at …/documents/{document_id}/file. At most two files' worth of bytes per request",
      // priced by the largest file, one per KiB: a query may read one or two files, not a list of them
      extensions: costs({ leaf: MAX_DOCUMENT_BYTES / 1024 }),
      resolve: async (f, _args, ctx, info) => {
        if (!f.storageKey) return null;
        spendFileBytes(ctx, info, f.sizeBytes); // before the bytes are read
        return (await readDocumentBytes(ctx, f.storageKey)).toString("base64");
      },
    }),
  }),
});

const Document = builder.prismaObject("Document", {
  fields: (t) => ({
    id: t.exposeID("id"),
    userId: t.exposeID("userId"),
    user: t.relation("user", { authScopes: { scope: "users:read" } }),
    documentType: t.expose("documentType", { type: DocumentTypeEnum }),
    status: t.field({
      type: DocumentStatusEnum,
      extensions: ownColumns({ status: true, expiryDate: true }),
      resolve: (d, _args, ctx) => documentStatus(d, ctx.now()),
    }),
    documentNumber: t.string({
      nullable: true,
      description: "Masked: only the last four characters are shown",
      extensions: ownColumns({ documentNumberLast4: true }),
      resolve: (d) => maskTail(d.documentNumberLast4),
    }),
    invalidReason: t.exposeString("invalidReason", { nullable: true, description: "Why the document is INVALID, e.g. document_number_not_recognised" }),
    issuingCountry: t.exposeString("issuingCountry", { nullable: true, description: "ISO 3166-1 alpha-2" }),
    issueDate: t.expose("issueDate", { type: "Date", nullable: true }),
    expiryDate: t.expose("expiryDate", { type: "Date", nullable: true }),
    file: t.field({
      type: DocumentFile,
      extensions: ownColumns({ fileName: true, mimeType: true, sizeBytes: true, sha256: true, storageKey: true }),
      resolve: (d) => d,
    }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
    deletedAt: t.expose("deletedAt", { type: "DateTime", nullable: true }),
  }),
});

builder.prismaObjectField("User", "documents", (t) =>
  t.relation("documents", {
    authScopes: { scope: "documents:read" },
    description: "The user's documents, newest first; DELETED ones only when asked for by status",
    args: { status: t.arg({ type: DocumentStatusEnum }), first: relationFirst(t.arg) },
    query: (args, ctx) => ({
      where: userDocumentsWhere(args.status, ctx.now()),
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: relationTake(args.first),
    }),
  }),
);

const DocumentFileInput = builder.inputType("DocumentFileInput", {
  description: "Exactly one of contentBase64 and upload (a multipart file part)",
  fields: (t) => ({
    fileName: t.string(),
    mimeType: t.string({ description: "Optional; when given it must match the content" }),
    contentBase64: t.string(),
    upload: t.field({ type: "File" }),
  }),
});

const documentFields = (t: PothosSchemaTypes.InputFieldBuilder<SchemaTypes, "InputObject">) => ({
  documentNumber: t.string({ description: "Stored encrypted; read back masked. Required for identity documents" }),
  issuingCountry: t.string({ description: "ISO 3166-1 alpha-2 or alpha-3. Required for identity documents" }),
  issueDate: t.field({ type: "Date" }),
  expiryDate: t.field({ type: "Date" }),
});

const UploadDocumentInput = builder.inputType("UploadDocumentInput", {
  fields: (t) => ({
    userId: t.id({ required: true }),
    documentType: t.field({ type: DocumentTypeEnum, required: true }),
    ...documentFields(t),
    file: t.field({ type: DocumentFileInput, required: true }),
  }),
});

const UpdateDocumentInput = builder.inputType("UpdateDocumentInput", {
  description: "Partial update: given fields replace, absent ones stay, null clears an optional one; a file replaces the bytes",
  fields: (t) => ({
    id: t.id({ required: true }),
    documentType: t.field({ type: DocumentTypeEnum }),
    ...documentFields(t),
    file: t.field({ type: DocumentFileInput }),
  }),
});

const DeleteDocumentInput = builder.inputType("DeleteDocumentInput", { fields: (t) => ({ id: t.id({ required: true }) }) });

builder.queryFields((t) => ({
  document: t.prismaField({
    type: "Document",
    authScopes: { scope: "documents:read" },
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, { id }, ctx) => getDocument(ctx, String(id), query),
  }),
  documentFile: t.field({
    type: DocumentFile,
    authScopes: { scope: "documents:read" },
    description: "A live document's file with its bytes",
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => getDocumentFile(ctx, String(id)),
  }),
  documents: t.connection(
    {
      type: Document,
      authScopes: { scope: "documents:read" },
      args: { userId: t.arg.id(), status: t.arg({ type: DocumentStatusEnum }), documentType: t.arg({ type: DocumentTypeEnum }) },
      resolve: listResolver<DocumentFilters>("Document", (ctx, args, query) => {
        const filters = { ...args, userId: args.userId == null ? null : String(args.userId) };
        return { count: () => countDocuments(ctx, filters), page: (window) => listDocuments(ctx, filters, window, query) };
      }),
    },
    withTotalCount("DocumentConnection"),
  ),
}));

builder.mutationFields((t) => ({
  uploadDocument: t.prismaField({
    type: "Document",
    authScopes: { scope: "documents:write" },
    args: { input: t.arg({ type: UploadDocumentInput, required: true }) },
    resolve: (query, _root, { input }, ctx) => uploadDocument(ctx, { ...input, userId: String(input.userId) }, query),
  }),
  updateDocument: t.prismaField({
    type: "Document",
    authScopes: { scope: "documents:write" },
    args: { input: t.arg({ type: UpdateDocumentInput, required: true }) },
    resolve: (query, _root, { input }, ctx) => updateDocument(ctx, { ...input, id: String(input.id) }, query),
  }),
  deleteDocument: t.prismaField({
    type: "Document",
    authScopes: { scope: "documents:write" },
    description: "Erases the bytes; the record stays, DELETED",
    args: { input: t.arg({ type: DeleteDocumentInput, required: true }) },
    resolve: (query, _root, { input }, ctx) => deleteDocument(ctx, String(input.id), query),
  }),
}));

/** REST entries for /v2/users/authentications/documents. Each maps a path and body onto a GraphQL operation; no rules here. */
import { bodyInput, queryVariables, restOperation, type PathLookup, type Route } from "../../rest/route.js";
import { getDocument } from "./documents.service.js";
import { MAX_UPLOAD_BODY_BYTES } from "./documents.rules.js";

/** The REST document body: every field, snake_case by alias (`document_id` for `id`); never the bytes. */
const DOCUMENT_REST_FIELDS = `
  document_id: id userId documentType status invalidReason documentNumber issuingCountry issueDate expiryDate
  file { fileName mimeType sizeBytes sha256 } createdAt updatedAt deletedAt`;

const BASE = "/v2/users/authentications/documents";
const document: PathLookup = (ctx, params) => getDocument(ctx, params.document_id, { select: { id: true } });

export const documentsRoutes: Route[] = [
  {
    method: "POST",
    path: BASE,
    summary: "Upload a document (file as base64 JSON, PDF/JPEG/PNG up to 10 MiB)",
    scope: "documents:write",
    status: 201,
    maxBodyBytes: MAX_UPLOAD_BODY_BYTES,
    operation: restOperation(`mutation UploadDocument($input: UploadDocumentInput!) { uploadDocument(input: $input) { ${DOCUMENT_REST_FIELDS} } }`),
    variables: (req) => ({ input: bodyInput(req) }),
    field: "uploadDocument",
  },
  {
    method: "PUT",
    path: BASE,
    summary: "Update a document named by document_id in the body (partial; a file replaces the bytes)",
    scope: "documents:write",
    maxBodyBytes: MAX_UPLOAD_BODY_BYTES,
    operation: restOperation(`mutation UpdateDocument($input: UpdateDocumentInput!) { updateDocument(input: $input) { ${DOCUMENT_REST_FIELDS} } }`),
    bodyAliases: { document_id: "id" },
    variables: (req) => ({ input: bodyInput(req) }),
    field: "updateDocument",
  },
  {
    method: "GET",
    path: BASE,
    summary: "List the client's documents (no bytes); DELETED ones only with status=DELETED",
    scope: "documents:read",
    list: true,
    queryParams: ["user_id", "status", "document_type"],
    operation: restOperation(`query Documents($first: Int, $after: String, $userId: ID, $status: DocumentStatus, $documentType: DocumentType) {
      documents(first: $first, after: $after, userId: $userId, status: $status, documentType: $documentType) {
        totalCount edges { node { ${DOCUMENT_REST_FIELDS} } } } }`),
    variables: (req) => queryVariables(req, ["user_id", "status", "document_type"]),
    field: "documents",
  },
  {
    method: "GET",
    path: `${BASE}/{document_id}`,
    summary: "Read a document (no bytes; a DELETED one is kept for audit)",
    scope: "documents:read",
    operation: restOperation(`query Document($id: ID!) { document(id: $id) { ${DOCUMENT_REST_FIELDS} } }`),
    lookup: document,
    variables: (req) => ({ id: req.params.document_id }),
    field: "document",
  },
  {
    method: "DELETE",
    path: `${BASE}/{document_id}`,
    summary: "Delete a document: bytes erased, record kept as DELETED",
    scope: "documents:write",
    status: 204,
    operation: restOperation(`mutation DeleteDocument($input: DeleteDocumentInput!) { deleteDocument(input: $input) { document_id: id } }`),
    lookup: document,
    variables: (req) => ({ input: { id: req.params.document_id } }),
    field: "deleteDocument",
  },
  {
    method: "GET",
    path: `${BASE}/{document_id}/file`,
    summary: "Download a document's file (its own content type)",
    scope: "documents:read",
    binary: { content: "content_base64", contentType: "mime_type", fileName: "file_name" },
    operation: restOperation(`query DocumentFile($id: ID!) { documentFile(id: $id) { fileName mimeType contentBase64 } }`),
    lookup: document,
    variables: (req) => ({ id: req.params.document_id }),
    field: "documentFile",
  },
];

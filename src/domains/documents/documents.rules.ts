/**
 * Documents' input rules, pure: fields checked and normalised, the file's content type judged from
 * its bytes (file-type), never from what the caller declared, and the status a row shows today.
 */
import { fileTypeFromBuffer } from "file-type";
import { parseIsoDate } from "../../lib/dates.js";
import { toAlpha2 } from "../../lib/countries.js";
import { DomainError, invalid, type FieldError } from "../../lib/errors.js";
import type { DocumentTypeValue } from "../../kernel/document-types.js";

/** 10 MiB: the largest file accepted. */
export const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;
/** The file bytes one request may read (Document.file.contentBase64): two of the largest files. */
export const MAX_FILE_BYTES_PER_REQUEST = 2 * MAX_DOCUMENT_BYTES;
/** The REST body carrying it in base64 (4/3 of the bytes) plus the other fields. */
export const MAX_UPLOAD_BODY_BYTES = Math.ceil(MAX_DOCUMENT_BYTES / 3) * 4 + 256 * 1024;
const ACCEPTED_MIME_TYPES = ["application/pdf", "image/jpeg", "image/png"] as const;

/** identity documents carry a number and an issuing country; a selfie or a utility bill need not */
const IDENTITY_TYPES = new Set<DocumentTypeValue>(["PASSPORT", "NATIONAL_ID", "DRIVING_LICENSE", "RESIDENCE_PERMIT"]);

/** The file as either transport sends it: base64 in JSON, or a multipart file part (GraphQL). */
export type FileInput = { fileName?: string | null; mimeType?: string | null; contentBase64?: string | null; upload?: File | null };

/** The fields a caller may write; `undefined` = leave as is, `null` = clear. */
export type DocumentFields = {
  documentType?: DocumentTypeValue | null;
  documentNumber?: string | null;
  issuingCountry?: string | null;
  issueDate?: string | null;
  expiryDate?: string | null;
};

export type CheckedFields = {
  documentType?: DocumentTypeValue;
  documentNumber?: string | null;
  issuingCountry?: string | null;
  issueDate?: Date | null;
  expiryDate?: Date | null;
};

export type CheckedFile = { fileName: string; mimeType: string; bytes: Buffer };

/** Checks the written fields; `current` is the stored row on an update, so the combined result is judged. */
export function checkDocumentFields(input: DocumentFields, current: CheckedFields | null): CheckedFields {
  const errors: FieldError[] = [];
  const out: CheckedFields = {};
  const creating = current === null;
  if (input.documentType !== undefined) {
    if (input.documentType === null) errors.push({ field: "documentType", code: "required", message: "documentType cannot be cleared." });
    else out.documentType = input.documentType;
  } else if (creating) errors.push({ field: "documentType", code: "required", message: "documentType is required." });

  if (input.documentNumber != null) {
    const v = String(input.documentNumber).trim();
    // the message never repeats the value: document numbers are PII
    if (!/^[A-Za-z0-9][A-Za-z0-9 ./-]{0,62}[A-Za-z0-9]$|^[A-Za-z0-9]$/.test(v))
      errors.push({
        field: "documentNumber",
        code: "invalid",
        message: "documentNumber must be 1 to 64 letters or digits (spaces, '-', '/', '.' allowed inside).",
      });
    else out.documentNumber = v;
  } else if (input.documentNumber === null) out.documentNumber = null;

  if (input.issuingCountry != null) {
    const alpha2 = toAlpha2(String(input.issuingCountry));
    if (alpha2) out.issuingCountry = alpha2;
    else errors.push({ field: "issuingCountry", code: "invalid", message: "issuingCountry must be an ISO 3166-1 alpha-2 or alpha-3 country code." });
  } else if (input.issuingCountry === null) out.issuingCountry = null;

  for (const field of ["issueDate", "expiryDate"] as const) {
    const value = input[field];
    if (value === null) out[field] = null;
    else if (value !== undefined) {
      const date = parseIsoDate(value);
      if (date) out[field] = date;
      else errors.push({ field, code: "invalid", message: `${field} must be a real date written YYYY-MM-DD.` });
    }
  }
  if (errors.length) throw invalid(errors);

  const merged = { ...current, ...out };
  if (merged.issueDate && merged.issueDate.getTime() > Date.now())
    errors.push({ field: "issueDate", code: "invalid", message: "issueDate cannot be in the future." });
  if (merged.issueDate && merged.expiryDate && merged.expiryDate.getTime() <= merged.issueDate.getTime())
    errors.push({ field: "expiryDate", code: "invalid", message: "expiryDate must be after issueDate." });
  if (merged.documentType && IDENTITY_TYPES.has(merged.documentType)) {
    if (!merged.documentNumber) errors.push({ field: "documentNumber", code: "required", message: `documentNumber is required for a ${merged.documentType}.` });
    if (!merged.issuingCountry) errors.push({ field: "issuingCountry", code: "required", message: `issuingCountry is required for a ${merged.documentType}.` });
  }
  if (errors.length) throw invalid(errors);
  return out;
}

/** The file's bytes, size-checked before decoding, typed by their content. */
export async function checkFile(file: FileInput): Promise<CheckedFile> {
  const given = [file.contentBase64 != null, file.upload != null].filter(Boolean).length;
  if (given !== 1)
    throw invalid([
      { field: "file", code: "required", message: "Send the file either as file.contentBase64 or as a multipart file part in file.upload, not both." },
    ]);
  let bytes: Buffer;
  let fileName = file.fileName?.trim() || null;
  if (file.upload) {
    if (file.upload.size > MAX_DOCUMENT_BYTES) throw tooLarge();
    // yoga's multipart parser hands over the part's own Buffer as its "ArrayBuffer": Buffer.from would copy it
    const content = await file.upload.arrayBuffer();
    bytes = Buffer.isBuffer(content) ? content : Buffer.from(content);
    fileName ??= file.upload.name;
  } else {
    const text = file.contentBase64!.replace(/\s+/g, "");
    if (Math.floor(text.length / 4) * 3 > MAX_DOCUMENT_BYTES + 2) throw tooLarge();
    if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text))
      throw invalid([{ field: "file.contentBase64", code: "invalid", message: "file.contentBase64 must be standard base64 (RFC 4648 section 4)." }]);
    bytes = Buffer.from(text, "base64");
  }
  if (bytes.length > MAX_DOCUMENT_BYTES) throw tooLarge();
  if (bytes.length === 0) throw invalid([{ field: "file", code: "empty", message: "The file is empty." }]);
  const detected = (await fileTypeFromBuffer(bytes))?.mime;
  if (!detected || !(ACCEPTED_MIME_TYPES as readonly string[]).includes(detected))
    throw new DomainError("UNSUPPORTED_MEDIA_TYPE", "The file is not a PDF, JPEG or PNG (judged by its content).");
  const declared = (file.mimeType ?? file.upload?.type ?? "").split(";")[0].trim().toLowerCase().replace("image/jpg", "image/jpeg");
  if (declared && declared !== "application/octet-stream" && declared !== detected)
    throw new DomainError(
      "UNSUPPORTED_MEDIA_TYPE",
      `The file's content is ${detected}, not ${declared.slice(0, 100)} as declared; send the right mime_type or leave it out.`,
    );
  return { fileName: cleanFileName(fileName, detected), mimeType: detected, bytes };
}

const tooLarge = () => new DomainError("PAYLOAD_TOO_LARGE", `The file is larger than ${MAX_DOCUMENT_BYTES} bytes (10 MiB).`);

const EXTENSIONS: Record<string, string> = { "application/pdf": "pdf", "image/jpeg": "jpg", "image/png": "png" };

/** A base name without folders or control characters, at most 255 characters. */
function cleanFileName(name: string | null, mimeType: string) {
  // eslint-disable-next-line no-control-regex
  const base = (name ?? "")
    .split(/[\\/]/)
    .pop()!
    .replace(/[\u0000-\u001f\u007f"]/g, "")
    .trim()
    .slice(0, 255);
  return base || `document.${EXTENSIONS[mimeType]}`;
}

/** A document past its expiry date reads EXPIRED (derived on read, so it needs no job); DELETED and INVALID are stored. */
export type DocumentStatusValue = "ACTIVE" | "EXPIRED" | "DELETED" | "INVALID";
export function documentStatus(row: { status: DocumentStatusValue; expiryDate: Date | null }, now = new Date()): DocumentStatusValue {
  if (row.status !== "ACTIVE") return row.status;
  // valid through its expiry date, expired from the next day (UTC)
  return row.expiryDate && row.expiryDate.toISOString().slice(0, 10) < now.toISOString().slice(0, 10) ? "EXPIRED" : "ACTIVE";
}

/** The last four letters or digits of a document number, which is all that is ever shown. */
export const lastFour = (documentNumber: string) => documentNumber.replace(/[^A-Za-z0-9]/g, "").slice(-4);

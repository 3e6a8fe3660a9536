/**
 * The kinds of identity document the service knows: the documents module stores them, compliance rule
 * sets and corridor requirements ask for them by these names.
 */
export const DOCUMENT_TYPES = ["PASSPORT", "NATIONAL_ID", "DRIVING_LICENSE", "RESIDENCE_PERMIT", "PROOF_OF_ADDRESS", "SELFIE", "OTHER"] as const;
export type DocumentTypeValue = (typeof DOCUMENT_TYPES)[number];

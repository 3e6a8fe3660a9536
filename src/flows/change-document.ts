/**
 * A document uploaded, replaced or deleted (POST, PUT, DELETE /v2/documents…): the documents module
 * keeps the row and its bytes, and in the same write the user's KYC runs again on what it now holds.
 */
import type { RequestContext } from "../context.js";
import { enqueueChecks } from "../domains/checks/checks.store.js";
import * as documents from "../domains/documents/documents.service.js";

type Selection = Parameters<typeof documents.getDocument>[2];

/** A document's change calls for the user's KYC again. */
const kycAgain: documents.FollowUp = (write, clientId, { userId }) => enqueueChecks(write, { clientId, userId }, ["KYC"], "DOCUMENT_CHANGED");

export const uploadDocument = (ctx: RequestContext, input: documents.UploadInput, query?: Selection) => documents.uploadDocument(ctx, input, kycAgain, query);

export const updateDocument = (ctx: RequestContext, input: documents.UpdateInput, query?: Selection) => documents.updateDocument(ctx, input, kycAgain, query);

export const deleteDocument = (ctx: RequestContext, id: string, query?: Selection) => documents.deleteDocument(ctx, id, kycAgain, query);

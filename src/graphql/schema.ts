/** Every domain's schema file, imported for its side effects; the only export is the built schema. */
import { builder } from "./builder.js";
import "../domains/clients/clients.schema.js";
import "../domains/users/users.schema.js";
import "../domains/events/events.schema.js";
import "../domains/remittance/remittance.schema.js";
import "../domains/remittance/remittance.payouts.schema.js";
import "../domains/otp/otp.schema.js";
import "../domains/compliance/compliance.schema.js";
import "../domains/checks/checks.schema.js";
import "../domains/documents/documents.schema.js";
import "../domains/wallets/wallets.schema.js";
import "../domains/webhooks/webhooks.schema.js";
import "../domains/reviews/reviews.schema.js";
import "../domains/sandbox/sandbox.schema.js";

export const schema = builder.toSchema({ sortSchema: true });

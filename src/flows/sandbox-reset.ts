/**
 * A sandbox reset (POST /v2/sandbox/reset): every module's rows of the client go, so a test suite
 * starts clean. It is the one use case that deletes across every module's tables, in one write.
 */
import type { RequestContext } from "../context.js";
import { tenantOf } from "../context.js";
import { sandboxClient } from "../domains/sandbox/sandbox.service.js";

/** Deleted in this order (what refers to a row goes before it), all of the client's. */
const RESET = [
  `delete from cards where client_id = $1::uuid`,
  `delete from wallets where client_id = $1::uuid`,
  `delete from document_blobs where key in (select storage_key from documents where client_id = $1::uuid)`,
  `delete from documents where client_id = $1::uuid`,
  `delete from otp_codes where client_id = $1::uuid`,
  `delete from sandbox_messages where client_id = $1::uuid`,
  // check runs, reviews and their hits go with their users
  `delete from users where client_id = $1::uuid`,
  `delete from events where client_id = $1::uuid`,
  `delete from idempotency_keys where client_id = $1::uuid`,
];

/**
 * Deletes the sandbox client's users and all they hold (documents and their bytes, check runs,
 * reviews, wallets, codes, sandbox messages) and its events, in one transaction. Its keys, reviewers,
 * webhook endpoints and the audit trail stay: configuration and the record of what was done.
 */
export async function resetSandbox(ctx: RequestContext) {
  const clientId = sandboxClient(ctx);
  const users = await ctx.transact(ctx, async (write) => {
    const count = await write.tx.user.count({ where: { clientId: tenantOf(ctx) } });
    for (const statement of RESET) await write.tx.$executeRawUnsafe(statement, clientId);
    write.audit({ action: "sandbox.reset", targetType: "api_client", targetId: clientId });
    return count;
  });
  await ctx.documentStore.sweep(); // document files no row refers to any more
  return { deletedUsers: users };
}

/**
 * Confirming a pending contact change (PUT /v2/users/verify/otp): the code sent to the pending email
 * or phone is checked (otp), the pending value becomes the user's verified one (users), and the
 * checks that contact feeds run again (checks), in the code's one write.
 */
import type { RequestContext } from "../context.js";
import { tenantOf } from "../context.js";
import { checksForChange } from "../domains/checks/checks.rules.js";
import { enqueueChecks } from "../domains/checks/checks.store.js";
import { checkCode, type VerifyInput } from "../domains/otp/otp.service.js";
import { applyPendingContact, type Selection } from "../domains/users/users.service.js";

export function confirmContactChange(ctx: RequestContext, input: VerifyInput, query?: Selection) {
  return checkCode(ctx, input, "pending", async (write, userId) => {
    const { user, changed } = await applyPendingContact(write, ctx, userId, input.channel, query);
    await enqueueChecks(write, { clientId: tenantOf(ctx), userId }, checksForChange(changed), "USER_UPDATED");
    return user;
  });
}

/**
 * A partial update of a user (PUT /v2/users/{user_id}, updateUser): the users module changes the row
 * (ETag, status move, a verified contact held as pending), and only what really changed calls for
 * checks: a PUT resending the same name screens nobody again. One write.
 */
import type { RequestContext } from "../context.js";
import { tenantOf } from "../context.js";
import { checksForChange } from "../domains/checks/checks.rules.js";
import { enqueueChecks } from "../domains/checks/checks.store.js";
import type { UserInput } from "../domains/users/users.rules.js";
import { changeUser, uniqueViolation, type Selection } from "../domains/users/users.service.js";

export function updateUser(ctx: RequestContext, input: UserInput & { id: string; ifMatch?: string | null }, query?: Selection) {
  return ctx
    .transact(ctx, async (write) => {
      const { user, changed } = await changeUser(write, ctx, input, query);
      await enqueueChecks(write, { clientId: tenantOf(ctx), userId: input.id }, checksForChange(changed), "USER_UPDATED");
      return user;
    })
    .catch(uniqueViolation);
}

/**
 * A sign-up (POST /v2/users, createUser) as one statement: the user row and its audit entry (users),
 * its three queued check runs and their job (checks) go to the database together (platform/write.ts
 * `oneStatement`), and the answer is made of what the statement returns plus the runs it queued. A
 * GraphQL selection beyond the REST body is read once committed. A clash on email or external id is
 * the unique index's, answered 409 naming the field.
 */
import type { RequestContext } from "../context.js";
import { tenantOf } from "../context.js";
import { CHECK_TYPES } from "../domains/checks/checks.rules.js";
import { queueFreshChecks } from "../domains/checks/checks.store.js";
import { readUserById, statementCovers } from "../domains/users/users.reads.js";
import type { UserInput } from "../domains/users/users.rules.js";
import { newUserColumns, uniqueViolation, withBase, type Selection } from "../domains/users/users.service.js";
import { newUser, withRuns } from "../domains/users/users.signup.js";

export async function signUp(ctx: RequestContext, input: UserInput, query?: Selection) {
  const clientId = tenantOf(ctx);
  const { columns, changedFields } = newUserColumns(ctx, input);
  const selection = withBase(query);
  const created = await ctx.transact
    .oneStatement(ctx, (effects) => {
      const user = newUser({ clientId, columns, changedFields }, effects);
      const runs = queueFreshChecks(effects, { clientId, userId: user.id }, CHECK_TYPES, "USER_UPDATED");
      return {
        statement: user.statement,
        answer: ([row]: Record<string, unknown>[]) => ({ id: user.id, user: statementCovers(selection) ? withRuns(row!.user as string, runs) : null }),
      };
    })
    .catch(uniqueViolation);
  return (created.user ?? (await readUserById(ctx.db, clientId, created.id, selection)))!;
}

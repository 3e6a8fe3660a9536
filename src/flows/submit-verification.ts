/**
 * Verification (POST /v2/users/verify, submitVerification): a user with nothing
 * currently due (compliance) moves to IN_REVIEW (users) and gets a queued run of each check type
 * (checks), in one write; run-checks.ts works the runs.
 */
import type { RequestContext } from "../context.js";
import { tenantOf } from "../context.js";
import { DomainError } from "../lib/errors.js";
import { CHECK_TYPES } from "../domains/checks/checks.rules.js";
import { enqueueChecks } from "../domains/checks/checks.store.js";
import { dueAsFieldErrors } from "../domains/compliance/compliance.rules.js";
import { REQUIREMENT_COLUMNS, requirementsOf } from "../domains/compliance/compliance.service.js";
import { checkStatusMove } from "../domains/users/users.rules.js";
import { getUser } from "../domains/users/users.service.js";
import { userStateOf } from "../domains/users/users.store.js";

export async function submitVerification(ctx: RequestContext, userId: string) {
  const clientId = tenantOf(ctx);
  const user = await getUser(ctx, userId, { select: { ...REQUIREMENT_COLUMNS, id: true, status: true, version: true } });
  // requirements are read before the transaction: on PGlite a read outside an open transaction would wait for it
  const requirements = await requirementsOf(ctx, user, ctx.now());
  if (requirements.currentlyDue.length)
    throw new DomainError(
      "REQUIREMENTS_DUE",
      `Verification needs what is still due: ${requirements.currentlyDue.join(", ")}.`,
      dueAsFieldErrors(requirements.rules, requirements),
      { currentlyDue: requirements.currentlyDue },
    );
  if (user.status === "IN_REVIEW") throw new DomainError("INVALID_STATE_TRANSITION", "The user is already IN_REVIEW: wait for its checks to complete.");
  checkStatusMove(user.status, "IN_REVIEW", { byCaller: false });
  return ctx.transact(ctx, async (write) => {
    const { tx, audit, emit } = write;
    // the version read above: a change in between (new data, another submission) must be verified afresh
    await tx.user
      .update({ where: { id: user.id, version: user.version }, data: { status: "IN_REVIEW", kycStatus: "PENDING", version: { increment: 1 } } })
      .catch((error: { code?: string }) => {
        if (error?.code === "P2025") throw new DomainError("CONFLICT", "The user changed while verification was being submitted: read it again and retry.");
        throw error;
      });
    const checks = await enqueueChecks(write, { clientId, userId: user.id }, CHECK_TYPES, "VERIFICATION");
    audit({ action: "user.verification_submitted", targetType: "user", targetId: user.id, changedFields: ["status", "kycStatus"] });
    emit("user.status.updated", clientId, { userId: user.id, status: "IN_REVIEW", previousStatus: user.status, user: await userStateOf(tx, user.id) });
    return { userId: user.id, status: "IN_REVIEW" as const, checks };
  });
}

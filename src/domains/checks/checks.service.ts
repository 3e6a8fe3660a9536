/**
 * Check runs of a client's users, and verification (SPEC 5): a user with nothing currently due moves
 * to IN_REVIEW and gets one QUEUED run per check type. The engine that runs them is not here.
 */
import type { Prisma } from "../../../generated/prisma/client.js";
import type { RequestContext } from "../../context.js";
import { tenantOf } from "../../context.js";
import { withTransaction } from "../../db/transaction.js";
import { DomainError } from "../../lib/errors.js";
import { dueAsFieldErrors } from "../compliance/compliance.rules.js";
import { REQUIREMENT_COLUMNS, requirementsOf } from "../compliance/compliance.service.js";
import { checkStatusMove } from "../users/users.rules.js";
import { getUser } from "../users/users.service.js";
import { CHECK_TYPES } from "./checks.rules.js";

type Selection = { select?: Prisma.CheckRunSelect; include?: Prisma.CheckRunInclude };

/** A user's runs, newest first; another client's user is 404. */
export function findChecks(ctx: RequestContext, userId: string, query?: Selection) {
  const owned = getUser(ctx, userId, { select: { id: true } });
  owned.catch(() => {}); // awaited below; a list refused for its paging arguments never reaches it
  const where = { userId, clientId: tenantOf(ctx) };
  return {
    count: async () => { await owned; return ctx.db.checkRun.count({ where }); },
    page: async ({ offset, limit }: { offset: number; limit: number }) => {
      await owned;
      return ctx.db.checkRun.findMany({ ...query, where, orderBy: [{ createdAt: "desc" }, { id: "desc" }], skip: offset, take: limit });
    },
  };
}

export async function submitVerification(ctx: RequestContext, userId: string) {
  const clientId = tenantOf(ctx);
  const user = await getUser(ctx, userId, { select: { ...REQUIREMENT_COLUMNS, id: true, status: true, version: true } });
  // requirements are read before the transaction: on PGlite a read outside an open transaction would wait for it
  const requirements = await requirementsOf(ctx, user);
  if (requirements.currentlyDue.length)
    throw new DomainError("REQUIREMENTS_DUE", `Verification needs what is still due: ${requirements.currentlyDue.join(", ")}.`,
      dueAsFieldErrors(requirements.rules, requirements), { currentlyDue: requirements.currentlyDue });
  if (user.status === "IN_REVIEW") throw new DomainError("INVALID_STATE_TRANSITION", "The user is already IN_REVIEW: wait for its checks to complete.");
  checkStatusMove(user.status, "IN_REVIEW", { byCaller: false });
  return withTransaction(ctx.db, ctx, async ({ tx, audit, emit }) => {
    // the version read above: a change in between (new data, another submission) must be verified afresh
    await tx.user.update({ where: { id: user.id, version: user.version }, data: { status: "IN_REVIEW", kycStatus: "PENDING", version: { increment: 1 } } })
      .catch((error: { code?: string }) => {
        if (error?.code === "P2025") throw new DomainError("CONFLICT", "The user changed while verification was being submitted: read it again and retry.");
        throw error;
      });
    const checks = await tx.checkRun.createManyAndReturn({
      data: CHECK_TYPES.map((type) => ({ clientId, userId: user.id, type, trigger: "VERIFICATION" as const })),
    });
    await audit({ action: "user.verification_submitted", targetType: "user", targetId: user.id, changedFields: ["status", "kycStatus"] });
    emit("user.status.updated", clientId, { userId: user.id, status: "IN_REVIEW", previousStatus: user.status });
    return { userId: user.id, status: "IN_REVIEW" as const, checks };
  });
}

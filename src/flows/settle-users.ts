/**
 * Settling users after their runs completed, inside the write that completed them: each user's
 * status, kyc_status, risk_level and risk_score move by the verdict on each check type, the runs'
 * events and the user's go out through the outbox with the change, and a run that calls for a person
 * opens a review. Called by every write that completes runs: the check job (run-checks.ts), a posted
 * result, a review's decision, the sandbox's simulated results.
 */
import type { CheckRun } from "../../generated/prisma/client.js";
import type { Write } from "../platform/write.js";
import { assessByType, CHECK_EVENT, riskOf, statusAfterChecks, type Assessment } from "../domains/checks/checks.rules.js";
import { assessedRunsOf, checkView, insertCompletedRun, type AssessedRun } from "../domains/checks/checks.store.js";
import { openReviews } from "../domains/reviews/reviews.opening.js";
import { checkStatusMove } from "../domains/users/users.rules.js";
import { lockedUserStates, moveUsers, screenedPeople, userView, type UserState } from "../domains/users/users.store.js";

/**
 * After runs completed (inside their write): moves each of their users by the verdict on each type
 * (a standing decision by a person or a provider holds against later automatic runs) and raises each
 * run's event, then user.status.updated / user.risk_level.updated for what moved. Three statements
 * however many users: their state under lock, their assessed runs, the moves.
 */
export async function settleUsers(write: Write, done: CheckRun[]): Promise<Map<string, UserState>> {
  const { tx } = write;
  const ids = [...new Set(done.map((run) => run.userId))];
  // the rows are locked as they are read: a verification or a closing committed meanwhile is seen, never overwritten
  const users = await lockedUserStates(tx, ids);
  const assessedRuns = await assessedRunsOf(tx, ids);
  const settled = new Map<string, UserState>();
  const moves: UserState[] = [];
  for (const id of ids) {
    const user = users.find((u) => u.id === id);
    if (!user) throw new Error(`user ${id} of completed runs is gone`);
    const ownDone = done.filter((run) => run.userId === id);
    const assessed = [...assessByType(assessedRuns.filter((run) => run.userId === id)).values()];
    const after = settlementOf(user, assessed, ownDone, write.now(user.clientId));
    if (after !== user) moves.push(after);
    raiseSettled(write, user, after, ownDone);
    settled.set(id, after);
  }
  await moveUsers(tx, moves);
  // a run a newer one of its type replaces (queued after it, or done since) calls for no person: the newer run will say
  const current = (run: CheckRun) => !assessedRuns.some((r) => r.userId === run.userId && r.type === run.type && r.createdAt > run.createdAt);
  await openReviews(
    write,
    done.filter(current),
    (id) => settled.get(id)!.status,
    (ids) => screenedPeople(tx, ids),
  );
  return settled;
}

/** The user after its runs: `user` itself when nothing moves. */
function settlementOf(user: UserState, assessed: Assessment<AssessedRun>[], done: CheckRun[], now: Date): UserState {
  const risk = riskOf(assessed.flatMap((a) => a.weighed));
  const byPerson = done.some((run) => run.decidedBy === "OPERATOR");
  const move = statusAfterChecks(user.status as never, new Map(assessed.map((a) => [a.verdict.type, a.verdict])), { byPerson });
  const after = { ...user };
  if (risk) Object.assign(after, risk);
  if (move) after.kycStatus = move.kycStatus;
  if (move && move.status !== user.status) {
    checkStatusMove(user.status as never, move.status, { byCaller: false, byPerson });
    after.status = move.status;
  }
  // a status or kyc_status move is a new version of the user (ETag); a new risk score is an assessment,
  // like risk_assessment_status and requirements: it does not void the ETag a caller holds for its data
  const moved = after.status !== user.status || after.kycStatus !== user.kycStatus;
  if (!moved && after.riskScore === user.riskScore && after.riskLevel === user.riskLevel) return user;
  return moved ? { ...after, version: user.version + 1, updatedAt: now } : after;
}

/** The audit entry and events of one user's settlement. */
function raiseSettled(write: Write, user: UserState, after: UserState, done: CheckRun[]) {
  const { emit, audit } = write;
  const changed = (["status", "kycStatus", "riskLevel", "riskScore"] as const).filter((field) => after[field] !== user[field]);
  if (changed.length) audit({ action: "user.risk_assessed", targetType: "user", targetId: user.id, changedFields: changed });
  for (const run of done) emit(CHECK_EVENT[run.type], user.clientId, { userId: user.id, check: checkView(run), user: userView(after) });
  if (after.status !== user.status)
    emit("user.status.updated", user.clientId, { userId: user.id, status: after.status, previousStatus: user.status, user: userView(after) });
  if (after.riskLevel !== user.riskLevel)
    emit("user.risk_level.updated", user.clientId, {
      userId: user.id,
      riskLevel: after.riskLevel,
      previousRiskLevel: user.riskLevel,
      riskScore: after.riskScore,
      user: userView(after),
    });
}

/**
 * A result that arrives whole, recorded as a completed run of its own inside the caller's write (a
 * person's decision on a review, an upstream provider's alert), and its user settled as by a posted result.
 */
export async function recordCompletedRun(write: Write, completed: Parameters<typeof insertCompletedRun>[1]): Promise<CheckRun> {
  const run = await insertCompletedRun(write, completed);
  await settleUsers(write, [run]);
  return run;
}

/**
 * The checks module's store: the one place that writes `check_runs`. Runs are queued in the write of
 * the change that calls for them (a queued run of the same type is reused, not duplicated), claimed by
 * the `checks.run` job, and completed with their outcomes; the settlement of their users is a flow
 * (src/flows/settle-users.ts).
 */
import type { CheckRun } from "../../../generated/prisma/client.js";
import type { CheckDecider, CheckTrigger, CheckType } from "../../../generated/prisma/enums.js";
import type { Db } from "../../db/client.js";
import { freshRow, rowInserter } from "../../db/insert-rows.js";
import type { Tx } from "../../db/transaction.js";
import { clientNowSql, clientOffsetSql } from "../../platform/clock.js";
import type { Effects, Write } from "../../platform/write.js";
import type { CheckSubject } from "./checks.providers.js";
import { assessByType, riskOf, type CheckOutcome } from "./checks.rules.js";

/** The job that works queued runs (src/flows/run-checks.ts). */
export const CHECK_RUN_JOB = "checks.run";

const insertRuns = rowInserter<CheckRun>("check_runs", {
  id: "id uuid",
  createdAt: "created_at timestamp(3)",
  clientId: "client_id uuid",
  userId: "user_id uuid",
  type: `type "CheckType"`,
  trigger: `trigger "CheckTrigger"`,
  status: `status "CheckStatus"`,
  result: "result jsonb",
  decidedBy: `decided_by "CheckDecider"`,
  startedAt: "started_at timestamp(3)",
  completedAt: "completed_at timestamp(3)",
});

/**
 * Queues runs of `types` for a user inside the caller's write, reusing a queued run of the same type
 * (it takes the newest trigger: the latest reason it will run for). The reuse is an UPDATE of that
 * row: if a worker claimed it meanwhile (QUEUED → RUNNING), the update finds nothing and a new run is
 * queued, so a change is never judged on data read before it. One statement of its own (the reuse);
 * the new runs and their job go with the write's other effects.
 */
export async function enqueueChecks(
  write: Write,
  target: { clientId: string; userId: string },
  types: readonly CheckType[],
  trigger: CheckTrigger,
  at?: Date,
): Promise<CheckRun[]> {
  if (!types.length) return [];
  const reused = await write.tx.checkRun.updateManyAndReturn({
    where: { userId: target.userId, type: { in: [...types] }, status: "QUEUED" },
    data: { trigger },
  });
  const created = queueFreshChecks(
    write,
    target,
    types.filter((type) => !reused.some((run) => run.type === type)),
    trigger,
    at,
  );
  return types.map((type) => (reused.find((run) => run.type === type) ?? created.find((run) => run.type === type))!);
}

/**
 * New runs of `types` and their one job, as effects of the write (a user just created has nothing to
 * reuse); queued at `at`, else the writer's time (a sandbox client's clock may run ahead).
 */
export function queueFreshChecks(
  effects: Effects,
  target: { clientId: string; userId: string },
  types: readonly CheckType[],
  trigger: CheckTrigger,
  at = effects.now(target.clientId),
): CheckRun[] {
  const created: CheckRun[] = types.map((type) => ({
    ...freshRow(at),
    ...target,
    type,
    trigger,
    status: "QUEUED",
    result: null,
    decidedBy: null,
    startedAt: null,
    completedAt: null,
  }));
  effects.insert(insertRuns(created));
  // one job for the runs a change queues: worked as one (runChecks), the user settled once
  if (created.length) effects.enqueueMany(CHECK_RUN_JOB, [{ data: { checkIds: created.map((run) => run.id) }, singletonKey: created[0]!.id }]);
  return created;
}

/** A run as events and webhooks show it (REST names). */
export const checkView = (run: CheckRun) => ({
  check_id: run.id,
  type: run.type,
  status: run.status,
  trigger: run.trigger,
  result: run.result,
  decided_by: run.decidedBy,
  created_at: run.createdAt.toISOString(),
  completed_at: run.completedAt?.toISOString() ?? null,
});

/**
 * The runs a settlement weighs, in one statement for every user settled: the latest of each type by
 * each decider, which hold each type's latest run, latest completed run and standing decision
 * (ASSESSED_CHECKS, with the result for the score); a decision stays in reach however many runs came after it.
 */
const ASSESSED_RUNS = `select distinct on (user_id, type, decided_by) user_id::text as "userId", id::text, type::text, status::text, result, decided_by::text as "decidedBy",
  created_at as "createdAt", completed_at as "completedAt" from check_runs where user_id = any($1::uuid[]) order by user_id, type, decided_by, created_at desc`;
export type AssessedRun = Pick<CheckRun, "userId" | "id" | "type" | "status" | "result" | "decidedBy" | "createdAt" | "completedAt">;

/** The runs a settlement weighs of `userIds` (ASSESSED_RUNS), in one statement. */
export const assessedRunsOf = (tx: Tx, userIds: string[]) => tx.$queryRawUnsafe<AssessedRun[]>(ASSESSED_RUNS, userIds);

/**
 * Per user, the latest result an upstream system posted on transaction monitoring, when it is an
 * alert (not CLEAR): one statement for every user. A reviewer's decision on the alert closes it as an
 * upstream CLEAR does.
 */
const OPEN_ALERTS = `select distinct on (user_id) user_id::text as "userId", status::text, result from check_runs
  where user_id = any($1::uuid[]) and type = 'TRANSACTION_MONITORING' and result ->> 'provider' in ('upstream', 'review')
  order by user_id, completed_at desc nulls last`;
export async function openAlerts(db: Db, userIds: string[]): Promise<Map<string, CheckSubject["openAlert"]>> {
  const alerts = new Map<string, CheckSubject["openAlert"]>();
  if (!userIds.length) return alerts;
  for (const posted of await db.$queryRawUnsafe<{ userId: string; status: string; result: { reasons?: string[] } | null }[]>(OPEN_ALERTS, userIds))
    if (posted.status !== "CLEAR") alerts.set(posted.userId, { status: posted.status as CheckOutcome["status"], reasons: posted.result?.reasons ?? [] });
  return alerts;
}

/**
 * Claims runs still to work (QUEUED or, after a crash, RUNNING → RUNNING); one statement. It reads
 * each run's sandbox clock once: the claim's stamp, the provider's "now" and the completion all
 * follow that reading.
 */
const CLAIM_RUNS = `update check_runs set status = 'RUNNING', started_at = ${clientNowSql("check_runs", "$2::timestamp(3)")}
  where id = any($1::uuid[]) and status in ('QUEUED', 'RUNNING')
  returning id::text, client_id::text as "clientId", user_id::text as "userId", type::text, status::text, trigger::text, result,
    decided_by::text as "decidedBy", created_at as "createdAt", started_at as "startedAt", completed_at as "completedAt",
    ${clientOffsetSql("check_runs")} as "clockAheadSeconds"`;
export type ClaimedRun = CheckRun & { clockAheadSeconds: number };

/** Claims the runs of `checkIds` still to work (CLAIM_RUNS), stamped at each client's time. */
export const claimRuns = (db: Db, checkIds: string[]) => db.$queryRawUnsafe<ClaimedRun[]>(CLAIM_RUNS, checkIds, new Date().toISOString());

/**
 * Each outcome recorded on its run if the run is still in one of `from`, in one statement for all the
 * runs; answers the runs as Prisma reads them.
 */
const RECORD_OUTCOMES = `update check_runs c set status = o.status, result = o.result, decided_by = $3::"CheckDecider", completed_at = o.completed_at
  from jsonb_to_recordset($1::jsonb) as o(id uuid, status "CheckStatus", result jsonb, completed_at timestamp(3))
  where c.id = o.id and c.status::text = any($2::text[])
  returning c.id::text, c.client_id::text as "clientId", c.user_id::text as "userId", c.type::text, c.status::text, c.trigger::text, c.result,
    c.decided_by::text as "decidedBy", c.created_at as "createdAt", c.started_at as "startedAt", c.completed_at as "completedAt"`;

/** An outcome to record on a run, completed at its client's time. */
export type RecordedOutcome = { id: string; status: CheckRun["status"]; result: object; completed_at: Date };

/** Records each outcome on its run if the run is still in one of `from` (RECORD_OUTCOMES); answers the runs changed. */
export const recordOutcomes = (tx: Tx, outcomes: RecordedOutcome[], from: CheckRun["status"][], decidedBy: CheckDecider) =>
  tx.$queryRawUnsafe<CheckRun[]>(RECORD_OUTCOMES, JSON.stringify(outcomes), from, decidedBy);

/**
 * A result that arrives whole, as a completed run of its own inside the caller's write: a person's
 * decision on a review (trigger REVIEW, OPERATOR; the run reviewed keeps what the provider found) or
 * an upstream provider's alert (PROVIDER). Its user is to be settled by the caller.
 */
export async function insertCompletedRun(
  write: Write,
  completed: { clientId: string; userId: string; type: CheckRun["type"]; trigger: CheckTrigger; decidedBy: CheckDecider; outcome: CheckOutcome },
): Promise<CheckRun> {
  const now = write.now(completed.clientId);
  const { status, ...result } = completed.outcome;
  const run = await write.tx.checkRun.create({
    data: {
      clientId: completed.clientId,
      userId: completed.userId,
      type: completed.type,
      trigger: completed.trigger,
      status,
      result: result as object,
      decidedBy: completed.decidedBy,
      createdAt: now,
      startedAt: now,
      completedAt: now,
    },
  });
  write.audit({ action: "check.completed", targetType: "check", targetId: run.id, changedFields: ["status", "result"] });
  return run;
}

/**
 * The user's risk level from every check type but `type`: what a person deciding on `type` must weigh
 * beside it (a review's own finding makes the user HIGH by itself).
 */
export async function riskApartFrom(tx: Tx, userId: string, type: CheckRun["type"]) {
  const runs = await assessedRunsOf(tx, [userId]);
  const others = [...assessByType(runs).values()].filter((a) => a.verdict.type !== type);
  return riskOf(others.flatMap((a) => a.weighed))?.riskLevel ?? null;
}

/** The status of each of the runs `ids`. */
export async function runStatuses(tx: Tx, ids: string[]) {
  const runs = await tx.checkRun.findMany({ where: { id: { in: [...new Set(ids)] } }, select: { id: true, status: true } });
  return new Map(runs.map((run) => [run.id, run.status]));
}

/** The statuses of a user's runs of `type`: the one that opened a review (`checkRunId`) and every automatic one since `createdAt`. */
export async function automaticRunStatusesSince(tx: Tx, since: { userId: string; type: CheckType; checkRunId: string; createdAt: Date }) {
  const runs = await tx.checkRun.findMany({
    where: {
      userId: since.userId,
      type: since.type,
      OR: [{ id: since.checkRunId }, { completedAt: { gte: since.createdAt }, decidedBy: { not: "OPERATOR" } }],
    },
    select: { status: true },
  });
  return runs.map((run) => run.status);
}

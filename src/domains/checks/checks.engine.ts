/**
 * The check engine: runs are enqueued in the transaction of the change that calls for them
 * (a queued run of the same type is reused, not duplicated), worked by the `checks.run` job, and each
 * completed run settles the user: status, kyc_status, risk_level and risk_score move, and the events
 * go out through the outbox with the change (subscriptions, webhooks).
 */
import type { CheckRun } from "../../../generated/prisma/client.js";
import type { CheckDecider, CheckTrigger, CheckType } from "../../../generated/prisma/enums.js";
import { OPERATOR } from "../../principal.js";
import type { Db } from "../../db/client.js";
import { freshRow, rowInserter } from "../../db/insert-rows.js";
import type { Effects, Write, WriteDeps } from "../events/events.write.js";
import type { Jobs } from "../../jobs/jobs.engine.js";
import type { Logger } from "../../lib/logger.js";
import { REQUIREMENT_COLUMNS } from "../compliance/compliance.service.js";
import { checkStatusMove } from "../users/users.rules.js";
import type { CheckSubject, Providers } from "./checks.providers.js";
import { readUserById } from "../users/users.reads.js";
import { assessByType, CHECK_EVENT, riskOf, statusAfterChecks, type CheckOutcome } from "./checks.rules.js";

export const CHECK_RUN_JOB = "checks.run";

const insertRuns = rowInserter<CheckRun>("check_runs", {
  id: "id uuid", createdAt: "created_at timestamp(3)", clientId: "client_id uuid", userId: "user_id uuid", type: `type "CheckType"`,
  trigger: `trigger "CheckTrigger"`, status: `status "CheckStatus"`, result: "result jsonb", decidedBy: `decided_by "CheckDecider"`, startedAt: "started_at timestamp(3)", completedAt: "completed_at timestamp(3)",
});

/**
 * Queues runs of `types` for a user inside the caller's write, reusing a queued run of the same type
 * (it takes the newest trigger: the latest reason it will run for). The reuse is an UPDATE of that
 * row: if a worker claimed it meanwhile (QUEUED → RUNNING), the update finds nothing and a new run is
 * queued, so a change is never judged on data read before it. One statement of its own (the reuse);
 * the new runs and their job go with the write's other effects.
 */
export async function enqueueChecks(write: Write, target: { clientId: string; userId: string }, types: readonly CheckType[], trigger: CheckTrigger): Promise<CheckRun[]> {
  if (!types.length) return [];
  const reused = await write.tx.checkRun.updateManyAndReturn({ where: { userId: target.userId, type: { in: [...types] }, status: "QUEUED" }, data: { trigger } });
  const created = queueFreshChecks(write, target, types.filter((type) => !reused.some((run) => run.type === type)), trigger);
  return types.map((type) => (reused.find((run) => run.type === type) ?? created.find((run) => run.type === type))!);
}

/** New runs of `types` and their one job, as effects of the write (a user just created has nothing to reuse). */
export function queueFreshChecks(effects: Effects, target: { clientId: string; userId: string }, types: readonly CheckType[], trigger: CheckTrigger): CheckRun[] {
  const created: CheckRun[] = types.map((type) => ({ ...freshRow(), ...target, type, trigger, status: "QUEUED", result: null, decidedBy: null, startedAt: null, completedAt: null }));
  effects.insert(insertRuns(created));
  // one job for the runs a change queues: worked as one (runChecks), the user settled once
  if (created.length) effects.enqueueMany(CHECK_RUN_JOB, [{ data: { checkIds: created.map((run) => run.id) }, singletonKey: created[0]!.id }]);
  return created;
}

/** A run as events and webhooks show it (REST names). */
export const checkView = (run: CheckRun) => ({
  check_id: run.id, type: run.type, status: run.status, trigger: run.trigger, result: run.result, decided_by: run.decidedBy,
  created_at: run.createdAt.toISOString(), completed_at: run.completedAt?.toISOString() ?? null,
});

const USER_STATE = { id: true, clientId: true, externalId: true, status: true, kycStatus: true, riskLevel: true, riskScore: true, version: true, updatedAt: true } as const;
type UserState = { id: string; clientId: string; externalId: string | null; status: string; kycStatus: string; riskLevel: string | null; riskScore: number | null; updatedAt: Date };
/** USER_STATE read under the row's lock, in one statement (Prisma has no FOR UPDATE) */
const LOCKED_USER_STATE = `select id::text, client_id::text as "clientId", external_id as "externalId", status::text, kyc_status::text as "kycStatus",
  risk_level::text as "riskLevel", risk_score as "riskScore", version, updated_at as "updatedAt" from users where id = $1::uuid for update`;

/** The user's state in events: what moved, never personal data (the consumer reads the user for that). */
export const userView = (u: UserState) => ({
  user_id: u.id, external_id: u.externalId, status: u.status, kyc_status: u.kycStatus, risk_level: u.riskLevel, risk_score: u.riskScore, updated_at: u.updatedAt.toISOString(),
});

/** `userView` of the user as the write `tx` sees it. */
export const userStateOf = async (tx: Write["tx"], id: string) => userView(await tx.user.findUniqueOrThrow({ where: { id }, select: USER_STATE }));

/**
 * The runs a settlement weighs, in one statement: the latest of each type by each decider, which
 * hold each type's latest run, latest completed run and standing decision (ASSESSED_CHECKS, with
 * the result for the score); a decision stays in reach however many runs came after it.
 */
const ASSESSED_RUNS = `select distinct on (type, decided_by) id::text, type::text, status::text, result, decided_by::text as "decidedBy",
  created_at as "createdAt", completed_at as "completedAt" from check_runs where user_id = $1::uuid order by type, decided_by, created_at desc`;
type AssessedRun = Pick<CheckRun, "id" | "type" | "status" | "result" | "decidedBy" | "createdAt" | "completedAt">;

/**
 * After runs of one user completed (inside their write): moves the user by the verdict on each type
 * (a standing decision by a person or a provider holds against later automatic runs) and raises
 * each run's event, then user.status.updated / user.risk_level.updated for what moved.
 */
export async function settleUser(write: Write, done: CheckRun[]) {
  const { tx, emit, audit } = write;
  const { userId, clientId } = done[0]!;
  // the row is locked as it is read: a verification or a closing committed meanwhile is seen, never overwritten
  const [user] = await tx.$queryRawUnsafe<(UserState & { version: number })[]>(LOCKED_USER_STATE, userId);
  if (!user) throw new Error(`user ${userId} of completed runs is gone`);
  const assessed = [...assessByType(await tx.$queryRawUnsafe<AssessedRun[]>(ASSESSED_RUNS, userId)).values()];
  const risk = riskOf(assessed.flatMap((a) => a.weighed));
  const byPerson = done.some((run) => run.decidedBy === "OPERATOR");
  const move = statusAfterChecks(user.status as never, new Map(assessed.map((a) => [a.verdict.type, a.verdict])), { byPerson });
  const data: Record<string, unknown> = {};
  if (risk && (risk.riskScore !== user.riskScore || risk.riskLevel !== user.riskLevel)) Object.assign(data, risk);
  if (move && move.kycStatus !== user.kycStatus) data.kycStatus = move.kycStatus;
  if (move && move.status !== user.status) {
    checkStatusMove(user.status as never, move.status, { byCaller: false, byPerson });
    data.status = move.status;
  }
  // a status or kyc_status move is a new version of the user (ETag); a new risk score is an assessment,
  // like risk_assessment_status and requirements: it does not void the ETag a caller holds for its data
  const moved = "status" in data || "kycStatus" in data;
  const after = Object.keys(data).length
    ? await tx.user.update({ where: { id: user.id }, data: { ...data, ...(moved ? { version: { increment: 1 } } : { updatedAt: user.updatedAt }) }, select: USER_STATE })
    : user;
  if (Object.keys(data).length) audit({ action: "user.risk_assessed", targetType: "user", targetId: user.id, changedFields: Object.keys(data) });
  for (const run of done) emit(CHECK_EVENT[run.type], clientId, { userId: user.id, check: checkView(run), user: userView(after) });
  if (after.status !== user.status) emit("user.status.updated", clientId, { userId: user.id, status: after.status, previousStatus: user.status, user: userView(after) });
  if (after.riskLevel !== user.riskLevel)
    emit("user.risk_level.updated", clientId, { userId: user.id, riskLevel: after.riskLevel, previousRiskLevel: user.riskLevel, riskScore: after.riskScore, user: userView(after) });
  return after;
}

export type CheckEngineDeps = WriteDeps & { logger: Logger; providers: Providers };

const SUBJECT = { ...REQUIREMENT_COLUMNS, id: true } as const;

/** The latest result an upstream system posted on this type, when it is an alert (not CLEAR). */
async function openAlert(db: Db, userId: string, type: CheckType): Promise<CheckSubject["openAlert"]> {
  const posted = await db.checkRun.findFirst({
    where: { userId, type, result: { path: ["provider"], equals: "upstream" } }, orderBy: { completedAt: "desc" }, select: { status: true, result: true },
  });
  if (!posted || posted.status === "CLEAR") return null;
  return { status: posted.status as CheckOutcome["status"], reasons: ((posted.result as { reasons?: string[] } | null)?.reasons ?? []) };
}

/**
 * Works runs of one user (the runs a change queued together): claims them (QUEUED or, after a crash,
 * RUNNING → RUNNING), reads the user once, asks each run's provider, records the outcomes and
 * settles the user once, in one write. A run that completed meanwhile (an upstream result) is left alone.
 */
export async function runChecks(deps: CheckEngineDeps, checkIds: string[], requestId = `job:${checkIds[0]}`) {
  const runs = await deps.db.checkRun.updateManyAndReturn({ where: { id: { in: checkIds }, status: { in: ["QUEUED", "RUNNING"] } }, data: { status: "RUNNING", startedAt: new Date() } });
  if (!runs.length) return null;
  const { clientId, userId } = runs[0]!;
  if (runs.some((run) => run.userId !== userId)) throw new Error("runs of several users worked as one");
  // the user read by id (users.reads.ts): one statement, batched with the reads of concurrent runs
  const subject = await readUserById(deps.db, clientId, userId, { select: SUBJECT });
  if (!subject) return null; // the user was erased with its runs
  const outcomes = await Promise.all(runs.map((run) => outcomeOf(deps, run, subject)));
  return completeRuns(deps, runs.map((run, i) => ({ checkId: run.id, outcome: outcomes[i]! })), { requestId, from: ["RUNNING"], decidedBy: "SYSTEM" });
}

async function outcomeOf(deps: CheckEngineDeps, run: CheckRun, subject: object): Promise<CheckOutcome> {
  try {
    // only monitoring carries upstream alerts forward: the other types need no extra read
    const alert = run.type === "TRANSACTION_MONITORING" ? await openAlert(deps.db, run.userId, run.type) : null;
    return await deps.providers[run.type].run({ ...subject, openAlert: alert } as CheckSubject);
  } catch (error) {
    deps.logger.error({ err: (error as Error).message, checkId: run.id, type: run.type }, "check provider failed");
    return { status: "ERROR", score: 0, reasons: ["provider_error"], matches: [], provider: "engine" };
  }
}

type Completion = { checkId: string; outcome: CheckOutcome };

/**
 * Each outcome recorded on its run if the run is still in one of `from`, in one statement for all the
 * runs of a user (Prisma's updateManyAndReturn is one statement a run); answers the runs as Prisma reads them.
 */
const RECORD_OUTCOMES = `update check_runs c set status = o.status, result = o.result, decided_by = $4::"CheckDecider", completed_at = $2::timestamp(3)
  from jsonb_to_recordset($1::jsonb) as o(id uuid, status "CheckStatus", result jsonb)
  where c.id = o.id and c.status::text = any($3::text[])
  returning c.id::text, c.client_id::text as "clientId", c.user_id::text as "userId", c.type::text, c.status::text, c.trigger::text, c.result,
    c.decided_by::text as "decidedBy", c.created_at as "createdAt", c.started_at as "startedAt", c.completed_at as "completedAt"`;
/** `decidedBy`: who made the outcomes, SYSTEM for a provider's run (a person's or a provider's decision stands: checks.rules.ts) */
type CompleteOptions = { requestId: string; from: CheckRun["status"][]; decidedBy: CheckDecider; principal?: typeof OPERATOR };

/** Records an outcome on a run that is still in one of `from` and settles its user, in one write. */
export async function completeRun(deps: WriteDeps, checkId: string, outcome: CheckOutcome, options: CompleteOptions) {
  const done = await completeRuns(deps, [{ checkId, outcome }], options);
  return done && { run: done.runs[0]!, user: done.user };
}

/** The same for runs of one user: each outcome recorded, the user settled once. */
async function completeRuns(deps: WriteDeps, completions: Completion[], options: CompleteOptions) {
  return deps.transact({ principal: options.principal ?? OPERATOR, requestId: options.requestId }, async (write) => {
    const outcomes = completions.map(({ checkId, outcome: { status, ...result } }) => ({ id: checkId, status, result }));
    const updated = await write.tx.$queryRawUnsafe<CheckRun[]>(RECORD_OUTCOMES, JSON.stringify(outcomes), new Date().toISOString(), options.from, options.decidedBy);
    // in the order the outcomes came, as their events go out
    const runs = completions.flatMap(({ checkId }) => updated.filter((run) => run.id === checkId));
    if (!runs.length) return null;
    write.auditMany(runs.map((run) => ({ action: "check.completed", targetType: "check", targetId: run.id, changedFields: ["status", "result"] })));
    const user = await settleUser(write, runs);
    return { runs, user };
  });
}

/** The `checks.run` queue: at least once (a run's job retried after a crash re-claims its RUNNING run). */
export function defineCheckRunner(deps: CheckEngineDeps & { jobs: Jobs; expireInSeconds?: number }) {
  // `checkId`: a job queued before runs shared one
  return deps.jobs.define<{ checkIds?: string[]; checkId?: string }>({
    name: CHECK_RUN_JOB,
    // a run takes milliseconds (the first screening of a process a few seconds, loading the list): one
    // in hand for longer (CHECK_JOB_EXPIRE_SECONDS, 60 s) belongs to a dead process and runs again
    queue: { policy: "short", retryLimit: 5, retryDelay: 5, retryBackoff: true, expireInSeconds: deps.expireInSeconds ?? 60 },
    eager: true, // a user waits on its checks: start them at commit, not at the next poll
    // each change's runs on their own (a failing job retries alone), four jobs at a time: the runs of
    // one user in several jobs still settle one after another (settleUser locks the user's row)
    each: { concurrency: 4, run: (job) => runChecks(deps, job.data.checkIds ?? [job.data.checkId!]) },
  });
}

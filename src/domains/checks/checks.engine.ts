/**
 * The check engine: runs are enqueued in the transaction of the change that calls for them
 * (a queued run of the same type is reused, not duplicated), worked by the `checks.run` job, and each
 * completed run settles the user: status, kyc_status, risk_level and risk_score move, and the events
 * go out through the outbox with the change (subscriptions, webhooks).
 */
import type { CheckRun } from "../../../generated/prisma/client.js";
import type { CheckDecider, CheckTrigger, CheckType } from "../../../generated/prisma/enums.js";
import { OPERATOR, type Actor } from "../../principal.js";
import type { Db } from "../../db/client.js";
import { freshRow, rowInserter } from "../../db/insert-rows.js";
import { keepingRecord } from "../../db/write-record.js";
import type { Effects, Write, WriteDeps } from "../../platform/write.js";
import type { Jobs } from "../../platform/jobs.js";
import type { Logger } from "../../lib/logger.js";
import { REQUIREMENT_COLUMNS } from "../compliance/compliance.service.js";
import { checkStatusMove } from "../users/users.rules.js";
import type { CheckSubject, Providers } from "./checks.providers.js";
import { readUserById } from "../users/users.reads.js";
import { assessByType, CHECK_EVENT, riskOf, statusAfterChecks, type Assessment, type CheckOutcome } from "./checks.rules.js";
import { openReviews } from "../reviews/reviews.opening.js";
import { suppressedHits } from "../reviews/reviews.suppression.js";
import { clientNowSql, clientOffsetSql, clocksOf } from "../clients/clients.clock.js";

const CHECK_RUN_JOB = "checks.run";

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
const checkView = (run: CheckRun) => ({
  check_id: run.id,
  type: run.type,
  status: run.status,
  trigger: run.trigger,
  result: run.result,
  decided_by: run.decidedBy,
  created_at: run.createdAt.toISOString(),
  completed_at: run.completedAt?.toISOString() ?? null,
});

const USER_STATE = {
  id: true,
  clientId: true,
  externalId: true,
  status: true,
  kycStatus: true,
  riskLevel: true,
  riskScore: true,
  version: true,
  updatedAt: true,
} as const;
type UserState = {
  id: string;
  clientId: string;
  externalId: string | null;
  status: string;
  kycStatus: string;
  riskLevel: string | null;
  riskScore: number | null;
  version: number;
  updatedAt: Date;
};
const USER_STATE_COLUMNS = `id::text, client_id::text as "clientId", external_id as "externalId", status::text, kyc_status::text as "kycStatus",
  risk_level::text as "riskLevel", risk_score as "riskScore", version, updated_at as "updatedAt"`;
/** USER_STATE of several users read under their rows' locks, taken in id order (two settlements never wait on each other in a circle) */
const LOCKED_USERS_STATE = `select ${USER_STATE_COLUMNS} from users where id = any($1::uuid[]) order by id for update`;
/** what a settlement moved, written for every user at once */
const MOVE_USERS = `update users u set status = m.status, kyc_status = m.kyc_status, risk_level = m.risk_level, risk_score = m.risk_score,
  version = m.version, updated_at = m.updated_at
  from jsonb_to_recordset($1::jsonb) as m(id uuid, status "UserStatus", kyc_status "KycStatus", risk_level "RiskLevel", risk_score int, version int, updated_at timestamp(3))
  where u.id = m.id`;

/** The user's state in events: what moved, never personal data (the consumer reads the user for that). */
const userView = (u: Omit<UserState, "version">) => ({
  user_id: u.id,
  external_id: u.externalId,
  status: u.status,
  kyc_status: u.kycStatus,
  risk_level: u.riskLevel,
  risk_score: u.riskScore,
  updated_at: u.updatedAt.toISOString(),
});

/** `userView` of the user as the write `tx` sees it. */
export const userStateOf = async (tx: Write["tx"], id: string) => userView(await tx.user.findUniqueOrThrow({ where: { id }, select: USER_STATE }));

/**
 * The runs a settlement weighs, in one statement for every user settled: the latest of each type by
 * each decider, which hold each type's latest run, latest completed run and standing decision
 * (ASSESSED_CHECKS, with the result for the score); a decision stays in reach however many runs came after it.
 */
const ASSESSED_RUNS = `select distinct on (user_id, type, decided_by) user_id::text as "userId", id::text, type::text, status::text, result, decided_by::text as "decidedBy",
  created_at as "createdAt", completed_at as "completedAt" from check_runs where user_id = any($1::uuid[]) order by user_id, type, decided_by, created_at desc`;
type AssessedRun = Pick<CheckRun, "userId" | "id" | "type" | "status" | "result" | "decidedBy" | "createdAt" | "completedAt">;

/**
 * After runs completed (inside their write): moves each of their users by the verdict on each type
 * (a standing decision by a person or a provider holds against later automatic runs) and raises each
 * run's event, then user.status.updated / user.risk_level.updated for what moved. Three statements
 * however many users: their state under lock, their assessed runs, the moves.
 */
async function settleUsers(write: Write, done: CheckRun[]): Promise<Map<string, UserState>> {
  const { tx } = write;
  const ids = [...new Set(done.map((run) => run.userId))];
  // the rows are locked as they are read: a verification or a closing committed meanwhile is seen, never overwritten
  const users = await tx.$queryRawUnsafe<UserState[]>(LOCKED_USERS_STATE, ids);
  const assessedRuns = await tx.$queryRawUnsafe<AssessedRun[]>(ASSESSED_RUNS, ids);
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
  if (moves.length) {
    const rows = moves.map((u) => ({
      id: u.id,
      status: u.status,
      kyc_status: u.kycStatus,
      risk_level: u.riskLevel,
      risk_score: u.riskScore,
      version: u.version,
      updated_at: u.updatedAt,
    }));
    await tx.$executeRawUnsafe(MOVE_USERS, JSON.stringify(rows));
  }
  // a run a newer one of its type replaces (queued after it, or done since) calls for no person: the newer run will say
  const current = (run: CheckRun) => !assessedRuns.some((r) => r.userId === run.userId && r.type === run.type && r.createdAt > run.createdAt);
  await openReviews(write, done.filter(current), (id) => settled.get(id)!.status);
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

export type CheckEngineDeps = WriteDeps & { logger: Logger; providers: Providers };

/** What a provider is told of a user; the client's mode decides whether the sandbox's magic inputs apply. */
const SUBJECT = { ...REQUIREMENT_COLUMNS, id: true, client: { select: { mode: true } } } as const;

/**
 * Per user, the latest result an upstream system posted on transaction monitoring, when it is an
 * alert (not CLEAR): one statement for every user. A reviewer's decision on the alert closes it as an
 * upstream CLEAR does.
 */
const OPEN_ALERTS = `select distinct on (user_id) user_id::text as "userId", status::text, result from check_runs
  where user_id = any($1::uuid[]) and type = 'TRANSACTION_MONITORING' and result ->> 'provider' in ('upstream', 'review')
  order by user_id, completed_at desc nulls last`;
async function openAlerts(db: Db, userIds: string[]): Promise<Map<string, CheckSubject["openAlert"]>> {
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
type ClaimedRun = CheckRun & { clockAheadSeconds: number };

/**
 * Works queued runs, of one user or of many (the runs of several jobs): claims them, reads their users
 * in one statement, asks each run's provider, records the outcomes and settles every user once, in one
 * write: a fixed number of statements however many users. A run that completed meanwhile (an
 * upstream result) is left alone.
 */
export async function runChecks(deps: CheckEngineDeps, checkIds: string[], requestId = `job:${checkIds[0]}`) {
  const runs = await deps.db.$queryRawUnsafe<ClaimedRun[]>(CLAIM_RUNS, checkIds, new Date().toISOString());
  if (!runs.length) return null;
  const owners = new Map(runs.map((run) => [run.userId, run.clientId]));
  // the users read by id (users.reads.ts): concurrent reads are one statement
  const subjects = new Map(
    await Promise.all([...owners].map(async ([userId, clientId]) => [userId, await readUserById(deps.db, clientId, userId, { select: SUBJECT })] as const)),
  );
  const usersOf = (type: CheckRun["type"]) => runs.filter((run) => run.type === type).map((run) => run.userId);
  const [alerts, suppressed] = await Promise.all([
    openAlerts(deps.db, usersOf("TRANSACTION_MONITORING")),
    suppressedHits(deps.db, usersOf("SANCTIONS_SCREENING")),
  ]);
  // a user erased with its runs meanwhile has nothing left to settle
  const live = runs.filter((run) => subjects.get(run.userId));
  const outcomes: CheckOutcome[] = [];
  const clocks = new Map<string, number>();
  for (const run of live) {
    // read with SUBJECT: the requirement columns and the client's mode
    const { client, ...user } = subjects.get(run.userId)! as unknown as CheckSubject & { client: { mode: string } };
    const ahead = run.clockAheadSeconds * 1000;
    if (ahead) clocks.set(run.clientId, ahead);
    const subject = {
      ...user,
      sandbox: client.mode === "SANDBOX",
      now: new Date(Date.now() + ahead),
      openAlert: alerts.get(run.userId) ?? null,
      suppressedHits: suppressed.get(run.userId),
      trigger: run.trigger,
    };
    outcomes.push(await outcomeOf(deps, run, subject));
    // a provider's work is the process's own CPU (screening): requests are answered between runs, not after a whole batch
    await new Promise((resolve) => setImmediate(resolve));
  }
  return completeRuns(
    deps,
    live.map((run, i) => ({ checkId: run.id, clientId: run.clientId, outcome: outcomes[i]! })),
    { requestId, from: ["RUNNING"], decidedBy: "SYSTEM", clocks },
  );
}

async function outcomeOf(deps: CheckEngineDeps, run: CheckRun, subject: object): Promise<CheckOutcome> {
  try {
    return await deps.providers[run.type].run(subject as CheckSubject);
  } catch (error) {
    deps.logger.error({ err: (error as Error).message, checkId: run.id, type: run.type }, "check provider failed");
    return { status: "ERROR", score: 0, reasons: ["provider_error"], matches: [], provider: "engine" };
  }
}

/** `clientId`: the run's client, whose clock stamps the completion */
type Completion = { checkId: string; clientId: string; outcome: CheckOutcome };

/**
 * Each outcome recorded on its run if the run is still in one of `from`, in one statement for all the
 * runs; answers the runs as Prisma reads them.
 */
const RECORD_OUTCOMES = `update check_runs c set status = o.status, result = o.result, decided_by = $3::"CheckDecider", completed_at = o.completed_at
  from jsonb_to_recordset($1::jsonb) as o(id uuid, status "CheckStatus", result jsonb, completed_at timestamp(3))
  where c.id = o.id and c.status::text = any($2::text[])
  returning c.id::text, c.client_id::text as "clientId", c.user_id::text as "userId", c.type::text, c.status::text, c.trigger::text, c.result,
    c.decided_by::text as "decidedBy", c.created_at as "createdAt", c.started_at as "startedAt", c.completed_at as "completedAt"`;
/** `decidedBy`: who made the outcomes, SYSTEM for a provider's run (a person's or a provider's decision stands: checks.rules.ts) */
type CompleteOptions = { requestId: string; from: CheckRun["status"][]; decidedBy: CheckDecider; principal?: typeof OPERATOR; clocks?: Actor["clocks"] };

/** Records an outcome on a run that is still in one of `from` and settles its user, in one write. */
export async function completeRun(deps: WriteDeps, run: { id: string; clientId: string }, outcome: CheckOutcome, options: CompleteOptions) {
  const done = await completeRuns(deps, [{ checkId: run.id, clientId: run.clientId, outcome }], options);
  return done && { run: done.runs[0]!, user: done.users.get(done.runs[0]!.userId)! };
}

/** The same for many runs: each outcome recorded, each user settled once. */
async function completeRuns(deps: WriteDeps, completions: Completion[], options: CompleteOptions) {
  if (!completions.length) return null;
  // a client's own write follows its principal's clock (platform/write.ts); the operator's names each client's
  const clocks =
    options.clocks
    ?? (options.principal?.kind === "client"
      ? undefined
      : await clocksOf(
          deps.db,
          completions.map((c) => c.clientId),
        ));
  // deps is the request's context when a request completes a run: its Idempotency-Key's record goes along
  const actor = keepingRecord(deps, { principal: options.principal ?? OPERATOR, requestId: options.requestId, clocks });
  return deps.transact(actor, async (write) => {
    const outcomes = completions.map(({ checkId, clientId, outcome: { status, ...result } }) => ({
      id: checkId,
      status,
      result,
      completed_at: write.now(clientId),
    }));
    const updated = await write.tx.$queryRawUnsafe<CheckRun[]>(RECORD_OUTCOMES, JSON.stringify(outcomes), options.from, options.decidedBy);
    // in the order the outcomes came, as their events go out
    const runs = completions.flatMap(({ checkId }) => updated.filter((run) => run.id === checkId));
    if (!runs.length) return null;
    write.auditMany(runs.map((run) => ({ action: "check.completed", targetType: "check", targetId: run.id, changedFields: ["status", "result"] })));
    return { runs, users: await settleUsers(write, runs) };
  });
}

/**
 * A result that arrives whole, as a completed run of its own inside the caller's write: a person's
 * decision on a review (trigger REVIEW, OPERATOR; the run reviewed keeps what the provider found) or
 * an upstream provider's alert (PROVIDER). The user is settled as by a posted result.
 */
export async function recordCompletedRun(
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
  await settleUsers(write, [run]);
  return run;
}

/**
 * The user's risk level from every check type but `type`: what a person deciding on `type` must weigh
 * beside it (a review's own finding makes the user HIGH by itself).
 */
export async function riskApartFrom(tx: Write["tx"], userId: string, type: CheckRun["type"]) {
  const runs = await tx.$queryRawUnsafe<AssessedRun[]>(ASSESSED_RUNS, [userId]);
  const others = [...assessByType(runs).values()].filter((a) => a.verdict.type !== type);
  return riskOf(others.flatMap((a) => a.weighed))?.riskLevel ?? null;
}

const runsOf = (data: { checkIds?: string[]; checkId?: string }) => data.checkIds ?? [data.checkId!];

/** The `checks.run` queue: at least once (a run's job retried after a crash re-claims its RUNNING run). */
export function defineCheckRunner(deps: CheckEngineDeps & { jobs: Jobs; expireInSeconds?: number }) {
  // `checkId`: a job queued before runs shared one
  return deps.jobs.define<{ checkIds?: string[]; checkId?: string }>({
    name: CHECK_RUN_JOB,
    // a run takes milliseconds (the first screening of a process a few seconds, loading the list): one
    // in hand for longer (CHECK_JOB_EXPIRE_SECONDS, 60 s) belongs to a dead process and runs again
    queue: { policy: "short", retryLimit: 5, retryDelay: 5, retryBackoff: true, expireInSeconds: deps.expireInSeconds ?? 60 },
    eager: true, // a user waits on its checks: start them at commit, not at the next poll
    // four units at a time, a unit being one job or the jobs that waited together; runs of one user in
    // several units still settle one after another (settleUsers locks the users' rows)
    each: {
      concurrency: 4,
      run: (job) => runChecks(deps, runsOf(job.data)),
      // a burst's jobs (many users') are settled together: one write, a fixed number of statements
      together: {
        size: 50,
        run: (jobs) =>
          runChecks(
            deps,
            jobs.flatMap((job) => runsOf(job.data)),
          ),
      },
    },
  });
}

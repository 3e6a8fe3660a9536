/**
 * Running checks, the `checks.run` job: queued runs (checks.store.ts queues them in the write of the
 * change that calls for them) are claimed, each is put to its provider with what the user is, and the
 * outcomes are recorded and their users settled (settle-users.ts) in one write, a fixed number of
 * statements however many users. A posted result completes its run the same way (`completeRun`).
 */
import type { CheckRun } from "../../generated/prisma/client.js";
import type { CheckDecider } from "../../generated/prisma/enums.js";
import { OPERATOR, type Actor } from "../principal.js";
import { keepingRecord } from "../db/write-record.js";
import type { WriteDeps } from "../platform/write.js";
import type { Jobs } from "../platform/jobs.js";
import { clocksOf } from "../platform/clock.js";
import type { Logger } from "../lib/logger.js";
import { REQUIREMENT_COLUMNS } from "../domains/compliance/compliance.service.js";
import type { CheckSubject, Providers } from "../domains/checks/checks.providers.js";
import type { CheckOutcome } from "../domains/checks/checks.rules.js";
import { CHECK_RUN_JOB, claimRuns, openAlerts, recordOutcomes } from "../domains/checks/checks.store.js";
import { suppressedHits } from "../domains/reviews/reviews.suppression.js";
import { readUserById } from "../domains/users/users.reads.js";
import { settleUsers } from "./settle-users.js";

export type CheckEngineDeps = WriteDeps & { logger: Logger; providers: Providers };

/** What a provider is told of a user; the client's mode decides whether the sandbox's magic inputs apply. */
const SUBJECT = { ...REQUIREMENT_COLUMNS, id: true, client: { select: { mode: true } } } as const;

/**
 * Works queued runs, of one user or of many (the runs of several jobs): claims them, reads their users
 * in one statement, asks each run's provider, records the outcomes and settles every user once, in one
 * write: a fixed number of statements however many users. A run that completed meanwhile (an
 * upstream result) is left alone.
 */
export async function runChecks(deps: CheckEngineDeps, checkIds: string[], requestId = `job:${checkIds[0]}`) {
  const runs = await claimRuns(deps.db, checkIds);
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
    const updated = await recordOutcomes(write.tx, outcomes, options.from, options.decidedBy);
    // in the order the outcomes came, as their events go out
    const runs = completions.flatMap(({ checkId }) => updated.filter((run) => run.id === checkId));
    if (!runs.length) return null;
    write.auditMany(runs.map((run) => ({ action: "check.completed", targetType: "check", targetId: run.id, changedFields: ["status", "result"] })));
    return { runs, users: await settleUsers(write, runs) };
  });
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

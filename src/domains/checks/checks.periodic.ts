/**
 * Periodic checks: a pass re-screens the users whose latest sanctions screening is older than
 * their rule set's `rescreening_interval_days` (or who have none) and re-evaluates their risk with a
 * fresh transaction-monitoring run. pg-boss's schedule fires one `checks.periodic` job per tick across
 * every instance (its cron sender is a singleton per minute), so one instance runs each pass;
 * `cli checks run-periodic` runs a pass by hand.
 */
import { clocksOf } from "../../platform/clock.js";
import { OPERATOR } from "../../principal.js";
import type { Db } from "../../db/client.js";
import type { Jobs } from "../../platform/jobs.js";
import type { Logger } from "../../lib/logger.js";
import { DEFAULT_COUNTRY, type RuleSetBody } from "../compliance/compliance.rules.js";
import type { WriteDeps } from "../../platform/write.js";
import { enqueueChecks } from "./checks.store.js";

export const PERIODIC_CHECKS_JOB = "checks.periodic";
const PAGE = 500;

/** Each country's interval in days from the rule set in force (DEFAULT for the rest). */
export async function rescreeningIntervals(db: Db, now: Date): Promise<{ byCountry: Record<string, number>; fallback: number }> {
  const rows = await db.complianceRuleSet.findMany({
    where: { effectiveFrom: { lte: now } },
    orderBy: [{ country: "asc" }, { version: "desc" }],
    select: { country: true, body: true },
  });
  const byCountry: Record<string, number> = {};
  for (const row of rows) byCountry[row.country] ??= (row.body as RuleSetBody).rescreening_interval_days;
  return { byCountry, fallback: byCountry[DEFAULT_COUNTRY] ?? 365 };
}

/** One page of due users (ids after `after`, of one client's when `clientId`), oldest screening first within the page's id order. */
export async function findDueUsers(
  db: Db,
  now: Date,
  after: string | null,
  limit = PAGE,
  intervals?: Awaited<ReturnType<typeof rescreeningIntervals>>,
  clientId: string | null = null,
): Promise<{ id: string; clientId: string }[]> {
  const { byCountry, fallback } = intervals ?? (await rescreeningIntervals(db, now));
  return db.$queryRawUnsafe<{ id: string; clientId: string }[]>(
    `select u.id::text as id, u.client_id::text as "clientId" from users u
     where u.status::text not in ('CLOSED', 'REJECTED') and ($4::uuid is null or u.id > $4::uuid) and ($6::uuid is null or u.client_id = $6::uuid)
       and coalesce((select max(c.created_at) from check_runs c where c.user_id = u.id and c.type = 'SANCTIONS_SCREENING'), '-infinity'::timestamp)
           < $1::timestamp - make_interval(days => coalesce(($2::jsonb ->> u.country_of_residence)::int, $3::int))
     order by u.id limit $5`,
    now,
    JSON.stringify(byCountry),
    fallback,
    after,
    limit,
    clientId,
  );
}

export type PeriodicDeps = WriteDeps & { logger: Logger };

/**
 * One pass: queues a screening and a monitoring run (trigger PERIODIC, queued at `now`) for every due
 * user, or every due user of one client (a sandbox client's clock moved: `now` is its time).
 */
export async function runPeriodicChecks(deps: PeriodicDeps, now = new Date(), { clientId = null }: { clientId?: string | null } = {}) {
  let due = 0;
  let after: string | null = null;
  const intervals = await rescreeningIntervals(deps.db, now); // once per pass, not once per page
  for (;;) {
    const users = await findDueUsers(deps.db, now, after, PAGE, intervals, clientId);
    if (!users.length) break;
    // each sandbox client's runs are queued at its own clock's time
    const clocks = await clocksOf(
      deps.db,
      users.map((user) => user.clientId),
    );
    await deps.transact(
      { principal: OPERATOR, requestId: "periodic-checks", clocks },
      async (write) => {
        for (const user of users)
          await enqueueChecks(write, { clientId: user.clientId, userId: user.id }, ["SANCTIONS_SCREENING", "TRANSACTION_MONITORING"], "PERIODIC");
      },
      { timeout: 60_000 },
    );
    due += users.length;
    after = users.at(-1)!.id;
  }
  deps.logger.info({ due }, "periodic checks queued");
  return { due };
}

/** The schedule and its worker; `cron` null removes the schedule (PERIODIC_CHECKS_CRON=off). */
export function definePeriodicChecks(deps: PeriodicDeps & { jobs: Jobs }, cron: string | null) {
  return deps.jobs.define({
    name: PERIODIC_CHECKS_JOB,
    queue: { retryLimit: 2, retryDelay: 60, expireInSeconds: 900 },
    schedule: cron,
    work: async () => {
      await runPeriodicChecks(deps);
    },
  });
}

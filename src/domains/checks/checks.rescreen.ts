/**
 * Re-screening when the list changes. `cli watchlist import` records the import (watchlist_imports:
 * what was added, changed and removed) and queues one `watchlist.rescreen` job in the same write. The
 * job pages through the users (never all in memory), asks the matcher's own retrieval whether each
 * could match one of the added or changed entries (a small list of just those: watchlist-diff.ts),
 * and queues a sanctions screening with trigger LIST_UPDATE for those who could, and for those whose
 * latest screening named an entry that changed or is gone (the new list may clear them). Everyone
 * else's result cannot move: a person is compared only with names retrieval finds for them. The
 * periodic pass (checks.periodic.ts) stays the safety net for anything this misses.
 *
 * Who counts: every user but the CLOSED (no relationship left to protect). A REJECTED user is not
 * re-screened for what an update adds (already refused, as the periodic pass skips them), but is when
 * their latest screening named a changed or removed entry: that entry may have been the reason, and
 * the compliance team must see the new result (a person reinstates a rejected user; a run never does).
 */
import type { Db } from "../../db/client.js";
import type { Jobs, JobSpec } from "../../platform/jobs.js";
import type { Logger } from "../../lib/logger.js";
import { clocksOf } from "../../platform/clock.js";
import { CLI_ACTOR, OPERATOR } from "../../principal.js";
import type { WriteDeps } from "../../platform/write.js";
import { queueFreshChecks } from "./checks.store.js";
import { hasCandidates } from "./screening/screen-person.js";
import type { Watchlist } from "./screening/watchlist.js";
import { entriesList } from "./screening/watchlist-diff.js";
import type { WatchlistImport } from "./screening/watchlist-import.js";

const RESCREEN_JOB = "watchlist.rescreen";
const PAGE = 500;

/**
 * The queue: one re-screen at a time (a second import's waits for the first's), an hour before a job
 * in hand is taken for a dead process's, and retries a few minutes apart (the list not yet in this
 * process's DATA_DIR). Declared by every process that queues it (the CLI too) and worked by the service.
 */
export const RESCREEN_QUEUE = {
  name: RESCREEN_JOB,
  queue: { policy: "singleton", retryLimit: 8, retryDelay: 30, retryBackoff: true, expireInSeconds: 3600 },
} as const satisfies JobSpec;

/** The job: the import's row, and the `ent_num`s it added, changed and removed (a list update's few hundred at most). */
type RescreenJob = { importId: string; added: string[]; changed: string[]; removed: string[] };

/** The import's row and its job, in one write; the counts are the CLI's answer. */
export async function recordWatchlistImport({ transact }: WriteDeps, imported: WatchlistImport) {
  const { added, changed, removed } = imported.diff;
  return transact(CLI_ACTOR, async (write) => {
    const row = await write.tx.watchlistImport.create({
      data: {
        listVersion: imported.version.id,
        previous: imported.previous.id,
        added: added.length,
        changed: changed.length,
        removed: removed.length,
        importedAt: new Date(),
      },
    });
    write.audit({ action: "watchlist.imported", targetType: "watchlist_import", targetId: row.id, changedFields: ["added", "changed", "removed"] });
    write.enqueue(RESCREEN_JOB, { importId: row.id, added, changed, removed } satisfies RescreenJob);
    return row;
  });
}

type Candidate = {
  id: string;
  clientId: string;
  status: string;
  firstName: string | null;
  middleName: string | null;
  lastName: string | null;
  /** the `ent_num`s the user's latest screening by the provider named */
  hits: string[] | null;
  /** a LIST_UPDATE screening was queued for them since the import (an earlier attempt of this job) */
  queued: boolean;
};

/** One page of the users a list update may concern, in id order after `after`, with their latest screening's hits. */
const USERS_PAGE = `select u.id::text as id, u.client_id::text as "clientId", u.status::text as status,
    u.first_name as "firstName", u.middle_name as "middleName", u.last_name as "lastName",
    (select jsonb_path_query_array(c.result, '$.matches[*].entryId') from check_runs c
      where c.user_id = u.id and c.type = 'SANCTIONS_SCREENING' and c.decided_by = 'SYSTEM' and c.result is not null
      order by c.created_at desc limit 1) as hits,
    exists (select 1 from check_runs c where c.user_id = u.id and c.type = 'SANCTIONS_SCREENING' and c.trigger = 'LIST_UPDATE'
      and c.created_at >= $2::timestamp(3)) as queued
  from users u
  where u.status <> 'CLOSED' and ($1::uuid is null or u.id > $1::uuid)
  order by u.id limit $3`;

/** The list in use, `recheck` looking for a newer file now (checks.providers.ts watchlistSource). */
type WatchlistSource = (options?: { recheck?: boolean }) => Promise<Watchlist>;

export type RescreenDeps = WriteDeps & { logger: Logger; watchlist: WatchlistSource };

const dateOf = (version: string) => /(\d{4}-\d{2}-\d{2})/.exec(version)?.[1] ?? null;

/**
 * The re-screen of one import: queues the runs and records on its row how many and when. Against the
 * list in use, which must be the import's or a newer one (then the import's entries as the newer list
 * has them: its runs screen against that one too); an older one means this process has not got the
 * file yet, and the job is retried. At least once: a retried job skips whom it queued already.
 */
async function rescreenAfterImport(deps: RescreenDeps, job: RescreenJob) {
  const row = await deps.db.watchlistImport.findUnique({ where: { id: job.importId } });
  if (!row || row.rescreenedAt) return null;
  const started = performance.now();
  const list = await deps.watchlist({ recheck: true });
  const wanted = dateOf(row.listVersion);
  if (list.version.id !== row.listVersion && !(list.version.publishedOn && wanted && list.version.publishedOn > wanted))
    throw new Error(`watchlist ${row.listVersion} is not in this process's DATA_DIR (in use: ${list.version.id}); retried later`);
  const brought = entriesList(list, [...job.added, ...job.changed]);
  const gone = new Set([...job.changed, ...job.removed]);
  const concerned = (user: Candidate) =>
    !!user.hits?.some((id) => gone.has(id))
    || (user.status !== "REJECTED"
      && brought.entries.length > 0
      && !!(user.firstName || user.lastName)
      && hasCandidates({ firstName: user.firstName ?? "", middleName: user.middleName, lastName: user.lastName ?? "" }, brought));
  let scanned = 0;
  let rescreened = 0;
  if (brought.entries.length || gone.size)
    for (let after: string | null = null; ; ) {
      const users: Candidate[] = await deps.db.$queryRawUnsafe<Candidate[]>(USERS_PAGE, after, row.importedAt.toISOString(), PAGE);
      if (!users.length) break;
      const due = users.filter(concerned);
      const fresh = due.filter((user) => !user.queued);
      if (fresh.length)
        await deps.transact(
          {
            principal: OPERATOR,
            requestId: `watchlist-rescreen:${row.id}`,
            clocks: await clocksOf(
              deps.db,
              fresh.map((user) => user.clientId),
            ),
          },
          async (write) => {
            // enqueueChecks for the whole page at once: a queued screening is reused (it takes the trigger), the rest queued
            const reused = await write.tx.checkRun.updateManyAndReturn({
              where: { userId: { in: fresh.map((user) => user.id) }, type: "SANCTIONS_SCREENING", status: "QUEUED" },
              data: { trigger: "LIST_UPDATE" },
              select: { userId: true },
            });
            const waiting = new Set(reused.map((run) => run.userId));
            for (const user of fresh)
              if (!waiting.has(user.id)) queueFreshChecks(write, { clientId: user.clientId, userId: user.id }, ["SANCTIONS_SCREENING"], "LIST_UPDATE");
          },
          { timeout: 60_000 },
        );
      scanned += users.length;
      rescreened += due.length;
      after = users.at(-1)!.id;
      // the retrieval is this process's CPU: requests are answered between pages
      await new Promise((resolve) => setImmediate(resolve));
    }
  await deps.db.watchlistImport.update({ where: { id: row.id }, data: { rescreened, rescreenedAt: new Date() } });
  const ms = Math.round(performance.now() - started);
  deps.logger.info(
    { importId: row.id, listVersion: list.version.id, entries: brought.entries.length, gone: gone.size, scanned, rescreened, ms },
    "watchlist re-screen queued",
  );
  return { scanned, rescreened, ms };
}

/** The queue and its worker (the service, `cli worker`). */
export function defineWatchlistRescreen(deps: RescreenDeps & { jobs: Jobs }) {
  return deps.jobs.define<RescreenJob>({
    ...RESCREEN_QUEUE,
    eager: true, // the import's alerts wait on it: start at commit, not at the next poll
    work: async (jobs) => {
      for (const job of jobs) await rescreenAfterImport(deps, job.data);
    },
  });
}

/** The newest import, as /metrics shows it: users re-screened, and seconds from the import to the re-screen queued and to its last alert. */
export async function newestImportTimes(db: Db) {
  const row = await db.watchlistImport.findFirst({ orderBy: { importedAt: "desc" } });
  if (!row) return null;
  const since = (at: Date | null) => (at ? (at.getTime() - row.importedAt.getTime()) / 1000 : null);
  return { listVersion: row.listVersion, rescreened: row.rescreened, rescreenSeconds: since(row.rescreenedAt), lastAlertSeconds: since(row.lastAlertAt) };
}

/**
 * A database whose job tables pg-boss 10 made (schema version 24) brought to pg-boss 12's. pg-boss 11
 * rewrote its schema and ships no migration from 24, so its `start()` refuses such a schema. Before
 * the engine starts, in one transaction under an advisory lock (one instance does it; the others
 * find it done): the old schema is renamed aside, 12's is created where it was, the old queues (and
 * their schedules and subscriptions) are created in it, every job not yet finished is copied over
 * (a job in hand when the old process stopped is queued again: the handlers are at least once),
 * and the old schema is dropped. A crash before the commit leaves the old schema as it was.
 *
 * The instances still on pg-boss 10 must be stopped first: their statements would run against 12's
 * tables and fail (docs/operations.md, "Upgrading a database from pg-boss 10").
 */
import type { PGlite } from "@electric-sql/pglite";
import type pg from "pg";
import { getConstructionPlans } from "pg-boss";

/** pg-boss 10's schema version: the one 12 cannot migrate. */
const PG_BOSS_10_SCHEMA_VERSION = 24;

type Rows = { rows: Record<string, unknown>[] };
/** One open transaction: statements with parameters, and scripts of several statements without. */
type Session = { query(text: string, values?: unknown[]): Promise<Rows>; script(text: string): Promise<unknown> };
export type Upgrade = {
  /** one statement on its own (outside any transaction) */
  query(text: string, values?: unknown[]): Promise<Rows>;
  /** `fn` in one transaction on one connection: committed when it returns, rolled back when it throws */
  transaction<T>(fn: (session: Session) => Promise<T>): Promise<T>;
};

/** What the upgrade carried over: jobs copied, and jobs left out (their id or a policy's one-per-key rule already taken). */
export type Carried = { jobs: number; skipped: number; queues: number };

/**
 * Upgrades `schema` if pg-boss 10 made it; null when there is nothing to do (no schema yet, or a
 * newer one). Safe to run on every start: the check outside the lock is one catalog read.
 */
export async function upgradeFromPgBoss10(db: Upgrade, schema: string): Promise<Carried | null> {
  if ((await versionOf(db, schema)) !== PG_BOSS_10_SCHEMA_VERSION) return null;
  const old = `${schema}_v10`;
  return db.transaction(async (s) => {
    // pg-boss's own lock for this schema (its creation and migrations take it too)
    await s.query(`select pg_advisory_xact_lock(('x' || encode(sha224((current_database() || '.pgboss.${schema}')::bytea), 'hex'))::bit(64)::bigint)`);
    if ((await versionOf(s, schema)) !== PG_BOSS_10_SCHEMA_VERSION) return null; // another instance did it meanwhile
    if ((await s.query("select 1 from pg_namespace where nspname = lower($1)", [old])).rows.length)
      throw new Error(`pg-boss upgrade: a schema ${old} is in the way (a copy of pg-boss 10's tables someone kept?); drop or rename it first`);
    await s.query(`alter schema ${schema} rename to ${old}`);
    await s.script(constructionScript(schema));
    const [{ queues }] = (
      await s.query(`
      with made as (
        select ${schema}.create_queue(name, jsonb_strip_nulls(jsonb_build_object(
          'policy', coalesce(policy, 'standard'), 'retryLimit', retry_limit, 'retryDelay', retry_delay, 'retryBackoff', retry_backoff,
          'expireInSeconds', expire_seconds, 'retentionSeconds', retention_minutes * 60)))
        from ${old}.queue where name not like '\\_\\_pgboss\\_\\_%' order by name)
      select count(*)::int as queues from made`)
    ).rows as { queues: number }[];
    await s.query(`update ${schema}.queue q set dead_letter = o.dead_letter from ${old}.queue o
      where o.name = q.name and o.dead_letter in (select name from ${schema}.queue)`);
    await s.query(`insert into ${schema}.schedule (name, key, cron, timezone, data, options)
      select name, '', cron, timezone, data, options from ${old}.schedule where name in (select name from ${schema}.queue) on conflict do nothing`);
    await s.query(`insert into ${schema}.subscription (event, name)
      select event, name from ${old}.subscription where name in (select name from ${schema}.queue) on conflict do nothing`);
    const [{ pending, jobs }] = (
      await s.query(`
      with copied as (
        insert into ${schema}.job (id, name, priority, data, state, retry_limit, retry_count, retry_delay, retry_backoff,
          expire_seconds, deletion_seconds, singleton_key, singleton_on, start_after, created_on, keep_until, output, dead_letter, policy)
        select j.id, j.name, j.priority, j.data, (case when j.state::text = 'retry' then 'retry' else 'created' end)::${schema}.job_state,
          j.retry_limit, j.retry_count, j.retry_delay, j.retry_backoff, greatest(1, ceil(extract(epoch from j.expire_in)))::int,
          q.deletion_seconds, j.singleton_key, j.singleton_on, j.start_after, j.created_on, j.keep_until,
          case when j.state::text = 'retry' then j.output end, q2.name, q.policy
        from ${old}.job j join ${schema}.queue q on q.name = j.name left join ${schema}.queue q2 on q2.name = j.dead_letter
        where j.state::text in ('created', 'retry', 'active')
        order by j.created_on, j.id
        on conflict do nothing
        returning 1)
      select (select count(*)::int from ${old}.job where state::text in ('created', 'retry', 'active') and name not like '\\_\\_pgboss\\_\\_%') as pending,
        (select count(*)::int from copied) as jobs`)
    ).rows as { pending: number; jobs: number }[];
    await s.query(`drop schema ${old} cascade`);
    return { jobs, skipped: pending - jobs, queues };
  });
}

/** The pg-boss version number `schema` holds, or null when it holds none. */
async function versionOf(db: Pick<Session, "query">, schema: string): Promise<number | null> {
  if (!(await exists(db, `${schema}.version`))) return null;
  const { rows } = await db.query(`select max(version)::int as version from ${schema}.version`);
  return (rows[0]?.version as number | null) ?? null;
}

const exists = async (db: Pick<Session, "query">, table: string) => (await db.query("select to_regclass($1)::text as t", [table])).rows[0]?.t != null;

/**
 * pg-boss's own script that creates its schema, without the BEGIN and COMMIT around it so that it
 * runs inside the upgrade's transaction (its COMMIT would commit the rename on its own).
 */
function constructionScript(schema: string) {
  const plan = getConstructionPlans(schema).trim();
  const body = plan.replace(/^BEGIN;/, "").replace(/COMMIT;$/, "");
  if (body.length !== plan.length - "BEGIN;".length - "COMMIT;".length)
    throw new Error("pg-boss's construction plan is no longer one BEGIN … COMMIT script: the pg-boss 10 upgrade needs a look");
  return body;
}

/** The upgrade on PostgreSQL: a client of the engine's pool, held for the transaction. */
export function upgradeOnPool(pool: pg.Pool): Upgrade {
  return {
    query: (text, values) => pool.query(text, values),
    async transaction(fn) {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await client.query("begin");
        const result = await fn({ query: (text, values) => client.query(text, values), script: (text) => client.query(text) });
        await client.query("commit");
        return result;
      } catch (error) {
        await client.query("rollback").catch((err: Error) => {
          broken = err;
        });
        throw error;
      } finally {
        client.release(broken);
      }
    },
  };
}

/** The upgrade on PGlite: its transaction holds the one connection. */
export function upgradeOnPglite(pglite: PGlite): Upgrade {
  return {
    query: (text, values) => pglite.query(text, values),
    transaction: (fn) => pglite.transaction((tx) => fn({ query: (text, values) => tx.query(text, values), script: (text) => tx.exec(text) })),
  };
}

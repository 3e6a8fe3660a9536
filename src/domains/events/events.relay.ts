/**
 * The outbox relay: committed event rows (table `events`) → the event bus (GraphQL subscriptions,
 * every instance through Redis). A row is claimed by stamping `published_at` (one UPDATE … RETURNING,
 * so two relays never publish the same row) and then published. Fast path: the writing process
 * publishes its own rows right after commit (db/transaction.ts). Safety net: the `events.relay` job,
 * enqueued in the same transaction, runs 5 s later wherever jobs are worked and publishes every row
 * still unstamped (the writer died between commit and publish, or had no bus: a CLI process). When
 * the fast path succeeded the writer deletes that job, so a healthy service runs no relay query.
 */
import type { Db } from "../../db/client.js";
import type { Tx } from "../../db/transaction.js";
import type { Jobs } from "../../jobs/jobs.engine.js";
import type { Logger } from "../../lib/logger.js";
import type { EventBus } from "./events.pubsub.js";

export const EVENT_RELAY_JOB = "events.relay";
/** the safety net runs after the fast path had its chance */
const RELAY_DELAY_SECONDS = 5;
const BATCH = 100;

/**
 * A topic's arguments are `[event]` or `[clientId, event]` (events.pubsub.ts Topics): the client id
 * goes to its column, the event to `data`.
 */
export function outboxRows(emitted: unknown[][]) {
  return emitted.map(([type, ...args]) => ({
    type: type as string,
    clientId: args.length === 2 ? (args[0] as string) : null,
    data: args.at(-1) as object,
  }));
}

type Row = { id: string; seq: bigint; type: string; clientId: string | null; data: unknown };

function publish(bus: EventBus, rows: Row[]) {
  const send = bus.publish as (topic: string, ...args: unknown[]) => void;
  for (const row of rows.sort((a, b) => (a.seq < b.seq ? -1 : 1))) {
    if (row.clientId) send(row.type, row.clientId, row.data);
    else send(row.type, row.data);
  }
}

const claim = (db: Db, where: object) =>
  db.event.updateManyAndReturn({ where: { ...where, publishedAt: null }, data: { publishedAt: new Date() }, select: { id: true, seq: true, type: true, clientId: true, data: true } });

/** After commit: publishes these rows unless a relay got them first; false when it failed (the relay job will). */
export async function publishEvents(db: Db, bus: EventBus, ids: string[], logger?: Logger): Promise<boolean> {
  try {
    publish(bus, await claim(db, { id: { in: ids } }));
    return true;
  } catch (err) {
    logger?.warn({ err: (err as Error).message }, "events left to the relay job");
    return false;
  }
}

/** Publishes every unstamped row, oldest first; returns how many. */
export async function relayPending(db: Db, bus: EventBus): Promise<number> {
  let total = 0;
  for (;;) {
    const pending = await db.event.findMany({ where: { publishedAt: null }, orderBy: { seq: "asc" }, take: BATCH, select: { id: true } });
    if (!pending.length) return total;
    const rows = await claim(db, { id: { in: pending.map((p) => p.id) } });
    publish(bus, rows);
    total += rows.length;
  }
}

export function sendRelayJob(jobs: Jobs, tx: Tx) {
  return jobs.send(EVENT_RELAY_JOB, {}, { tx, startAfter: RELAY_DELAY_SECONDS });
}

/** The relay job's queue and worker; a batch of relay jobs is one sweep. */
export function defineEventRelay(jobs: Jobs, db: Db, bus: EventBus) {
  return jobs.define({
    name: EVENT_RELAY_JOB,
    queue: { retryLimit: 5, retryDelay: 5, retryBackoff: true, expireInSeconds: 60 },
    workOptions: { batchSize: 50 },
    work: async () => { await relayPending(db, bus); },
  });
}

/** Outbox lag for /metrics: how many committed rows are unpublished, and the oldest one's age (the `published_at` index). */
export async function outboxLag(db: Db, now = new Date()) {
  const [row] = await db.$queryRaw<{ n: number; oldest: Date | null }[]>`select count(*)::int as n, min(created_at) as oldest from events where published_at is null`;
  return { unpublished: row.n, oldestSeconds: row.oldest ? Math.max(0, (now.getTime() - row.oldest.getTime()) / 1000) : 0 };
}

/**
 * The outbox relay: committed event rows (table `events`) → their consumers. A relay claims rows by
 * stamping `published_at` (one UPDATE … RETURNING, so two relays never take the same row) in a short
 * transaction of its own, in which each consumer does the work that must commit with the claim (the
 * webhooks domain queues its deliveries there); what a consumer hands back runs once that commit is
 * done (the event bus publishes to GraphQL subscriptions, every instance through Redis; workers are
 * woken). A crash anywhere leaves the rows unclaimed or the claim rolled back: nothing is half done.
 *
 * Fast path: the writing process relays its own rows right after commit (platform/write.ts). Safety
 * net: the `events.relay` job, queued in the writing transaction, runs 5 s later wherever jobs are
 * worked and relays every row still unclaimed (the writer died after commit, or wrote without the
 * relay: a CLI process). When the fast path succeeded the writer deletes that job, so a healthy
 * service runs no relay query. The service also relays what is pending once at start.
 */
import type { Db } from "../db/client.js";
import type { Tx } from "../db/transaction.js";
import type { Jobs } from "./jobs.js";
import type { Logger } from "../lib/logger.js";
import type { EventBus } from "./bus.js";

export const EVENT_RELAY_JOB = "events.relay";
/** the safety net runs after the fast path had its chance */
export const RELAY_DELAY_SECONDS = 5;
const BATCH = 100;

/** A committed event as its consumers get it, in the order of `seq`. */
export type OutboxEvent = { id: string; seq: bigint; type: string; clientId: string | null; data: unknown; createdAt: Date };

/** What a relay knows of an event before it claims it. */
type Claimable = Pick<OutboxEvent, "id" | "type" | "clientId">;

/**
 * A consumer of claimed events. `writesFor`: the events it writes for in the claim's transaction (what
 * it writes commits with the claim, or neither does); when no consumer writes for any of a batch, the
 * claim is one statement and opens no transaction. `consume` is called with every claimed event; the
 * function it may return runs once the claim committed.
 */
export type OutboxConsumer = {
  writesFor?(event: Claimable): boolean;
  consume(tx: Tx, events: OutboxEvent[]): Promise<(() => void) | undefined>;
};

export type Outbox = ReturnType<typeof createOutbox>;

const COLUMNS = { id: true, seq: true, type: true, clientId: true, data: true, createdAt: true } as const;

export function createOutbox(db: Db, consumers: OutboxConsumer[], logger?: Logger) {
  const writes = (events: Claimable[]) => consumers.some((c) => c.writesFor && events.some((e) => c.writesFor!(e)));

  /** Claims those of `events` still unclaimed and hands them to every consumer; returns how many. */
  async function claim(events: Claimable[]): Promise<number> {
    const after: (() => void)[] = [];
    const take = async (tx: Tx) => {
      const claimed = await tx.event.updateManyAndReturn({
        where: { id: { in: events.map((e) => e.id) }, publishedAt: null },
        data: { publishedAt: new Date() },
        select: COLUMNS,
      });
      claimed.sort((a, b) => (a.seq < b.seq ? -1 : 1));
      if (claimed.length)
        for (const { consume } of consumers) {
          const then = await consume(tx, claimed);
          if (then) after.push(then);
        }
      return claimed.length;
    };
    const count = writes(events) ? await db.$transaction(take) : await take(db);
    for (const then of after) then();
    return count;
  }

  return {
    /** After a write's commit: its events, unless a relay took them first; false when it failed (the relay job will). */
    async relay(events: Claimable[]): Promise<boolean> {
      try {
        await claim(events);
        return true;
      } catch (err) {
        logger?.warn({ err: (err as Error).message }, "events left to the relay job");
        return false;
      }
    },
    /** Every unclaimed row, oldest first; returns how many. */
    async relayPending(): Promise<number> {
      let total = 0;
      for (;;) {
        const pending = await db.event.findMany({
          where: { publishedAt: null },
          orderBy: { seq: "asc" },
          take: BATCH,
          select: { id: true, type: true, clientId: true },
        });
        if (!pending.length) return total;
        total += await claim(pending);
      }
    },
  };
}

/**
 * The event bus as a consumer: subscribers hear each event once its claim committed. A topic's
 * arguments are `[event]` or `[clientId, event]` (platform/bus.ts Topics).
 */
export const publishTo = (bus: EventBus): OutboxConsumer => ({
  consume: async (_tx, events) => () => {
    const send = bus.publish as (topic: string, ...args: unknown[]) => void;
    for (const event of events) {
      if (event.clientId) send(event.type, event.clientId, event.data);
      else send(event.type, event.data);
    }
  },
});

/** The relay job's queue and, given the outbox, its worker; a batch of relay jobs is one sweep. */
export function defineEventRelay(jobs: Jobs, outbox?: Outbox) {
  return jobs.define({
    name: EVENT_RELAY_JOB,
    queue: { retryLimit: 5, retryDelay: 5, retryBackoff: true, expireInSeconds: 60 },
    ...(outbox && {
      workOptions: { batchSize: 50 },
      work: async () => {
        await outbox.relayPending();
      },
    }),
  });
}

/** Outbox lag for /metrics: how many committed rows are unpublished, and the oldest one's age (the `published_at` index). */
export async function outboxLag(db: Db, now = new Date()) {
  const [row] = await db.$queryRaw<
    { n: number; oldest: Date | null }[]
  >`select count(*)::int as n, min(created_at) as oldest from events where published_at is null`;
  return { unpublished: row.n, oldestSeconds: row.oldest ? Math.max(0, (now.getTime() - row.oldest.getTime()) / 1000) : 0 };
}

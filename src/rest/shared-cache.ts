/**
 * Answers that are the same for every caller with the route's scope (reference data) are kept in
 * memory for a short time: a lookup then costs no query. Any reference change published on the
 * event bus (Redis across instances) clears the cache: admin mutations, and `cli reference import`,
 * which runs inside the server on the embedded database (cli/control-socket.ts) and publishes on
 * Redis otherwise. Only a CLI import on PostgreSQL without Redis goes unheard, bounded by the TTL,
 * which stays below the Cache-Control clients are given.
 */
import type { EventBus } from "../domains/events/events.pubsub.js";

export type Reply = { status: number; headers: Record<string, string>; text: string | Uint8Array<ArrayBuffer> | null };

export function createSharedCache(events: EventBus, maxEntries = 2000) {
  const entries = new Map<string, { reply: Reply; until: number }>();
  /** the computation under way for a key that missed */
  const filling = new Map<string, Promise<Reply>>();
  /** bumped by every change: a computation started before it must not fill the cache after it */
  let generation = 0;
  const changes = events.subscribe("reference.updated");
  void (async () => { for await (const _ of changes) { entries.clear(); filling.clear(); generation += 1; } })();
  const get = (key: string) => {
    const hit = entries.get(key);
    if (hit && hit.until > Date.now()) return hit.reply;
    if (hit) entries.delete(key);
    return null;
  };
  const set = (key: string, reply: Reply, ttlMs: number) => {
    if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
    // kept as bytes: each hit is then written without measuring and encoding the text again
    const text = typeof reply.text === "string" ? new Uint8Array(Buffer.from(reply.text)) : reply.text;
    entries.set(key, { reply: { ...{}, ...reply, text }, until: Date.now() + ttlMs });
  };
  return {
    get,
    /**
     * The answer for a key that missed, kept if it is a 200. Concurrent misses of one key share the
     * first one's computation: when a busy lookup's entry expired, every request that came before the
     * first recomputation ended ran its own (a stampede of statements every TTL). A waiter whose shared
     * computation failed or was not a 200 computes its own, so an error carries its own request id.
     */
    async fill(key: string, ttlMs: number, compute: () => Promise<Reply>): Promise<Reply> {
      const under = filling.get(key);
      if (under) {
        const shared = await under.catch(() => null);
        return shared?.status === 200 ? shared : compute();
      }
      const started = generation;
      const computing = compute();
      filling.set(key, computing);
      try {
        const reply = await computing;
        if (reply.status === 200 && started === generation) set(key, reply, ttlMs);
        return reply;
      } finally {
        if (filling.get(key) === computing) filling.delete(key);
      }
    },
    stop: () => changes.return?.(),
  };
}
export type SharedCache = ReturnType<typeof createSharedCache>;

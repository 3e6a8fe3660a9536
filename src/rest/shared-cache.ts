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
  const changes = events.subscribe("reference.updated");
  void (async () => { for await (const _ of changes) entries.clear(); })();
  return {
    get(key: string) {
      const hit = entries.get(key);
      if (hit && hit.until > Date.now()) return hit.reply;
      if (hit) entries.delete(key);
      return null;
    },
    set(key: string, reply: Reply, ttlMs: number) {
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      // kept as bytes: each hit is then written without measuring and encoding the text again
      const text = typeof reply.text === "string" ? new Uint8Array(Buffer.from(reply.text)) : reply.text;
      entries.set(key, { reply: { ...{}, ...reply, text }, until: Date.now() + ttlMs });
    },
    stop: () => changes.return?.(),
  };
}
export type SharedCache = ReturnType<typeof createSharedCache>;

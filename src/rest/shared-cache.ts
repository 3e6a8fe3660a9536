/**
 * Answers that are the same for every caller with the route's scope (reference data) are kept in
 * memory for a short time: a lookup then costs no query. Any reference change published on the
 * event bus (Redis across instances) clears the cache: admin mutations, and `cli reference import`,
 * which runs inside the server on the embedded database (cli/control-socket.ts) and publishes on
 * Redis otherwise. Only a CLI import on PostgreSQL without Redis goes unheard, bounded by the TTL,
 * which stays below the Cache-Control clients are given.
 */
import type { EventBus } from "../platform/bus.js";
import { createTtlCache } from "../lib/ttl-cache.js";

export type Reply = { status: number; headers: Record<string, string>; text: string | Uint8Array<ArrayBuffer> | null };

/** Bytes a reply weighs beside its text: its headers and the entry. */
const REPLY_BYTES = 1024;

/** `maxBytes`: the URLs (a caller chooses their query strings) and answers kept, together. */
export function createSharedCache(events: EventBus, maxEntries = 2000, maxBytes = 16 * 2 ** 20) {
  const replies = createTtlCache<Reply>(maxEntries, {
    maxBytes,
    weigh: (key, reply) =>
      2 * key.length + (reply.text === null ? 0 : typeof reply.text === "string" ? 2 * reply.text.length : reply.text.byteLength) + REPLY_BYTES,
  });
  const changes = events.subscribe("reference.updated");
  void (async () => {
    for await (const _ of changes) replies.clear();
  })();
  return {
    get: (key: string) => replies.get(key) ?? null,
    /** the answer for a key that missed (shared by the requests that missed it together), kept if a 200 */
    fill: (key: string, ttlMs: number, compute: () => Promise<Reply>) =>
      replies.fill(
        key,
        ttlMs,
        async () => {
          const reply = await compute();
          // kept as bytes: each hit is then written without measuring and encoding the text again
          return typeof reply.text === "string" ? { ...reply, text: new Uint8Array(Buffer.from(reply.text)) } : reply;
        },
        (reply) => reply.status === 200,
      ),
    stop: () => changes.return?.(),
  };
}
export type SharedCache = ReturnType<typeof createSharedCache>;

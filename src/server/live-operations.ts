/**
 * What stays open after its request: subscriptions, over graphql-ws and SSE alike, and the sockets
 * and streams that carry them. One registry per process:
 * - caps how many subscriptions a key, a graphql-ws socket and the whole process hold, so a crowd of
 *   subscribers cannot make one event fan out into more work than the process can carry;
 * - re-checks the key of every open socket and stream when keys change (the `credentials.changed`
 *   event, which reaches every instance) and on a timer, so a revoked or rotated key stops working
 *   on what it already opened, not only on its next request.
 * The presented key is kept in memory for that re-check only; it is never logged.
 */
import { GraphQLError } from "graphql";
import type { Principal } from "../principal.js";
import type { Authenticator } from "../domains/clients/clients.service.js";
import type { EventBus } from "../platform/bus.js";
import { statusOf } from "../lib/errors.js";

export type SubscriptionLimits = { perKey: number; perSocket: number; total: number };
/** A subscription's place under the caps; `release` may be called any number of times. */
export type Slot = { release(): void };
export type SlotRefusal = { code: "RATE_LIMITED" | "UNAVAILABLE"; message: string; retryAfter: number };
export type LiveOperations = ReturnType<typeof createLiveOperations>;

/** Slots free only when a caller ends a subscription: a retry sooner than this would mostly be refused again. */
const SLOT_RETRY_AFTER_SECONDS = 30;
/** The safety net under the event: a change the event did not carry (a key revoked by the CLI without Redis) is seen within this plus the key cache's TTL. */
const RECHECK_MS = 30_000;

type Watched = { key: string; principal: Principal; end: () => void };

export function createLiveOperations({
  limits,
  auth,
  events,
  recheckMs = RECHECK_MS,
}: {
  limits: SubscriptionLimits;
  auth: Authenticator;
  events: EventBus;
  recheckMs?: number;
}) {
  const byKey = new Map<string, number>();
  const bySocket = new WeakMap<object, Set<Slot>>();
  let total = 0;

  const refuse = (code: SlotRefusal["code"], message: string): SlotRefusal => ({
    code,
    message: `${message}; retry in ${SLOT_RETRY_AFTER_SECONDS} s.`,
    retryAfter: SLOT_RETRY_AFTER_SECONDS,
  });

  /** A slot for one more subscription of `principal` (on `socket`, for graphql-ws), or why not. */
  function admit(principal: Principal, socket?: object): Slot | SlotRefusal {
    const keyId = principal.keyId;
    const onSocket = socket ? (bySocket.get(socket) ?? new Set<Slot>()) : null;
    if ((byKey.get(keyId) ?? 0) >= limits.perKey)
      return refuse("RATE_LIMITED", `This API key already holds ${limits.perKey} open subscriptions, its maximum: complete one first`);
    if (onSocket && onSocket.size >= limits.perSocket)
      return refuse(
        "RATE_LIMITED",
        `This connection already holds ${limits.perSocket} open subscriptions, its maximum: complete one first or open another connection`,
      );
    if (total >= limits.total) return refuse("UNAVAILABLE", "The server holds as many open subscriptions as it can");
    total += 1;
    byKey.set(keyId, (byKey.get(keyId) ?? 0) + 1);
    let held = true;
    const slot: Slot = {
      release() {
        if (!held) return;
        held = false;
        total -= 1;
        const left = byKey.get(keyId)! - 1;
        if (left) byKey.set(keyId, left);
        else byKey.delete(keyId);
        onSocket?.delete(slot);
      },
    };
    if (socket && onSocket) {
      onSocket.add(slot);
      bySocket.set(socket, onSocket);
    }
    return slot;
  }

  /** Whatever a closed socket still held (an operation its close interrupted) is given back. */
  function releaseSocket(socket: object) {
    for (const slot of [...(bySocket.get(socket) ?? [])]) slot.release();
    bySocket.delete(socket);
  }

  const watched = new Set<Watched>();
  /** `end` is called once, when `key` no longer authenticates as `principal`'s key; the returned function stops watching. */
  function watch(key: string, principal: Principal, end: () => void) {
    const entry = { key, principal, end };
    watched.add(entry);
    return () => {
      watched.delete(entry);
    };
  }

  async function recheck(which: (w: Watched) => boolean) {
    await Promise.all(
      [...watched].filter(which).map(async (entry) => {
        // the database away: the key stays trusted until the next round can ask
        const now = await auth.authenticate(entry.key).catch(() => entry.principal);
        if (now?.keyId === entry.principal.keyId || !watched.delete(entry)) return;
        try {
          entry.end();
        } catch {
          /* a socket already gone */
        }
      }),
    );
  }

  const changes = events.subscribe("credentials.changed");
  void (async () => {
    for await (const { clientId } of changes) {
      // this instance may not have forgotten its cached principals yet: the re-check must not read them
      auth.forget();
      await recheck((entry) => entry.principal.clientId === clientId);
    }
  })();
  const timer = setInterval(() => void recheck(() => true), recheckMs);
  timer.unref();

  return {
    admit,
    releaseSocket,
    watch,
    /** open subscriptions: on this instance, and of one key */
    held: (keyId?: string) => (keyId === undefined ? total : (byKey.get(keyId) ?? 0)),
    stop() {
      clearInterval(timer);
      void changes.return?.();
    },
  };
}

export const isSlot = (admitted: Slot | SlotRefusal): admitted is Slot => "release" in admitted;

/** The GraphQL error of a refused slot; over HTTP it carries the status (429, 503) and Retry-After for yoga's answer. */
export function slotRefusalError({ code, message, retryAfter }: SlotRefusal, { http }: { http: boolean }) {
  const status = { status: statusOf(code), headers: { "retry-after": String(retryAfter) } };
  return new GraphQLError(message, { extensions: { code, retryAfter, ...(http ? { http: status } : {}) } });
}

const DONE = { done: true, value: undefined } as const;

/**
 * `source` with an end the server can call: `end(last)` answers a waiting or the next `next` with
 * `last`, then done, and returns the source (an SSE stream then writes its `complete` and closes).
 * `onEnd` runs once, however it ends: done, error, the caller leaving (`return`), or `end`.
 */
export function endable<T>(source: AsyncIterable<T>, onEnd: () => void) {
  const inner = source[Symbol.asyncIterator]();
  let open = true;
  let left: IteratorResult<T>[] = [];
  // a fresh promise per `next`, not a race with one long-lived promise, whose reactions would pile up for the stream's life
  let interrupt: (() => void) | null = null;
  let settled = false;
  const settle = () => {
    if (!settled) {
      settled = true;
      onEnd();
    }
  };
  const iterator: AsyncIterableIterator<T> = {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      if (!open) return left.shift() ?? DONE;
      let result: IteratorResult<T> | null;
      try {
        result = await new Promise<IteratorResult<T> | null>((resolve, reject) => {
          interrupt = () => resolve(null);
          inner.next().then(resolve, reject);
        });
      } catch (error) {
        open = false;
        settle();
        throw error;
      } finally {
        interrupt = null;
      }
      if (!open || !result) return left.shift() ?? DONE;
      if (result.done) {
        open = false;
        settle();
      }
      return result;
    },
    async return() {
      open = false;
      left = [];
      settle();
      await inner.return?.();
      return DONE;
    },
  };
  return {
    iterator,
    end(last?: T) {
      if (!open) return;
      open = false;
      if (last !== undefined) left.push({ done: false, value: last });
      settle();
      void inner.return?.()?.catch(() => {});
      interrupt?.();
    },
  };
}

/**
 * Redis (optional, REDIS_URL): subscription fan-out across instances and shared rate-limit counters.
 * A Redis outage must not take the service down: connection errors are logged (at most every 10 s),
 * pub/sub commands that fail are logged instead of left as unhandled rejections, and the
 * subscriber waits for the connection and resubscribes when it returns.
 * An event is delivered to this instance's own subscribers directly, not through Redis, so they keep
 * hearing this instance's changes while Redis is away; what comes back through Redis from this
 * instance is dropped as already delivered (each message is framed with its instance's id).
 * Every channel and key carries `prefix` (REDIS_PREFIX, by default the deployment's id): two
 * deployments on one Redis neither hear each other's events nor share rate-limit counters.
 */
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import type { Logger } from "./logger.js";

export function createRedis(url: string, logger: Logger, prefix: string) {
  // ioredis prefixes the keys of commands (the rate limit's counters), never pub/sub channels: those are prefixed below
  const client = new Redis(url, { maxRetriesPerRequest: 2, keyPrefix: prefix });
  // the subscriber resubscribes its channels on every reconnect: fan-out resumes when Redis returns.
  // No ready check: ioredis sends SUBSCRIBE as soon as the socket connects, and its check (INFO), sent
  // a moment later, then fails in subscriber mode; the connection is dropped and the subscriptions
  // made at start (key changes, cache clearing) were lost for good.
  const subscriber = new Redis(url, { maxRetriesPerRequest: null, autoResubscribe: true, enableReadyCheck: false });
  let lastWarning = 0;
  const warn = (error: Error) => {
    if (Date.now() - lastWarning < 10_000) return;
    lastWarning = Date.now();
    logger.warn({ err: error.message }, "redis unavailable");
  };
  client.on("error", warn);
  subscriber.on("error", warn);
  const quiet = (done: Promise<unknown>) => {
    done.catch(warn);
  };
  const origin = randomBytes(8).toString("hex");
  const listeners = new Set<(channel: string, message: string) => void>();
  const deliver = (channel: string, message: string) => {
    for (const listener of listeners) listener(channel, message);
  };
  subscriber.on("message", (prefixed: string, framed: string) => {
    if (!prefixed.startsWith(prefix)) return;
    const channel = prefixed.slice(prefix.length);
    const from = framed.length > ORIGIN_LENGTH && framed[ORIGIN_LENGTH] === "|" ? framed.slice(0, ORIGIN_LENGTH) : null;
    if (from === origin) return;
    deliver(channel, from ? framed.slice(ORIGIN_LENGTH + 1) : framed);
  });
  return {
    client,
    /** the two sides the event bus uses (yoga's Redis event target does not catch its own failures) */
    pubsub: {
      publish: {
        publish: (channel: string, message: string) => {
          deliver(channel, message);
          quiet(client.publish(prefix + channel, `${origin}|${message}`));
        },
      },
      subscribe: {
        on: (_event: "message", listener: (channel: string, message: string) => void) => {
          listeners.add(listener);
        },
        subscribe: (topic: string) => quiet(subscriber.subscribe(prefix + topic)),
        unsubscribe: (topic: string) => quiet(subscriber.unsubscribe(prefix + topic)),
      },
    },
    /**
     * Resolves once both connections are up, or after `timeoutMs` (then the app starts degraded and
     * /readyz says so): commands queued before that, such as the start-up subscriptions, go out first.
     */
    ready(timeoutMs = 3000) {
      const up = (c: Redis) => (c.status === "ready" ? Promise.resolve() : new Promise<void>((resolve) => c.once("ready", () => resolve())));
      const late = new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref());
      return Promise.race([Promise.all([up(client), up(subscriber)]).then(() => {}), late]);
    },
    disconnect() {
      client.disconnect();
      subscriber.disconnect();
    },
  };
}
/** hex length of an instance id in a message frame */
const ORIGIN_LENGTH = 16;

export type { Redis };

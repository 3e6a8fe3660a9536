/**
 * Redis (optional, REDIS_URL): subscription fan-out across instances and shared rate-limit counters.
 * A Redis outage must not take the service down: connection errors are logged (at most every 10 s),
 * pub/sub commands that fail are logged instead of left as unhandled rejections, and the
 * subscriber waits for the connection and resubscribes when it returns.
 */
import { Redis } from "ioredis";
import type { Logger } from "./logger.js";

export function createRedis(url: string, logger: Logger) {
  const client = new Redis(url, { maxRetriesPerRequest: 2 });
  const subscriber = new Redis(url, { maxRetriesPerRequest: null });
  let lastWarning = 0;
  const warn = (error: Error) => {
    if (Date.now() - lastWarning < 10_000) return;
    lastWarning = Date.now();
    logger.warn({ err: error.message }, "redis unavailable");
  };
  client.on("error", warn);
  subscriber.on("error", warn);
  const quiet = (done: Promise<unknown>) => { done.catch(warn); };
  return {
    client,
    /** the two sides the event bus uses (yoga's Redis event target does not catch its own failures) */
    pubsub: {
      publish: { publish: (channel: string, message: string) => quiet(client.publish(channel, message)) },
      subscribe: {
        on: (event: "message", listener: (channel: string, message: string) => void) => subscriber.on(event, listener),
        subscribe: (topic: string) => quiet(subscriber.subscribe(topic)),
        unsubscribe: (topic: string) => quiet(subscriber.unsubscribe(topic)),
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
    disconnect() { client.disconnect(); subscriber.disconnect(); },
  };
}
export type RedisConnections = ReturnType<typeof createRedis>;
export type { Redis };

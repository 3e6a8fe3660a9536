/**
 * Live fan-out for GraphQL subscriptions (graphql-ws and SSE). In memory on one instance; with
 * REDIS_URL over Redis pub/sub so a subscriber on any instance sees a change made on any other.
 * Topics carry the client id, so a subscriber only ever hears its own client's events.
 */
import { createRedisEventTarget } from "@graphql-yoga/redis-event-target";
import { createPubSub } from "graphql-yoga";

/**
 * Every topic with its arguments: `[event]` or `[clientId, event]`. The platform names none: each
 * module declares its own in its `*.topics.ts`, merged into this interface by declaration merging.
 */
// biome-ignore lint/suspicious/noEmptyInterface: the modules' topics merge into it
export interface Topics {}

/** The topics as a plain object type: what yoga's pubsub asks of its topic map. */
type TopicMap = { [K in keyof Topics]: Topics[K] };

type RedisTarget = Parameters<typeof createRedisEventTarget>[0];

/** `redis`: the publish and subscribe sides (lib/redis.ts), which log their failures rather than throw. */
export function createEventBus(redis?: { publish: object; subscribe: object } | null) {
  const eventTarget = redis && createRedisEventTarget({ publishClient: redis.publish, subscribeClient: redis.subscribe } as RedisTarget);
  return createPubSub<TopicMap>(eventTarget ? { eventTarget } : undefined);
}
export type EventBus = ReturnType<typeof createEventBus>;

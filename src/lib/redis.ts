/** Redis (optional, REDIS_URL): subscription fan-out across instances and shared rate-limit counters. */
import { Redis } from "ioredis";

export function createRedis(url: string) {
  return new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2, enableOfflineQueue: true });
}
export type { Redis };

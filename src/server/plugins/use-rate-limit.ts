/**
 * Per-client-API-key rate limit (SPEC 12): a fixed one-minute window, counted in memory on one instance
 * or in Redis (INCR + PEXPIRE) when REDIS_URL is set so every instance shares the budget.
 * Every keyed response carries RateLimit-Limit/Remaining/Reset; over the limit → 429 + Retry-After.
 */
import type { Plugin } from "graphql-yoga";
import type { Redis } from "ioredis";
import type { Principal } from "../../context.js";
import { errorResponse, type Refusal } from "../../rest/problem.js";
import { stateOf } from "../request-state.js";

export type RateLimitOptions = {
  /** requests per key per window; 0 disables @default 600 */
  limit: number;
  /** @default 60000 */
  windowMs?: number;
  redis?: Redis | null;
};

type Count = (bucket: string, windowMs: number) => Promise<number>;

function memoryCounter(): Count {
  const counts = new Map<string, number>();
  let window = "";
  return async (bucket) => {
    const [w] = bucket.split("|");
    if (w !== window) { counts.clear(); window = w; } // a new window starts every bucket at zero
    const n = (counts.get(bucket) ?? 0) + 1;
    counts.set(bucket, n);
    return n;
  };
}

const redisCounter = (redis: Redis): Count => async (bucket, windowMs) => {
  if (redis.status !== "ready") throw new Error("redis not connected"); // do not queue a request behind reconnects
  const key = `og:rl:${bucket}`;
  const [[, n]] = (await redis.multi().incr(key).pexpire(key, windowMs * 2).exec()) as [[null, number]];
  return n;
};

export type RateLimiter = ReturnType<typeof createRateLimiter>;

/**
 * One counter per process (or Redis), shared by every transport: yoga's plugin and the lanes count
 * into the same budget. `headers` go on the answer; `refusal` is the 429.
 */
export function createRateLimiter({ limit, windowMs = 60_000, redis = null }: RateLimitOptions) {
  const count = redis ? redisCounter(redis) : memoryCounter();
  return async (principal: Principal | undefined): Promise<{ headers?: Record<string, string>; refusal?: Refusal }> => {
    // client keys only: the operator key belongs to the platform's own tooling
    if (!limit || principal?.kind !== "client") return {};
    const window = Math.floor(Date.now() / windowMs);
    // without its counter store (Redis down) the limit fails open: availability over throttling
    const used = await count(`${window}|${principal.keyId}`, windowMs).catch(() => 0);
    if (!used) return {};
    const reset = Math.ceil(((window + 1) * windowMs - Date.now()) / 1000);
    const headers = { "ratelimit-limit": String(limit), "ratelimit-remaining": String(Math.max(0, limit - used)), "ratelimit-reset": String(reset) };
    if (used <= limit) return { headers };
    const problem = { code: "RATE_LIMITED", detail: `More than ${limit} requests in a minute for this API key; retry in ${reset} s.` };
    return { refusal: { problem, headers: { ...{}, ...headers, "retry-after": String(reset) } } };
  };
}

export function useRateLimit(limiter: RateLimiter): Plugin {
  const headersOf = new WeakMap<Request, Record<string, string>>();
  return {
    async onRequest({ request, endResponse }) {
      const { headers, refusal } = await limiter(stateOf(request).principal);
      if (refusal) return endResponse(errorResponse(request, refusal.problem, stateOf(request).requestId, refusal.headers));
      if (headers) headersOf.set(request, headers);
    },
    onResponse({ request, response }) {
      const headers = headersOf.get(request);
      if (headers) for (const [k, v] of Object.entries(headers)) response.headers.set(k, v);
    },
  };
}

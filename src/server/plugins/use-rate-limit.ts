/**
 * Rate limits: a fixed one-minute window, counted in memory on one instance or in Redis
 * (INCR + PEXPIRE) when REDIS_URL is set so every instance shares the budget. Three budgets: each
 * client API key's, the operator key's (its own, so tooling cannot starve tenants nor run unbounded),
 * and the refused authentication attempts of each client address (key guessing, and floods of
 * requests that cost a key look-up each). Every keyed response carries RateLimit-Limit/Remaining/Reset;
 * over a budget → 429 + Retry-After.
 */
import ipaddr from "ipaddr.js";
import type { Plugin } from "graphql-yoga";
import type { Redis } from "ioredis";
import type { Principal } from "../../principal.js";
import { errorResponse, type Refusal } from "../../rest/problem.js";
import { stateOf } from "../request-state.js";

export type RateLimitOptions = {
  /** requests per client key per window; 0 disables @default 600 */
  limit: number;
  /** requests of the operator key per window; 0 disables @default 600 */
  operatorLimit?: number;
  /** refused authentication attempts per client address per window; 0 disables @default 60 */
  refusedLimit?: number;
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
    if (w !== window) {
      counts.clear();
      window = w;
    } // a new window starts every bucket at zero
    const n = (counts.get(bucket) ?? 0) + 1;
    counts.set(bucket, n);
    return n;
  };
}

const redisCounter =
  (redis: Redis): Count =>
  async (bucket, windowMs) => {
    if (redis.status !== "ready") throw new Error("redis not connected"); // do not queue a request behind reconnects
    const key = `og:rl:${bucket}`;
    const [[, n]] = (await redis
      .multi()
      .incr(key)
      .pexpire(key, windowMs * 2)
      .exec()) as [[null, number]];
    return n;
  };

export type RateLimiter = ReturnType<typeof createRateLimiter>;
type Limited = { headers?: Record<string, string>; refusal?: Refusal };

/**
 * One counter per process (or Redis), shared by every transport: yoga's plugins and the lanes count
 * into the same budgets. Called with a principal: that key's budget (`headers` go on the answer,
 * `refusal` is the 429). `refused(address, refusal)`: a refused key's answer, the 401 itself or,
 * past the address's budget, the 429.
 */
export function createRateLimiter({ limit, operatorLimit = 600, refusedLimit = 60, windowMs = 60_000, redis = null }: RateLimitOptions) {
  const count = redis ? redisCounter(redis) : memoryCounter();
  const budget = async (bucket: string, max: number, whose: string): Promise<Limited> => {
    if (!max) return {};
    const window = Math.floor(Date.now() / windowMs);
    // without its counter store (Redis down) the limit fails open: availability over throttling
    const used = await count(`${window}|${bucket}`, windowMs).catch(() => 0);
    if (!used) return {};
    const reset = Math.ceil(((window + 1) * windowMs - Date.now()) / 1000);
    const headers = { "ratelimit-limit": String(max), "ratelimit-remaining": String(Math.max(0, max - used)), "ratelimit-reset": String(reset) };
    if (used <= max) return { headers };
    const problem = { code: "RATE_LIMITED", detail: `More than ${max} ${whose} in a minute; retry in ${reset} s.`, meta: { retryAfter: reset } };
    return { refusal: { problem, headers: { ...headers, "retry-after": String(reset) } } };
  };
  const limiter = async (principal: Principal | undefined): Promise<Limited> => {
    if (principal?.kind === "client") return budget(principal.keyId, limit, "requests for this API key");
    if (principal?.kind === "operator") return budget("operator", operatorLimit, "requests for the operator key");
    return {};
  };
  return Object.assign(limiter, {
    /** Only a refused key counts (not an outage's 503); a request with no address (in-process, yoga.fetch) has no one to hold to it. */
    async refused(address: string | null, refusal: Refusal): Promise<Refusal> {
      if (refusal.problem.code !== "UNAUTHENTICATED" || !address) return refusal;
      return (await budget(`refused:${addressBucket(address)}`, refusedLimit, "refused authentication attempts from this address")).refusal ?? refusal;
    },
  });
}

/** An IPv6 caller holds a whole /64 (one subnet's worth of addresses to rotate through); an IPv4 one (mapped or not) its address. */
function addressBucket(address: string) {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  return parsed.kind() === "ipv6"
    ? (parsed as ipaddr.IPv6).parts
        .slice(0, 4)
        .map((p) => p.toString(16))
        .join(":") + "::/64"
    : parsed.toString();
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

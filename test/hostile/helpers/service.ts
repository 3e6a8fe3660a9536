/**
 * A running service for a hostile-load test (process.ts starts it as `npm start` does) with what
 * the tests ask of it: bounded HTTP calls, `alive()`, and the child's memory (RSS from /proc, the
 * V8 heap from the operator's /metrics scrape).
 */
import { randomUUID } from "node:crypto";
import { lstatSync, readFileSync } from "node:fs";
import { cp, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, inject } from "vitest";
import { launch, serviceEnv, sleep } from "./process.js";

export type Service = Awaited<ReturnType<typeof startService>>;
export type Answer = { status: number; headers: Headers; text: string; body: any };
type Call = { key?: string | null; body?: unknown; headers?: Record<string, string>; ms?: number };

/** Starts a service on a fresh copy of the global setup's data directory; `env` overrides serviceEnv's. */
async function startService(env: Record<string, string> = {}) {
  const dataDir = await mkdtemp(path.join(tmpdir(), "og-hostile-"));
  const template = inject("hostileDataTemplate");
  // a socket left in the directory cannot be copied, and the new process makes its own
  await cp(template, dataDir, { recursive: true, filter: (from) => !lstatSync(from).isSocket() });
  const vars = serviceEnv(dataDir, env);
  const proc = await launch(vars);
  const adminKey = vars.ADMIN_API_KEY;
  const demoKey: string = JSON.parse(await readFile(path.join(dataDir, "bootstrap.json"), "utf8")).api_key;

  /** One HTTP call, bounded; `key` defaults to the demo key (null: none); a JSON body is sent as JSON. */
  async function call(method: string, pathname: string, { key = demoKey, body, headers = {}, ms = 30_000 }: Call = {}): Promise<Answer> {
    const init = {
      method,
      headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(ms),
    };
    const answer = fetch(`${proc.base}${pathname}`, init).then(async (res) => {
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* not JSON: kept as text */
      }
      return { status: res.status, headers: res.headers, text, body: parsed };
    });
    return proc.guard(`${method} ${pathname}`, answer, ms + 5000);
  }

  /** The V8 heap in use, from the operator-authenticated scrape of /metrics. */
  async function heapUsed() {
    const scrape = await call("GET", "/metrics", { key: adminKey });
    const m = /^nodejs_heap_size_used_bytes\s+(\S+)$/m.exec(scrape.text);
    if (scrape.status !== 200 || !m) throw new Error(`/metrics with the operator key: ${scrape.status} without nodejs_heap_size_used_bytes`);
    return Number(m[1]);
  }

  /**
   * The heap once a burst's garbage is gone. V8 collects when it next needs room or once the process
   * has idled a while (its memory reducer), not when the burst ends: a reading taken at once counts
   * the burst's own garbage. Samples every second for up to `ms`, returns the first under `below`,
   * else the lowest seen.
   */
  async function settledHeap(below: number, ms = 30_000) {
    const until = Date.now() + ms;
    const seen: number[] = [];
    while (true) {
      seen.push(await heapUsed());
      if (seen.at(-1)! < below || Date.now() >= until) break;
      await sleep(1000);
    }
    return { heap: Math.min(...seen), samples: seen };
  }

  /** Resident set size of the child, from /proc (no request to the service). */
  function rss() {
    const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${proc.pid}/status`, "utf8"));
    if (!m) throw new Error(`no VmRSS for pid ${proc.pid}`);
    return Number(m[1]) * 1024;
  }

  return {
    ...proc,
    dataDir,
    adminKey,
    demoKey,
    call,
    heapUsed,
    settledHeap,
    rss,

    /** The process runs, /healthz answers 200 and an authenticated read 200 (or 429: the key's budget is spent). */
    async alive() {
      expect(proc.exit(), proc.state()).toBeNull();
      const health = await call("GET", "/healthz", { key: null, ms: 15_000 });
      expect(health.status, `GET /healthz: ${health.text.slice(0, 300)}`).toBe(200);
      const read = await call("GET", "/v2/users", { ms: 15_000 });
      expect([200, 429], `GET /v2/users with the demo key: ${read.status} ${read.text.slice(0, 300)}`).toContain(read.status);
    },

    /**
     * Samples RSS every 250 ms until `stop()`, and with `heapEveryMs` the heap too (one /metrics
     * scrape at a time: the operator key may have a budget of its own); a failed sample is skipped.
     */
    watchMemory(heapEveryMs?: number) {
      const seen = { maxRss: 0, maxHeap: 0, rssSamples: 0, heapSamples: 0 };
      let watching = true;
      const loop = async (every: number, sample: () => Promise<void>) => {
        while (watching && !proc.exit()) {
          await sample().catch(() => {});
          await sleep(every);
        }
      };
      const loops = [
        loop(250, async () => {
          seen.maxRss = Math.max(seen.maxRss, rss());
          seen.rssSamples++;
        }),
      ];
      if (heapEveryMs)
        loops.push(
          loop(heapEveryMs, async () => {
            seen.maxHeap = Math.max(seen.maxHeap, await heapUsed());
            seen.heapSamples++;
          }),
        );
      return {
        seen,
        async stop() {
          watching = false;
          await Promise.all(loops);
          return seen;
        },
      };
    },

    /** POSTs a document upload; a 429 (the per-key cap on concurrent uploads) is retried after its Retry-After. */
    async upload(input: Record<string, unknown>) {
      for (let attempt = 1; ; attempt++) {
        const answer = await call("POST", UPLOAD_PATH, { body: input, ms: 90_000 });
        if (answer.status !== 429 || attempt === 5) return answer;
        await sleep(Math.min(Number(answer.headers.get("retry-after") ?? 1), 3) * 1000);
      }
    },

    /** A new user of the demo client (or of `key`'s); its id. */
    async createUser(fields: Record<string, unknown> = {}, key = demoKey) {
      const created = await call("POST", "/v2/users", {
        key,
        body: { first_name: "Hostile", last_name: "Load", email: `${randomUUID()}@example.com`, ...fields },
      });
      expect(created.status, `POST /v2/users: ${created.text.slice(0, 300)}`).toBe(201);
      return created.body.user_id as string;
    },

    /** Stops the process (SIGTERM, then SIGKILL) and removes its data directory. */
    async dispose() {
      await proc.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * One service for a file's tests, as cheap as the suite can make it: the next test reuses it unless
 * an attack took it down, then gets a fresh one. Every service started is disposed of after the file.
 */
export function useService(env: Record<string, string> = {}) {
  const started: Service[] = [];
  afterAll(async () => {
    await Promise.all(started.map((s) => s.dispose()));
  }, 60_000);
  return async () => {
    const last = started.at(-1);
    if (last && !last.exit()) return last;
    const service = await startService(env);
    started.push(service);
    return service;
  };
}

export const MiB = 2 ** 20;
export const UPLOAD_PATH = "/v2/users/authentications/documents";

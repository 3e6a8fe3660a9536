/**
 * The load generator of bench/users-read.ts, in a process of its own so that neither the measured
 * server nor the parent's bookkeeping shares its CPU. Receives one `Load` over IPC, runs autocannon,
 * answers with the figures and exits. Every request draws its target at random from `targets`
 * (a user id and the key of the client owning it), so no answer is served from a warm row or cache.
 */
import autocannon from "autocannon";

export type Target = { key: string; id: string };
export type Load = {
  base: string;
  /** what each request asks: `{id}` in path/body is the drawn user id, `{n}` a per-request counter */
  method: "GET" | "POST";
  path: string;
  body?: string;
  targets: Target[];
  connections: number;
  seconds: number;
  /** requests per second over all connections; unset: as fast as the server answers */
  rate?: number;
};
export type LoadResult = { requests: number; rps: number; p50: number; p99: number; errors: number; non2xx: number };

process.once("message", async (load: Load) => {
  let n = 0;
  const fill = (text: string, id: string) => text.replaceAll("{id}", id).replaceAll("{n}", `${process.pid}-${n}`);
  const result = await autocannon({
    url: load.base, connections: load.connections, duration: load.seconds,
    ...(load.rate ? { overallRate: load.rate } : {}),
    requests: [{
      method: load.method,
      setupRequest(request) {
        const target = load.targets[Math.floor(Math.random() * load.targets.length)];
        n += 1;
        return {
          ...request, path: fill(load.path, target.id),
          headers: { authorization: `Bearer ${target.key}`, "content-type": "application/json" },
          ...(load.body ? { body: fill(load.body, target.id) } : {}),
        };
      },
    }],
  });
  const answer: LoadResult = {
    requests: result.requests.total, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99,
    errors: result.errors + result.timeouts, non2xx: result.non2xx,
  };
  process.send!(answer, () => process.exit(0));
});

/**
 * The load generator of bench/users-read.ts, in a process of its own so that neither the measured
 * server nor the parent's bookkeeping shares its CPU. Receives one `Load` over IPC, runs it, answers
 * with the figures and exits. Every request draws its target at random from `targets` (a user id and
 * the key of the client owning it), so no answer is served from a warm row or cache.
 *
 * At full speed that is autocannon. At a set rate it is `paced` below: autocannon's rate limit lets
 * each connection send its whole second's quota at once when a 1 s interval fires, and the intervals
 * of all connections start together, so "70 req/s over 32 connections" arrives as one burst of 70
 * per second and measures the queue of that burst (a list at 8 ms a request: p99 ~250 ms).
 */
import net from "node:net";
import { monitorEventLoopDelay } from "node:perf_hooks";
import autocannon from "autocannon";

export type Target = { key: string; id: string };
export type Load = {
  base: string;
  /** what each request asks: `{id}` in path/body is the drawn user id, `{n}` a per-request counter */
  method: "GET" | "POST" | "PUT";
  path: string;
  body?: string;
  targets: Target[];
  /**
   * each target drawn once before any again: two updates of one user in flight together would make
   * the later one fail its version check, and a user updated again while its check runs still wait
   * would reuse them, less work than the row is meant to measure
   */
  distinct?: boolean;
  connections: number;
  seconds: number;
  /** requests per second over all connections; unset: as fast as the server answers */
  rate?: number;
  /** the status of a served answer, when it is not a 2xx (a dry run's 422) */
  answerStatus?: number;
};
/**
 * `ok`: answers with a 2xx status (what a write row created or changed); `startedAt`: when the first
 * request could go out (epoch ms), what a write's settled rate counts from; `loopMaxMs`: the open
 * loop's own event-loop delay, the most it may have added to a latency
 */
export type LoadResult = {
  requests: number;
  ok: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  startedAt: number;
  loopMaxMs?: number;
};

let n = 0;
const fill = (text: string, id: string) => text.replaceAll("{id}", id).replaceAll("{n}", `${process.pid}-${n}`);

let deck: Target[] = [];
/** a target at random; with `distinct`, the next of a shuffled deck (Fisher–Yates), shuffled again once used up */
function drawTarget(load: Load) {
  const random = (below: number) => Math.floor(Math.random() * below);
  if (!load.distinct) return load.targets[random(load.targets.length)];
  if (!deck.length) {
    deck = [...load.targets];
    for (let i = deck.length - 1; i > 0; i--) {
      const j = random(i + 1);
      [deck[i], deck[j]] = [deck[j], deck[i]];
    }
  }
  return deck.pop()!;
}

/** one request as `load` describes it, on a target drawn at random */
function drawRequest(load: Load) {
  const target = drawTarget(load);
  n += 1;
  return {
    path: fill(load.path, target.id),
    body: load.body ? fill(load.body, target.id) : undefined,
    headers: { authorization: `Bearer ${target.key}`, "content-type": "application/json" },
  };
}

/**
 * Open loop at `load.rate`: request k is due at start + k / rate, sent on the first idle one of
 * `connections` keep-alive sockets (or queued for one), and its latency counts from when it was due,
 * so a slow answer is not hidden by the requests it held back (coordinated omission). Requests are
 * written and answers read as bytes on plain sockets: node's http client cost enough CPU at 5,000
 * req/s to add ~30 ms to the p99 of a server whose event loop never waited more than 17 ms.
 */
function paced(load: Load & { rate: number }): Promise<LoadResult> {
  const { hostname, port } = new URL(load.base);
  const latencies: number[] = [];
  const waiting: number[] = []; // due times of requests no socket was free for
  let sent = 0;
  let errors = 0;
  let non2xx = 0;
  const requestBytes = () => {
    const { path, body, headers } = drawRequest(load);
    const head = `${load.method} ${path} HTTP/1.1\r\nhost: ${hostname}:${port}\r\nauthorization: ${headers.authorization}\r\ncontent-type: ${headers["content-type"]}\r\n`;
    return body === undefined ? `${head}\r\n` : `${head}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  };
  const idle: Conn[] = []; // taken oldest first, so that every socket stays in use
  const all: Conn[] = [];
  class Conn {
    socket!: net.Socket;
    buffer: Buffer = Buffer.alloc(0);
    due = 0;
    busy = false;
    stopped = false;
    constructor() {
      this.connect();
    }
    /** a socket the server closed (keep-alive timeout) is opened again; a request it held is an error */
    connect() {
      this.socket = net.connect(Number(port), hostname);
      this.socket.setNoDelay(true);
      this.socket.on("data", (chunk: Buffer) => this.read(chunk));
      this.socket.on("error", () => {});
      this.socket.on("close", () => {
        if (this.stopped) return;
        this.buffer = Buffer.alloc(0);
        if (this.busy) {
          errors += 1;
          this.busy = false;
          this.next();
        }
        this.connect();
      });
    }
    next() {
      const due = waiting.shift();
      if (due === undefined) idle.push(this);
      else this.send(due);
    }
    send(due: number) {
      this.due = due;
      this.busy = true;
      this.socket.write(requestBytes());
    }
    /** one whole answer (content-length or chunked) ends the request in flight */
    read(chunk: Buffer) {
      this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
      const headEnd = this.buffer.indexOf("\r\n\r\n");
      if (headEnd < 0) return;
      const head = this.buffer.toString("latin1", 0, headEnd);
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
      const end = length ? headEnd + 4 + Number(length[1]) : this.buffer.indexOf("\r\n0\r\n\r\n", headEnd) + 7;
      if ((length && this.buffer.length < end) || (!length && end < 7)) return;
      const status = Number(head.slice(9, 12));
      if (status === load.answerStatus || (!load.answerStatus && status >= 200 && status <= 299)) latencies.push(performance.now() - this.due);
      else non2xx += 1;
      this.buffer = this.buffer.subarray(end);
      this.busy = false;
      this.next();
    }
  }
  for (let i = 0; i < load.connections; i++) all.push(new Conn());
  idle.push(...all);
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const start = performance.now();
  const startedAt = Date.now();
  const end = start + load.seconds * 1000;
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      const now = performance.now();
      // every request k with start + k / rate <= now
      const dueNow = Math.min(Math.floor(((now - start) / 1000) * load.rate) + 1, Math.ceil(load.seconds * load.rate));
      for (; sent < dueNow; sent++) {
        const due = start + (sent * 1000) / load.rate;
        const conn = idle.shift();
        if (conn) conn.send(due);
        else waiting.push(due);
      }
      if (now < end) return;
      clearInterval(timer);
      // answers still on their way count; what has not come back within 10 s is an error
      const waitFor = setInterval(() => {
        if (latencies.length + non2xx + errors < sent && performance.now() < end + 10_000) return;
        clearInterval(waitFor);
        for (const conn of all) {
          conn.stopped = true;
          conn.socket.destroy();
        }
        latencies.sort((a, b) => a - b);
        const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
        delay.disable();
        resolve({
          requests: latencies.length,
          ok: latencies.length,
          startedAt,
          rps: latencies.length / load.seconds,
          p50: at(0.5),
          p99: at(0.99),
          errors: sent - latencies.length - non2xx,
          non2xx,
          loopMaxMs: Math.max(0, Math.round((delay.max / 1e6 - 1) * 10) / 10),
        }); // beyond the 1 ms tick itself
      }, 50);
    }, 1);
  });
}

process.once("message", async (load: Load) => {
  if (load.rate) {
    const answer = await paced({ ...load, rate: load.rate });
    process.send!(answer, () => process.exit(0));
    return;
  }
  const startedAt = Date.now();
  const result = await autocannon({
    url: load.base,
    connections: load.connections,
    duration: load.seconds,
    requests: [
      {
        method: load.method,
        setupRequest(request) {
          const { path, body, headers } = drawRequest(load);
          return { ...request, path, headers, ...(body === undefined ? {} : { body }) };
        },
      },
    ],
  });
  const answer: LoadResult = {
    requests: result.requests.total,
    ok: result["2xx"],
    startedAt,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
  process.send!(answer, () => process.exit(0));
});

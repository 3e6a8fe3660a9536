/**
 * The real server process (`node dist/src/main.js` as `npm start` runs it, embedded PGlite under DATA_DIR):
 * killed with SIGKILL during writes it opens its data directory again with every acknowledged write;
 * sent SIGTERM under concurrent requests it finishes every one already sent and exits 0 within 10 s.
 * Both share one data directory (the SIGTERM test's server opens it as the earlier ones left it).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acknowledged, summary, writeLoad } from "./helpers/load.js";
import { startServer, type ServerProcess } from "./helpers/server-process.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A POST over node:http on the caller's own keep-alive agent: no pooled socket from an earlier test or server is reused. */
function post(agent: Agent, url: string, headers: Record<string, string>, body: string) {
  return new Promise<number>((resolve, reject) => {
    const req = request(url, { method: "POST", agent, headers: { ...headers, "content-length": String(Buffer.byteLength(body)) }, timeout: 15_000 }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode!)).on("error", reject);
    });
    req.on("error", reject).on("timeout", () => req.destroy(new Error("no answer within 15 s")));
    req.end(body);
  });
}

describe("the server process", () => {
  const servers: ServerProcess[] = [];
  let dataDir = "";
  let key = "";
  const start = async () => {
    const s = await startServer(dataDir);
    servers.push(s);
    key ||= await s.demoKey();
    return s;
  };
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "og-fault-proc-"));
  });
  afterAll(async () => {
    for (const s of servers) s.kill("SIGKILL");
    await rm(dataDir, { recursive: true, force: true });
  });

  it("killed with SIGKILL during writes: reopens the embedded data directory with every acknowledged write", async () => {
    const first = await start();
    const load = writeLoad(first.base, key, { workers: 8, tag: "kill", timeoutMs: 15_000 });
    await sleep(2500);
    first.kill("SIGKILL");
    await first.exited;
    const outcomes = await load.stop();
    const acked = outcomes.filter(acknowledged).map((o) => o.email);
    console.log(`sigkill: ${outcomes.length} writes, ${JSON.stringify(summary(outcomes))}`);
    expect(acked.length, "no write was acknowledged before the kill").toBeGreaterThan(0);

    const second = await start();
    const headers = { authorization: `Bearer ${key}` };
    const missing: string[] = [];
    for (const email of acked) {
      // a failed call says what the server printed: a crash shows as a reset connection here
      const res = await fetch(`${second.base}/v2/users?email=${encodeURIComponent(email)}`, { headers }).catch(async (error: Error) => {
        const exit = await Promise.race([second.exited, sleep(500).then(() => null)]);
        throw new Error(
          `${error.message} (${(error.cause as Error)?.message}); the server ${exit ? `exited ${exit.code ?? exit.signal}` : "still runs"} and printed:\n${second.output().slice(-3000)}`,
        );
      });
      const body = await res.json();
      if (res.status !== 200 || body.data?.length !== 1) missing.push(`${email}: ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
    }
    expect(missing).toEqual([]);
    second.kill("SIGTERM");
    expect((await second.exited).code).toBe(0);
  });

  it("sent SIGTERM under load: finishes every request already sent and exits 0 within 10 s", async () => {
    const server = await start();
    const agent = new Agent({ keepAlive: true, maxSockets: 16 });
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    let signalledAt = Infinity;
    const results: { started: number; ended: number; status: number; error?: string; via: string }[] = [];
    let n = 0;
    const worker = async (w: number) => {
      while (Date.now() < signalledAt) {
        const i = n++;
        const started = Date.now();
        const via = w % 2 === 0 ? "POST /v2/users" : "POST /graphql";
        try {
          const status =
            w % 2 === 0
              ? await post(
                  agent,
                  `${server.base}/v2/users`,
                  headers,
                  JSON.stringify({ first_name: "Term", last_name: `N${i}`, email: `term-${i}@example.com` }),
                )
              : await post(
                  agent,
                  `${server.base}/graphql`,
                  headers,
                  JSON.stringify({ query: "{ users(first: 5) { totalCount edges { node { id email } } } }" }),
                );
          results.push({ started, ended: Date.now(), status, via });
        } catch (error) {
          results.push({ started, ended: Date.now(), status: 0, error: (error as Error).message, via });
        }
      }
    };
    const workers = Array.from({ length: 16 }, (_, w) => worker(w));
    await sleep(2000);
    signalledAt = Date.now();
    server.kill("SIGTERM");
    await Promise.all(workers);
    const { code, signal, at } = await server.exited;
    const sent = results.filter((r) => r.started < signalledAt);
    const inFlight = sent.filter((r) => r.ended >= signalledAt);
    if (sent.some((r) => r.status === 0))
      console.log(
        server
          .output()
          .split("\n")
          .filter((l) => !l.includes('"msg":"request"'))
          .join("\n")
          .slice(-4000),
      );
    console.log(
      `sigterm: ${sent.length} requests sent before the signal, ${inFlight.length} of them still in flight at it; exit ${code ?? signal} after ${at - signalledAt} ms`,
    );
    expect(sent.filter((r) => r.status < 200 || r.status >= 300).map((r) => `${r.via} ${r.status} ${r.error ?? ""} (${r.started - signalledAt} ms)`)).toEqual(
      [],
    );
    expect(inFlight.length, "no request was in flight when the signal came").toBeGreaterThan(0);
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(at - signalledAt).toBeLessThan(10_000);
    expect(server.output()).toContain("stopping: finishing in-flight requests");
    agent.destroy();
  });
});

/**
 * Class 9, the memory ceiling: the attacks of the other files at once (oversized frames, chunked
 * bodies, made-up paths, a subscription flood with events, rounds of concurrent maximum-size
 * uploads) for about 30 s, with npm start's heap cap. The process never exits, its V8 heap stays
 * under the cap throughout, and it answers afterwards.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  bearer,
  GqlSocket,
  hugeInitFrame,
  madeUpPaths,
  MAX_DOCUMENT_BYTES,
  pdf,
  pool,
  postBytes,
  repeat,
  sendFrame,
  streamChunked,
  uploadBody,
} from "./helpers/attacks.js";
import { heapCapBytes, sleep } from "./helpers/process.js";
import { MiB, UPLOAD_PATH, useService, type Service } from "./helpers/service.js";

// development: GraphiQL on, so a keyless POST /graphql is one of the bodies read early
const service = useService({ NODE_ENV: "development" });
const BURST_MS = 30_000;
const CHECK_UPDATED = "subscription($userId: ID!) { checkUpdated(userId: $userId) { id status } }";

/** Every attack, each in its own loop until `until` or until the service is gone. */
async function mixedBurst(s: Service, until: number) {
  const gone = () => s.exit() !== null;
  const userId = await s.createUser();
  const frame = hugeInitFrame(90 * MiB);
  const upload = uploadBody(userId, pdf(MAX_DOCUMENT_BYTES));
  const chunked = [
    { path: "/graphql", headers: {} },
    { path: "/v2/users", headers: { ...bearer(s.demoKey), "idempotency-key": randomUUID() } },
    { path: "/graphql", headers: { ...bearer(s.demoKey), "idempotency-key": randomUUID() } },
  ];
  const sockets: GqlSocket[] = [];
  const subscribe = async () => {
    const socket = await GqlSocket.open(s.base, bearer(s.demoKey), 10_000).catch(() => null);
    if (socket) {
      sockets.push(socket);
      for (let i = 0; i < 100; i++) socket.subscribe(CHECK_UPDATED, { userId });
    }
  };
  const counts = await Promise.all([
    repeat(until, gone, () => sendFrame(s.base, frame, 20_000)),
    repeat(until, gone, () => Promise.all(chunked.map((c) => streamChunked(`${s.base}${c.path}`, c.headers, 60 * MiB, { ms: 20_000 })))),
    repeat(until, gone, () => madeUpPaths(s.base, 2000, 20, until)),
    repeat(until, gone, async () => {
      await Promise.all(Array.from({ length: 16 }, () => postBytes(`${s.base}${UPLOAD_PATH}`, bearer(s.demoKey), upload, 30_000)));
      await sleep(250);
    }),
    // 20 sockets × 100 subscriptions, then an event every 3 s
    pool(20, 5, subscribe, until).then(() =>
      repeat(until, gone, async () => {
        await s.call("POST", `/v2/users/${userId}/checks`, { body: { type: "TRANSACTION_MONITORING" }, ms: 10_000 }).catch(() => null);
        await sleep(3000);
      }),
    ),
  ]);
  for (const socket of sockets) socket.close();
  return { frames: counts[0], chunkedRounds: counts[1], pathRounds: counts[2], uploadRounds: counts[3], sockets: sockets.length };
}

describe("the memory ceiling", () => {
  it(`a mixed hostile burst of ~${BURST_MS / 1000} s: the process never exits, its heap stays under npm start's cap, and it answers`, async () => {
    const s = await service();
    const cap = heapCapBytes();
    const memory = s.watchMemory(1000);
    const started = Date.now();
    const done = await s.guard("the mixed burst", mixedBurst(s, started + BURST_MS), BURST_MS + 90_000).finally(async () => {
      const seen = await memory.stop();
      console.log(
        `mixed burst, ${Date.now() - started} ms: heap max ${(seen.maxHeap / MiB).toFixed(0)} MiB of ${cap / MiB} (${seen.heapSamples} samples), RSS max ${(seen.maxRss / MiB).toFixed(0)} MiB`,
      );
    });
    const seen = memory.seen;
    console.log(`mixed burst: ${JSON.stringify(done)}`);
    await s.alive();
    expect(seen.heapSamples, "heap samples taken during the burst").toBeGreaterThanOrEqual(5);
    expect(seen.maxHeap, "heap used at its highest").toBeLessThan(cap);
  });
});

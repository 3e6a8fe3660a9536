/**
 * Sockets that hold a body open: each declares 1 MiB and sends all of it but the last byte, never
 * finishing. Without a key, each is refused (401, or 429 past the refused-attempt limit) before its
 * body is read, so 150 of them pin no memory (where a lane that read the body first held 150 MiB in
 * buffers); node drops what still arrives and closes the socket soon after. And past
 * MAX_CONNECTIONS a new connection is closed as it opens.
 */
import { connect, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { sleep } from "./helpers/process.js";
import { MiB, useService, type Service } from "./helpers/service.js";

const SOCKETS = 150;

type Held = { socket: Socket; answer: () => string; closed: () => boolean };

/** A POST declaring `declared` bytes of which all but the last are sent; what came back is kept. */
async function holdBody(base: string, path: string, declared: number): Promise<Held> {
  const { hostname, port } = new URL(base);
  const socket = connect(Number(port), hostname);
  let answer = "";
  let closed = false;
  socket.on("data", (d: Buffer) => {
    answer = (answer + d.toString("latin1")).slice(0, 4096);
  });
  socket.on("error", () => {});
  socket.on("close", () => {
    closed = true;
  });
  await new Promise<void>((resolve) => socket.once("connect", resolve).once("close", resolve));
  socket.write(`POST ${path} HTTP/1.1\r\nhost: ${hostname}\r\ncontent-type: application/json\r\ncontent-length: ${declared}\r\n\r\n`);
  socket.write(Buffer.alloc(declared - 1, "a"));
  return { socket, answer: () => answer, closed: () => closed };
}

/** Bytes node holds outside the V8 heap (buffers), from the operator's /metrics scrape. */
async function externalBytes(s: Service) {
  const scrape = await s.call("GET", "/metrics", { key: s.adminKey });
  const m = /^nodejs_external_memory_bytes\s+(\S+)$/m.exec(scrape.text);
  if (!m) throw new Error(`/metrics: ${scrape.status} without nodejs_external_memory_bytes`);
  return Number(m[1]);
}

const statusOf = (held: Held) => /^HTTP\/1\.1 (\d{3})/.exec(held.answer())?.[1] ?? (held.closed() ? "closed" : "none");

describe("slow bodies without a key", () => {
  const service = useService();

  it(`${SOCKETS} keyless sockets each holding 1 MiB less a byte: refused each, buffers grow < 30 MiB, sockets closed soon after; alive`, async () => {
    const s = await service();
    const memory = s.watchMemory();
    const before = s.rss();
    const buffersBefore = await externalBytes(s);
    const paths = ["/v2/users", "/graphql", "/v2/users/authentications/documents"];
    const held = await s.guard(
      "opening the sockets",
      Promise.all(Array.from({ length: SOCKETS }, (_, i) => holdBody(s.base, paths[i % paths.length], MiB))),
      60_000,
    );
    await sleep(3000);
    const buffersHeld = await externalBytes(s);
    const statuses: Record<string, number> = {};
    for (const h of held) statuses[statusOf(h)] = (statuses[statusOf(h)] ?? 0) + 1;
    const { maxRss } = await memory.stop();
    // node drops the rest of a refused body for a while, then closes its socket
    for (const until = Date.now() + 20_000; held.some((h) => !h.closed()) && Date.now() < until; ) await sleep(250);
    const open = held.filter((h) => !h.closed()).length;
    for (const h of held) h.socket.destroy();
    const mib = (n: number) => `${(n / MiB).toFixed(0)} MiB`;
    console.log(
      `${SOCKETS} held bodies: ${JSON.stringify(statuses)}; buffers ${mib(buffersBefore)} → ${mib(buffersHeld)} while held; RSS ${mib(before)} → max ${mib(maxRss)}; ${open} still open after 20 s`,
    );
    await s.alive();
    expect((statuses["401"] ?? 0) + (statuses["429"] ?? 0), `each socket refused: ${JSON.stringify(statuses)}`).toBe(SOCKETS);
    expect(buffersHeld - buffersBefore, "buffers grown while the bodies were held").toBeLessThan(30 * MiB);
    expect(open, "sockets still open 20 s after their answer").toBe(0);
  });
});

describe("the connection cap", () => {
  const service = useService({ MAX_CONNECTIONS: "40" });

  it("past MAX_CONNECTIONS a new connection is closed as it opens; once they are gone the service answers", async () => {
    const s = await service();
    const { hostname, port } = new URL(s.base);
    const sockets = await Promise.all(
      Array.from({ length: 60 }, async () => {
        const socket = connect(Number(port), hostname).on("error", () => {});
        await new Promise<void>((resolve) => socket.once("connect", resolve).once("close", resolve));
        return socket;
      }),
    );
    await sleep(1000);
    const closed = sockets.filter((socket) => socket.destroyed || socket.readyState === "closed").length;
    for (const socket of sockets) socket.destroy();
    console.log(`60 idle connections against MAX_CONNECTIONS=40: ${closed} closed by the service`);
    await sleep(500);
    await s.alive();
    expect(closed, "connections closed past the cap").toBeGreaterThanOrEqual(20);
  });
});

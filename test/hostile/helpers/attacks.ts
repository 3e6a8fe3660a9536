/**
 * The attacks, as raw as a hostile caller sends them over loopback: an oversized graphql-ws frame, a
 * chunked body with no length, a flood of made-up paths, many graphql-ws operations, maximum-size
 * uploads. Each is bounded in count and time and reports what the service answered; the tests (and
 * the mixed burst of memory-ceiling.test.ts) decide what that answer should have been.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { Agent, request } from "node:http";
import { connect, type Socket } from "node:net";
import { WebSocket } from "ws";
import { MiB } from "./service.js";

const wsUrl = (base: string) => `${base.replace(/^http/, "ws")}/graphql`;
export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** `count` calls of `one`, at most `concurrency` at a time, until done or `until` (ms since epoch) passes. */
export async function pool<T>(count: number, concurrency: number, one: (i: number) => Promise<T>, until = Infinity): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count && Date.now() < until) {
      const i = next++;
      results[i] = await one(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return results;
}

/** `attack` again and again until `until` (ms since epoch) or until `stop()` holds (the service is gone); how many ran. */
export async function repeat(until: number, stop: () => boolean, attack: () => Promise<unknown>) {
  let n = 0;
  while (Date.now() < until && !stop()) {
    await attack();
    n++;
  }
  return n;
}

// ── 1. one oversized graphql-ws frame ──────────────────────────────────────────────────────────

/**
 * A `connection_init` text frame of `bytes`, valid JSON: a server that reads it whole parses it too.
 * One character beyond Latin-1 makes V8 hold the decoded text at two bytes a character.
 */
export function hugeInitFrame(bytes: number) {
  const head = Buffer.from('{"type":"connection_init","payload":{"pad":"€');
  const tail = Buffer.from('"}}');
  return Buffer.concat([head, Buffer.alloc(bytes - head.length - tail.length, "a"), tail]);
}

export type Closed = { code: number; reason: string; ms: number };

/** Opens an unauthenticated graphql-ws socket, sends `frame` as one text frame; how and when the socket ended. */
export function sendFrame(base: string, frame: Buffer, ms = 30_000): Promise<Closed> {
  const started = Date.now();
  return new Promise((resolve) => {
    const ws = new WebSocket(wsUrl(base), "graphql-transport-ws");
    const timer = setTimeout(() => {
      ws.terminate();
      resolve({ code: -1, reason: `still open after ${ms} ms`, ms });
    }, ms);
    ws.on("open", () => ws.send(frame, { binary: false }));
    ws.on("error", () => {
      /* the close event says how it ended */
    });
    ws.on("close", (code, reason) => {
      clearTimeout(timer);
      resolve({ code, reason: reason.toString(), ms: Date.now() - started });
    });
  });
}

// ── 2, 6. request bodies ───────────────────────────────────────────────────────────────────────

/**
 * What came of a POST. `cutOff`: the server closed or reset the connection before the body was all
 * sent and no answer could be read: a server that answers early and closes on a body it will not
 * read sends a TCP reset, which may reach the client before its answer is read.
 */
export type Sent = { status?: number; retryAfter?: string; body?: string; sentBytes: number; cutOff?: boolean; error?: string; ms: number };

/**
 * One POST over a raw socket: the head, then `parts` as the socket drains them, stopping as soon as
 * an answer starts. node:http's client drops an answer the server wrote before closing on a body
 * it would not read (its write fails with EPIPE first); here what arrived is kept and parsed.
 */
function post(url: string, headers: Record<string, string>, parts: Iterable<Buffer>, chunked: boolean, ms: number): Promise<Sent> {
  const { hostname, port, pathname } = new URL(url);
  const started = Date.now();
  const out: Sent = { sentBytes: 0, ms: 0 };
  let answer = Buffer.alloc(0);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let settled = false;
    const finish = (error?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const text = answer.toString("latin1");
      const head = /^HTTP\/1\.1 (\d{3})[^\r]*\r\n([\s\S]*?)\r\n\r\n/.exec(text);
      if (head) {
        out.status = Number(head[1]);
        out.retryAfter = /^retry-after:\s*(.+)$/im.exec(head[2])?.[1];
        out.body = text.slice(head[0].length, head[0].length + 4096);
      } else {
        out.error = error ?? `connection closed after ${answer.length} bytes of answer`;
        out.cutOff = !timedOut && !bodySent;
      }
      out.ms = Date.now() - started;
      socket.destroy();
      resolve(out);
    };
    let timedOut = false,
      bodySent = false;
    const timer = setTimeout(() => {
      timedOut = true;
      finish(`no answer within ${ms} ms`);
    }, ms);
    socket.on("data", (d: Buffer) => {
      answer = Buffer.concat([answer, d]).subarray(0, 64 * 1024);
      if (answerComplete(answer.toString("latin1"))) finish();
    });
    socket.on("error", (e: NodeJS.ErrnoException) => finish(`${e.code ?? ""} ${e.message}`.trim()));
    socket.on("close", () => finish());
    socket.on("connect", async () => {
      const lines = Object.entries({
        host: `${hostname}:${port}`,
        connection: "close",
        "content-type": "application/json",
        ...headers,
        ...(chunked ? { "transfer-encoding": "chunked" } : {}),
      });
      socket.write(`POST ${pathname} HTTP/1.1\r\n${lines.map(([k, v]) => `${k}: ${v}\r\n`).join("")}\r\n`);
      for (const part of parts) {
        // a poll between writes reads an answer that came with a reset before the next write fails on it
        await new Promise(setImmediate);
        if (answer.length || socket.destroyed) return;
        if (chunked) socket.write(`${part.length.toString(16)}\r\n`);
        const more = socket.write(part);
        if (chunked) socket.write("\r\n");
        out.sentBytes += part.length;
        if (!more) await drained(socket);
      }
      if (chunked && !socket.destroyed) socket.write("0\r\n\r\n");
      bodySent = !socket.destroyed;
    });
  });
}

/** The head is in and the body as long as its Content-Length says (or its last chunk came). */
function answerComplete(text: string) {
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) return false;
  const length = /^content-length:\s*(\d+)$/im.exec(text.slice(0, end))?.[1];
  return length !== undefined ? text.length - end - 4 >= Number(length) : text.endsWith("\r\n0\r\n\r\n");
}

/** Resolves when the socket can take more, or is gone. */
const drained = (socket: Socket) =>
  new Promise<void>((resolve) => {
    const go = () => {
      socket.off("drain", go);
      socket.off("close", go);
      resolve();
    };
    socket.on("drain", go).on("close", go);
  });

/**
 * POSTs `total` bytes with Transfer-Encoding: chunked (and no Content-Length) in `chunk`-byte chunks:
 * a JSON object whose last string holds the padding. `sentBytes`: handed to the socket before the answer.
 */
export function streamChunked(url: string, headers: Record<string, string>, total: number, { chunk = 64 * 1024, prefix = '{"pad":"', ms = 60_000 } = {}) {
  const filler = Buffer.alloc(chunk, "a");
  function* parts() {
    yield Buffer.from(prefix);
    for (let left = total - prefix.length - 2; left > 0; left -= chunk) yield left >= chunk ? filler : filler.subarray(0, left);
    yield Buffer.from('"}');
  }
  return post(url, headers, parts(), true, ms);
}

/** POSTs `body` with its Content-Length, in 64 KiB writes. */
export function postBytes(url: string, headers: Record<string, string>, body: Buffer, ms = 60_000) {
  function* parts() {
    for (let at = 0; at < body.length; at += 64 * 1024) yield body.subarray(at, at + 64 * 1024);
  }
  return post(url, { ...headers, "content-length": String(body.length) }, parts(), false, ms);
}

// ── 3. made-up paths ───────────────────────────────────────────────────────────────────────────

/** GETs `count` distinct made-up paths without a key over `concurrency` keep-alive sockets; statuses seen. */
export async function madeUpPaths(base: string, count: number, concurrency = 50, until = Infinity) {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const statuses: Record<string, number> = {};
  const tag = randomBytes(3).toString("hex");
  await pool(
    count,
    concurrency,
    (i) =>
      new Promise<void>((resolve) => {
        const req = request(`${base}/x/${tag}${i}/${randomBytes(4).toString("hex")}`, { agent, timeout: 15_000 }, (res) => {
          statuses[res.statusCode!] = (statuses[res.statusCode!] ?? 0) + 1;
          res.resume().on("end", resolve).on("error", resolve);
        });
        req.on("error", (e: NodeJS.ErrnoException) => {
          statuses[e.code ?? "error"] = (statuses[e.code ?? "error"] ?? 0) + 1;
          resolve();
        });
        req.on("timeout", () => req.destroy(Object.assign(new Error("timeout"), { code: "TIMEOUT" })));
        req.end();
      }),
    until,
  );
  agent.destroy();
  return statuses;
}

/** The distinct values of `route="…"` labels in a Prometheus scrape. */
export const routeLabels = (scrape: string) => new Set([...scrape.matchAll(/route="((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]));

// ── 4–7. graphql-ws operations ─────────────────────────────────────────────────────────────────

type GqlError = { message: string; extensions?: { code?: string } };
export type Operation = { nexts: { data?: unknown; errors?: GqlError[] }[]; errors?: GqlError[]; completed: boolean };

/** A graphql-transport-ws client kept raw: every message per operation id is recorded as it came. */
export class GqlSocket {
  readonly ops = new Map<string, Operation>();
  closed: { code: number; reason: string } | null = null;
  private constructor(readonly ws: WebSocket) {
    ws.on("message", (raw) => {
      const msg = JSON.parse(raw.toString()) as { type: string; id?: string; payload?: any };
      const op = msg.id ? this.ops.get(msg.id) : undefined;
      if (msg.type === "ping") ws.send(JSON.stringify({ type: "pong" }));
      else if (op && msg.type === "next") op.nexts.push(msg.payload);
      else if (op && msg.type === "error") op.errors = msg.payload;
      else if (op && msg.type === "complete") op.completed = true;
    });
    ws.on("close", (code, reason) => {
      this.closed = { code, reason: reason.toString() };
    });
  }

  /** Connects with `params` as connectionParams; resolves on connection_ack, fails on a close first. */
  static open(base: string, params: Record<string, unknown>, ms = 15_000): Promise<GqlSocket> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(wsUrl(base), "graphql-transport-ws");
      const socket = new GqlSocket(ws);
      const timer = setTimeout(() => {
        ws.terminate();
        reject(new Error(`no connection_ack within ${ms} ms`));
      }, ms);
      ws.on("error", () => {
        /* the close event rejects */
      });
      ws.on("open", () => ws.send(JSON.stringify({ type: "connection_init", payload: params })));
      ws.on("message", (raw) => {
        if (JSON.parse(raw.toString()).type === "connection_ack") {
          clearTimeout(timer);
          resolve(socket);
        }
      });
      ws.on("close", (code, reason) => {
        clearTimeout(timer);
        reject(new Error(`closed ${code} ${reason} before connection_ack`));
      });
    });
  }

  subscribe(query: string, variables: Record<string, unknown> = {}, id: string = randomUUID()) {
    this.ops.set(id, { nexts: [], completed: false });
    this.ws.send(JSON.stringify({ id, type: "subscribe", payload: { query, variables } }));
    return id;
  }

  /** Operations answered so far: refused (an error message, or a result with errors and no data), ended, or still open. */
  tally() {
    const refusals: string[] = [];
    let ended = 0;
    for (const op of this.ops.values()) {
      const code = refusalCode(op);
      if (code) refusals.push(code);
      else if (op.completed) ended++;
    }
    return { refusals, ended, open: this.ops.size - refusals.length - ended };
  }

  close() {
    this.ws.terminate();
  }
}

/** The code of an operation's refusal, "" when it was not refused. */
function refusalCode(op: Operation) {
  const errors = op.errors ?? op.nexts.find((n) => n.errors?.length && n.data == null)?.errors;
  return errors ? (errors[0]?.extensions?.code ?? errors[0]?.message ?? "?") : "";
}

/** How many operations were refused, by code. */
export function byCode(codes: string[]) {
  const out: Record<string, number> = {};
  for (const code of codes) out[code] = (out[code] ?? 0) + 1;
  return out;
}

/** Every op of every socket: how many are neither refused nor closed with their socket. */
export function accepted(sockets: GqlSocket[]) {
  return sockets.filter((s) => !s.closed).reduce((n, s) => n + s.tally().open + s.tally().ended, 0);
}

// ── 4, 6. documents ────────────────────────────────────────────────────────────────────────────

/** 10 MiB: the largest file the documents route accepts (documents.rules.ts MAX_DOCUMENT_BYTES). */
export const MAX_DOCUMENT_BYTES = 10 * MiB;

/** A valid PDF of exactly `size` bytes (the padding is a PDF comment). */
export function pdf(size: number) {
  const head = "%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n%";
  const tail = "\ntrailer << /Root 1 0 R >>\n%%EOF\n";
  return Buffer.concat([Buffer.from(head), Buffer.alloc(size - head.length - tail.length, "x"), Buffer.from(tail)]);
}

/** The REST upload input of a proof of address (it needs no document number) carrying `file`. */
export const documentInput = (userId: string, file: Buffer) => ({
  user_id: userId,
  document_type: "PROOF_OF_ADDRESS",
  file: { file_name: "statement.pdf", content_base64: file.toString("base64") },
});

/** The same as bytes, to send again and again. */
export const uploadBody = (userId: string, file: Buffer) => Buffer.from(JSON.stringify(documentInput(userId, file)));

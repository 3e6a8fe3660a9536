/**
 * The attacks, as raw as a hostile caller sends them over loopback: an oversized graphql-ws frame, a
 * chunked body with no length, a flood of made-up paths, many graphql-ws operations, maximum-size
 * uploads. Each is bounded in count and time and reports what the service answered; the tests (and
 * the mixed burst of memory-ceiling.test.ts) decide what that answer should have been.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { Agent, request, type ClientRequest } from "node:http";
import { WebSocket } from "ws";
import { MiB } from "./service.js";

const wsUrl = (base: string) => `${base.replace(/^http/, "ws")}/graphql`;
export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** `count` calls of `one`, at most `concurrency` at a time, until done or `until` (ms since epoch) passes. */
export async function pool<T>(count: number, concurrency: number, one: (i: number) => Promise<T>, until = Infinity): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const worker = async () => { while (next < count && Date.now() < until) { const i = next++; results[i] = await one(i); } };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return results;
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
    const timer = setTimeout(() => { ws.terminate(); resolve({ code: -1, reason: `still open after ${ms} ms`, ms }); }, ms);
    ws.on("open", () => ws.send(frame, { binary: false }));
    ws.on("error", () => { /* the close event says how it ended */ });
    ws.on("close", (code, reason) => { clearTimeout(timer); resolve({ code, reason: reason.toString(), ms: Date.now() - started }); });
  });
}

// ── 2. a chunked body with no length ───────────────────────────────────────────────────────────

export type Streamed = { status?: number; retryAfter?: string | null; body?: string; sentBytes: number; error?: string; ms: number };

/**
 * POSTs `total` bytes with Transfer-Encoding: chunked in `chunk`-byte writes (a JSON object whose one
 * string holds the padding), stopping as soon as an answer arrives; `sentBytes` is how much had been
 * handed to the socket by then.
 */
export function streamChunked(url: string, headers: Record<string, string>, total: number, { chunk = 64 * 1024, prefix = '{"pad":"', ms = 60_000 } = {}): Promise<Streamed> {
  const started = Date.now();
  const filler = Buffer.alloc(chunk, "a");
  return new Promise((resolve) => {
    const out: Streamed = { sentBytes: 0, ms: 0 };
    let settled = false;
    const finish = (error?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error && out.status === undefined) out.error = error;
      out.ms = Date.now() - started;
      req.destroy();
      resolve(out);
    };
    const timer = setTimeout(() => finish(`no answer within ${ms} ms`), ms);
    const req = request(url, { method: "POST", agent: false, headers: { "content-type": "application/json", ...headers, "transfer-encoding": "chunked" } }, (res) => {
      out.status = res.statusCode;
      out.retryAfter = res.headers["retry-after"] ?? null;
      let body = "";
      res.on("data", (d: Buffer) => { if (body.length < 4096) body += d; });
      res.on("end", () => { out.body = body; finish(); });
      res.on("error", () => { out.body = body; finish(); });
    });
    req.on("error", (error) => finish(`${(error as NodeJS.ErrnoException).code ?? ""} ${error.message}`.trim()));
    const write = async () => {
      const head = Buffer.from(prefix);
      req.write(head);
      out.sentBytes = head.length;
      while (!settled && out.status === undefined && out.sentBytes + chunk + 2 <= total) {
        out.sentBytes += chunk;
        if (!req.write(filler)) await drained(req);
      }
      if (!settled && out.status === undefined) { req.end('"}'); out.sentBytes += 2; }
    };
    void write();
  });
}

/** Resolves when the request can take more, or is gone. */
const drained = (req: ClientRequest) => new Promise<void>((resolve) => {
  const go = () => { req.off("drain", go); req.off("close", go); resolve(); };
  req.on("drain", go).on("close", go);
});

// ── 3. made-up paths ───────────────────────────────────────────────────────────────────────────

/** GETs `count` distinct made-up paths without a key over `concurrency` keep-alive sockets; statuses seen. */
export async function madeUpPaths(base: string, count: number, concurrency = 50, until = Infinity) {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const statuses: Record<string, number> = {};
  const tag = randomBytes(3).toString("hex");
  await pool(count, concurrency, (i) => new Promise<void>((resolve) => {
    const req = request(`${base}/x/${tag}${i}/${randomBytes(4).toString("hex")}`, { agent, timeout: 15_000 }, (res) => {
      statuses[res.statusCode!] = (statuses[res.statusCode!] ?? 0) + 1;
      res.resume().on("end", resolve).on("error", resolve);
    });
    req.on("error", (e: NodeJS.ErrnoException) => { statuses[e.code ?? "error"] = (statuses[e.code ?? "error"] ?? 0) + 1; resolve(); });
    req.on("timeout", () => req.destroy(Object.assign(new Error("timeout"), { code: "TIMEOUT" })));
    req.end();
  }), until);
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
    ws.on("close", (code, reason) => { this.closed = { code, reason: reason.toString() }; });
  }

  /** Connects with `params` as connectionParams; resolves on connection_ack, fails on a close first. */
  static open(base: string, params: Record<string, unknown>, ms = 15_000): Promise<GqlSocket> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(wsUrl(base), "graphql-transport-ws");
      const socket = new GqlSocket(ws);
      const timer = setTimeout(() => { ws.terminate(); reject(new Error(`no connection_ack within ${ms} ms`)); }, ms);
      ws.on("error", () => { /* the close event rejects */ });
      ws.on("open", () => ws.send(JSON.stringify({ type: "connection_init", payload: params })));
      ws.on("message", (raw) => { if (JSON.parse(raw.toString()).type === "connection_ack") { clearTimeout(timer); resolve(socket); } });
      ws.on("close", (code, reason) => { clearTimeout(timer); reject(new Error(`closed ${code} ${reason} before connection_ack`)); });
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

  close() { this.ws.terminate(); }
}

/** The code of an operation's refusal, "" when it was not refused. */
export function refusalCode(op: Operation) {
  const errors = op.errors ?? op.nexts.find((n) => n.errors?.length && n.data == null)?.errors;
  return errors ? errors[0]?.extensions?.code ?? errors[0]?.message ?? "?" : "";
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
  user_id: userId, document_type: "PROOF_OF_ADDRESS", file: { file_name: "statement.pdf", content_base64: file.toString("base64") },
});

/** The same as bytes, to send again and again. */
export const uploadBody = (userId: string, file: Buffer) => Buffer.from(JSON.stringify(documentInput(userId, file)));

export const UPLOAD_PATH = "/v2/users/authentications/documents";

export type Posted = { status?: number; retryAfter?: string | null; body?: string; error?: string; ms: number };

/** POSTs `body` with its length on a fresh connection; the answer, or how the connection failed before one. */
export function postBytes(url: string, headers: Record<string, string>, body: Buffer, ms = 60_000): Promise<Posted> {
  const started = Date.now();
  return new Promise((resolve) => {
    const out: Posted = { ms: 0 };
    const done = (error?: string) => {
      if (error && out.status === undefined) out.error = error;
      out.ms = Date.now() - started;
      resolve(out);
    };
    const req = request(url, { method: "POST", agent: false, timeout: ms, headers: { "content-type": "application/json", ...headers, "content-length": String(body.length) } }, (res) => {
      out.status = res.statusCode;
      out.retryAfter = res.headers["retry-after"] ?? null;
      let text = "";
      res.on("data", (d: Buffer) => { if (text.length < 4096) text += d; });
      res.on("end", () => { out.body = text; done(); }).on("error", () => done());
    });
    req.on("error", (error: NodeJS.ErrnoException) => done(`${error.code ?? ""} ${error.message}`.trim()));
    req.on("timeout", () => req.destroy(new Error(`no answer within ${ms} ms`)));
    req.end(body);
  });
}

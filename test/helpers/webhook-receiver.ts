/**
 * A local webhook receiver for tests and the bench: records every POST (path, headers, body, when),
 * checks its Standard Webhooks signature with the secret registered for its path (`standardwebhooks`),
 * and answers from a per-path script of statuses (the last one repeats; "hang" never answers).
 * `registerEndpoint` points a test app's webhook endpoint at one of its paths.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import type { TestApp } from "./app.js";

type Delivery = { path: string; id: string; headers: IncomingHttpHeaders; body: string; at: number; verified: boolean | null; status: number | "hang" };
export type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>;

export async function startWebhookReceiver() {
  const received: Delivery[] = [];
  const scripts = new Map<string, (number | "hang")[]>();
  /** paths whose script starts over for each webhook-id */
  const perEvent = new Map<string, (number | "hang")[]>();
  const secrets = new Map<string, string>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = req.url ?? "/";
      const body = Buffer.concat(chunks).toString("utf8");
      const secret = secrets.get(path);
      let verified: boolean | null = null;
      if (secret) {
        try {
          new Webhook(secret).verify(body, req.headers as Record<string, string>);
          verified = true;
        } catch {
          verified = false;
        }
      }
      const id = String(req.headers["webhook-id"]);
      if (perEvent.has(path) && !scripts.has(`${path}#${id}`)) scripts.set(`${path}#${id}`, [...perEvent.get(path)!]);
      const script = scripts.get(perEvent.has(path) ? `${path}#${id}` : path) ?? [200];
      const status = script.length > 1 ? script.shift()! : script[0];
      received.push({ path, id, headers: req.headers, body, at: Date.now(), verified, status });
      if (status !== "hang") res.writeHead(status).end(`status ${status}`);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    received,
    base,
    /** the URL of `path`, whose signatures are checked with `secret` once `sign` registers it */
    url: (path: string) => `${base}${path}`,
    sign(path: string, secret: string) {
      secrets.set(path, secret);
    },
    answer(path: string, ...statuses: (number | "hang")[]) {
      scripts.set(path, statuses);
    },
    /** the same script for every event: each webhook-id is answered from its own copy */
    answerEach(path: string, ...statuses: (number | "hang")[]) {
      perEvent.set(path, statuses);
    },
    at: (path: string) => received.filter((d) => d.path === path),
    /** resolves once `check` holds, polling every 20 ms; rejects after `timeoutMs` naming `what` */
    async until(what: string, check: () => boolean, timeoutMs = 15_000) {
      for (const end = Date.now() + timeoutMs; !check(); ) {
        if (Date.now() > end) throw new Error(`receiver: timed out waiting for ${what} (${received.length} received)`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** POST /v2/webhooks's answer; `secret` is shown in this answer only. */
type CreatedEndpoint = { webhook_id: string; url: string; event_types: string[]; secret: string };

/**
 * An endpoint of the client of `key` at the receiver's `path` for `eventTypes`, its secret handed
 * to the receiver so every delivery to `path` is checked. It throws rather than using vitest's
 * `expect`: the bench imports this file outside vitest.
 */
export async function registerEndpoint(t: TestApp, receiver: WebhookReceiver, key: string, path: string, eventTypes: string[]) {
  const res = await t.rest("POST", "/v2/webhooks", { key, body: { url: receiver.url(path), event_types: eventTypes } });
  if (res.status !== 201) throw new Error(`POST /v2/webhooks for ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  receiver.sign(path, res.body.secret);
  return res.body as CreatedEndpoint;
}

/**
 * node's HTTP server around the app's handler, bounded for an API rather than node's defaults (no
 * cap on connections, five minutes to send a request):
 * - MAX_CONNECTIONS open at once, WebSockets included; one more is closed as it opens;
 * - HEADERS_TIMEOUT_SECONDS for a request's headers and REQUEST_TIMEOUT_SECONDS for all of it, then
 *   node answers 408 and closes: a caller sending slowly holds its socket and its body that long at most;
 * - `Expect: 100-continue` is answered before the body comes: a declared length over the path's
 *   limit gets its 413 at once, never a `100 Continue`;
 * - a request answered before its body was all read (a refusal: 401, 413, 429) is read on and
 *   dropped for LINGER_MS at most before its socket is closed, as nginx's lingering close does: a
 *   socket closed under incoming bytes answers them with a reset, which can reach the client
 *   before the answer it was sent.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Config } from "../config.js";
import type { BodyLimitOf } from "./plugins/use-body-limit.js";

/** How long an answered request's unread body is read and dropped before its socket is closed. */
const LINGER_MS = 10_000;

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;
type Limits = Pick<Config, "maxConnections" | "headersTimeoutSeconds" | "requestTimeoutSeconds" | "keepAliveTimeoutSeconds">;

export function createHttpServer(handler: Handler, limits: Limits, bodyLimitOf: BodyLimitOf) {
  const served: Handler = (req, res) => {
    res.once("finish", () => linger(req));
    // a request that says `connection: close` is closed by node once answered: that close lingers too
    if (req.headers["content-length"] !== undefined || req.headers["transfer-encoding"] !== undefined) req.socket.destroySoon = lingeringClose;
    return handler(req, res);
  };
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutSeconds * 1000,
      requestTimeout: limits.requestTimeoutSeconds * 1000,
      keepAliveTimeout: limits.keepAliveTimeoutSeconds * 1000,
      // how often node looks for requests past their timeouts (its default, 30 s, would triple a 10 s one)
      connectionsCheckingInterval: 1000,
    },
    served,
  );
  server.maxConnections = limits.maxConnections;
  server.on("checkContinue", (req: IncomingMessage, res: ServerResponse) => {
    const declared = Number(req.headers["content-length"]);
    // over the limit: the handler answers 413 (use-body-limit.ts) and the client never sends the body
    if (!(declared > bodyLimitOf(req.method ?? "", pathOf(req.url), req.headers["content-type"]))) res.writeContinue();
    void served(req, res);
  });
  return server;
}

/** The request's unread body, if any, is left to node to drop (it does for a body no one read) until the client is done or LINGER_MS pass. */
function linger(req: IncomingMessage) {
  if (req.complete || req.socket.destroyed) return;
  const timer = setTimeout(() => req.socket.destroy(), LINGER_MS).unref();
  const done = () => clearTimeout(timer);
  req.once("end", done);
  req.socket.once("close", done);
}

/** node's close after an answer (`destroySoon`), lingering: the client's last bytes are read and dropped, not reset. */
function lingeringClose(this: Socket) {
  this.end();
  const timer = setTimeout(() => this.destroy(), LINGER_MS).unref();
  // the client is done sending (half-open sockets wait for it): nothing is left to reset
  this.once("end", () => this.destroy());
  this.once("close", () => clearTimeout(timer));
}

const pathOf = (url = "") => {
  const q = url.indexOf("?");
  return q < 0 ? url : url.slice(0, q);
};

/**
 * The body limit of every request yoga serves: MAX_BODY_BYTES, or a route's own allowance
 * (uploads). A declared length over it is refused before anything reads; a body that declares none
 * (chunked) is counted as it arrives, so every reader after this plugin (authentication's
 * introspection check, idempotency's hash, the REST shim, yoga's parsers, multipart) gets at most
 * the limit, and the read that would pass it fails.
 *
 * The 413 must reach a client that is still sending: a socket closed under incoming bytes answers
 * them with a reset, which can reach the client before the 413 it was sent. So a declared length
 * over the limit is answered at once and the connection kept: node reads the rest and drops it,
 * within the time the server lingers (server/http-server.ts; with `Expect: 100-continue` the
 * client is answered before it sends anything). A counted body cut at the limit is answered with
 * `connection: close`: its reader holds what it read, and the rest is never read, let alone held.
 */
import { Readable } from "node:stream";
import type { Plugin } from "graphql-yoga";
import { DomainError } from "../../lib/errors.js";
import { errorResponse } from "../../rest/problem.js";
import { matchRoute, type CompiledRoute } from "../../rest/routes.js";
import { carryState, isGraphQLPath, stateOf } from "../request-state.js";

type Limited = { limit: number; cut: boolean };
const counted = new WeakMap<Request, Limited>();

const detail = (limit: number) => `The body is larger than ${limit} bytes.`;

/** The 413 answer; `close`: the connection closes, and the unread rest of the body goes with it. */
function payloadTooLarge(request: Request, limit = counted.get(request)?.limit ?? 0, close = true): Response {
  return errorResponse(request, { code: "PAYLOAD_TOO_LARGE", detail: detail(limit) }, stateOf(request).requestId, close ? { connection: "close" } : {});
}

/** The body's text for a plugin that must see it before the handler does, or the 413 to answer when it is over its limit. */
export async function bodyText(request: Request): Promise<string | Response> {
  try {
    return await request.clone().text();
  } catch (error) {
    if (counted.get(request)?.cut) return payloadTooLarge(request);
    throw error;
  }
}

export type BodyLimitOf = (method: string, pathname: string, contentType: string | null | undefined) => number;

/** A request's body limit: MAX_BODY_BYTES, or more where a route allows it (uploads); a GraphQL multipart upload as much as the largest route. */
export function bodyLimits(maxBytes: number, table: CompiledRoute[]): BodyLimitOf {
  const uploadBytes = Math.max(maxBytes, ...table.map((r) => r.maxBodyBytes ?? 0));
  return (method, pathname, contentType) => {
    if (isGraphQLPath(pathname)) return /^multipart\/form-data\b/i.test(contentType ?? "") ? uploadBytes : maxBytes;
    // a path that does not decode gets the default limit here; the shim answers it 400
    const match = (() => {
      try {
        return matchRoute(table, method, pathname);
      } catch {
        return null;
      }
    })();
    return match && "route" in match ? Math.max(maxBytes, match.route.maxBodyBytes ?? 0) : maxBytes;
  };
}

export function useBodyLimit(maxBytes: number, limitOf: BodyLimitOf): Plugin {
  return {
    onRequest({ request, url, serverContext, fetchAPI, setRequest, endResponse }) {
      if (!request.body) return;
      const declared = request.headers.get("content-length");
      // node's parser never hands over more bytes than a request on its socket declares (yoga.fetch's callers are not on one)
      const bounded = declared !== null && /^\d+$/.test(declared) && !!(serverContext as { req?: unknown }).req;
      if (bounded && Number(declared) <= maxBytes) return;
      const limit = limitOf(request.method, url.pathname, request.headers.get("content-type"));
      if (declared !== null && Number(declared) > limit) return endResponse(payloadTooLarge(request, limit, !bounded));
      if (bounded) return;
      const limited: Limited = { limit, cut: false };
      const next = new fetchAPI.Request(request.url, {
        method: request.method,
        headers: request.headers,
        signal: request.signal,
        body: countedBody(request.body, limited),
        duplex: "half",
      } as unknown as RequestInit);
      carryState(request, next);
      counted.set(next, limited);
      setRequest(next);
    },
    // yoga's parsers report a failed read their own way (multipart: 400 "invalid multipart data")
    onRequestParse({ request, requestParser, setRequestParser }) {
      const limited = counted.get(request);
      if (!requestParser || !limited) return;
      setRequestParser(async (parsed) => {
        try {
          return await requestParser(parsed);
        } catch (error) {
          if (limited.cut) return payloadTooLarge(request);
          throw error;
        }
      });
    },
    onResponse({ request, response }) {
      if (counted.get(request)?.cut) response.headers.set("connection", "close");
    },
  };
}

/**
 * The body, passed on chunk by chunk until it is over the limit, then an error for every reader
 * (a node stream: whatwg-node's own streams end silently when errored). The source is left unread
 * rather than cancelled: cancelling a socket's request resets the connection before the 413 is written.
 */
function countedBody(source: ReadableStream<Uint8Array>, limited: Limited): Readable {
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let size = 0;
  return new Readable({
    read() {
      reader ??= source.getReader();
      reader.read().then(
        ({ done, value }) => {
          if (done) return void this.push(null);
          size += value.byteLength;
          if (size <= limited.limit) return void this.push(value);
          limited.cut = true;
          this.destroy(new DomainError("PAYLOAD_TOO_LARGE", detail(limited.limit)));
        },
        (error: Error) => this.destroy(error),
      );
    },
  });
}

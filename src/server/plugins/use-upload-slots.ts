/**
 * Upload slots: an upload (a REST route allowing a body above MAX_BODY_BYTES, or a GraphQL
 * multipart request) holds its body, its base64 text and its decoded bytes in memory while it is
 * checked and stored, so only a few large ones may be in flight at once:
 * MAX_CONCURRENT_UPLOADS_PER_KEY per API key and MAX_CONCURRENT_UPLOADS in the process. An upload
 * whose declared length is within MAX_BODY_BYTES weighs what any other request may, and needs no
 * slot; one larger, or of no declared length (chunked), does. The slot is taken once the key is
 * known and before anything reads the body, and given back when the answer is done, sent or not
 * (the caller hung up). Over the key's share: 429 RATE_LIMITED; over the process's: 503
 * UNAVAILABLE; both with Retry-After, and neither reads the body.
 */
import type { ServerResponse } from "node:http";
import type { Plugin } from "graphql-yoga";
import type { Principal } from "../../principal.js";
import { errorResponse, type Refusal } from "../../rest/problem.js";
import { matchRoute, type CompiledRoute } from "../../rest/routes.js";
import { isGraphQLPath, stateOf } from "../request-state.js";

export type UploadSlotOptions = { perKey: number; total: number };

/** Seconds a refused upload is told to wait: slots free as soon as an upload in flight is stored. */
const RETRY_AFTER_SECONDS = 1;

export type UploadSlots = ReturnType<typeof createUploadSlots>;

/** The process's slots: `take` answers a release (call it once the answer is done) or the refusal. */
export function createUploadSlots({ perKey, total }: UploadSlotOptions) {
  const held = new Map<string, number>();
  let inFlight = 0;
  return {
    take(principal: Principal | undefined): { release: () => void } | { refusal: Refusal } {
      const key = principal?.keyId ?? "";
      const mine = held.get(key) ?? 0;
      const headers = { "retry-after": String(RETRY_AFTER_SECONDS) };
      if (mine >= perKey)
        return {
          refusal: { problem: { code: "RATE_LIMITED", detail: `This API key already has ${perKey} uploads in flight; retry when one is done.` }, headers },
        };
      if (inFlight >= total)
        return { refusal: { problem: { code: "UNAVAILABLE", detail: "The service is taking as many uploads as it can; retry shortly." }, headers } };
      held.set(key, mine + 1);
      inFlight++;
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          inFlight--;
          const left = held.get(key)! - 1;
          if (left) held.set(key, left);
          else held.delete(key);
        },
      };
    },
    /** uploads in flight, for a key or for the process */
    inFlight: (principal?: Principal) => (principal ? (held.get(principal.keyId) ?? 0) : inFlight),
  };
}

/**
 * A request that carries a large upload: to a REST route with a larger body limit, or a GraphQL
 * multipart request, with a body that may be larger than `smallBytes`.
 */
function isLargeUpload(table: CompiledRoute[], request: Request, pathname: string, smallBytes: number) {
  if (request.method !== "POST" && request.method !== "PUT") return false;
  const length = request.headers.get("content-length");
  if (length !== null && Number(length) <= smallBytes) return false;
  if (isGraphQLPath(pathname)) return /^multipart\/form-data\b/i.test(request.headers.get("content-type") ?? "");
  // a path that does not decode is answered 400 by the shim; it carries no upload
  const match = (() => {
    try {
      return matchRoute(table, request.method, pathname);
    } catch {
      return null;
    }
  })();
  return !!match && "route" in match && match.route.maxBodyBytes !== undefined;
}

/** After authentication (slots are per key), before any plugin or parser reads the body. `smallBytes`: MAX_BODY_BYTES. */
export function useUploadSlots(slots: UploadSlots, table: CompiledRoute[], smallBytes: number): Plugin {
  const releases = new WeakMap<Request, () => void>();
  return {
    onRequest({ request, url, serverContext, endResponse }) {
      if (!isLargeUpload(table, request, url.pathname, smallBytes)) return;
      const state = stateOf(request);
      const slot = slots.take(state.principal);
      if ("refusal" in slot) return endResponse(errorResponse(request, slot.refusal.problem, state.requestId, slot.refusal.headers));
      // on node the slot lasts until the response is sent or the connection is gone; without a socket (fetch), until the answer is made
      const response = (serverContext as { res?: ServerResponse }).res;
      if (response?.once) response.once("close", slot.release);
      else releases.set(request, slot.release);
    },
    onResponse({ request }) {
      releases.get(request)?.();
    },
  };
}

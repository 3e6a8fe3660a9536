/**
 * Idempotency-Key on every POST (REST and GraphQL mutations, SPEC 12): the same key and body within
 * 24 h replays the stored response; another body → 422; the first still in flight → 409.
 * The key is claimed by inserting its row, so two instances racing on one key cannot both run.
 */
import { Response } from "../fetch-api.js";
import type { Plugin } from "graphql-yoga";
import type { Db } from "../../db/client.js";
import type { Cipher } from "../../lib/crypto.js";
import { isOutage, outageHeaders, outageProblem } from "../../db/outage.js";
import { sha256 } from "../../lib/crypto.js";
import { errorResponse, type Problem } from "../../rest/problem.js";
import { stateOf } from "../request-state.js";
import { bodyText } from "./use-body-limit.js";

const OPERATOR_TENANT = "00000000-0000-0000-0000-000000000000";
const TTL_MS = 24 * 3600 * 1000;
const REPLAYED_HEADERS = ["content-type", "etag", "location"];

/**
 * Stored answers are encrypted: a replay must hand back what was shown once (an API key, a webhook
 * secret), and the table must not keep it in clear.
 */
export function useIdempotency({ db, cipher }: { db: Db; cipher: Cipher }): Plugin {
  const claimed = new WeakMap<Request, { clientId: string; key: string }>();
  const fail = (request: Request, problem: Problem) => errorResponse(request, problem, stateOf(request).requestId);
  return {
    async onRequest({ request, url, endResponse }) {
      const key = request.headers.get("idempotency-key");
      const principal = stateOf(request).principal;
      if (request.method !== "POST" || !key || !principal) return;
      if (key.length > 255) return endResponse(fail(request, { code: "VALIDATION_FAILED", detail: "Idempotency-Key must be at most 255 characters." }));
      const clientId = principal.clientId ?? OPERATOR_TENANT;
      const body = await bodyText(request);
      if (typeof body !== "string") return endResponse(body);
      const requestHash = sha256(`${request.method} ${url.pathname}${url.search}\n${body}`);
      let existing;
      try { existing = await claim(db, clientId, key, requestHash); } catch (error) {
        if (!isOutage(error)) throw error;
        return endResponse(errorResponse(request, outageProblem, stateOf(request).requestId, outageHeaders));
      }
      if (!existing) { claimed.set(request, { clientId, key }); return; }
      if (existing.requestHash !== requestHash)
        return endResponse(fail(request, { code: "IDEMPOTENCY_KEY_REUSED", detail: "This Idempotency-Key was already used with a different request; use a new key." }));
      if (existing.responseStatus === null)
        return endResponse(fail(request, { code: "IDEMPOTENCY_KEY_IN_USE", detail: "A request with this Idempotency-Key is still being processed; retry shortly." }));
      const headers = new Headers(existing.responseHeaders as Record<string, string>);
      headers.set("idempotent-replayed", "true");
      endResponse(new Response(existing.responseBody === null ? null : cipher.decrypt(existing.responseBody), { status: existing.responseStatus, headers }));
    },
    async onResponse({ request, response }) {
      const owner = claimed.get(request);
      if (!owner) return;
      const where = { clientId_key: owner };
      // a failure the caller did not cause may succeed on retry: release the key instead of pinning it
      // (not awaited: during a database outage the release waits out a timeout the caller should not)
      if (response.status >= 500 || response.status === 429) { void db.idempotencyKey.delete({ where }).catch(() => {}); return; }
      const headers = Object.fromEntries(REPLAYED_HEADERS.flatMap((h) => (response.headers.has(h) ? [[h, response.headers.get(h)!]] : [])));
      // the change is committed and its answer decided: a database gone since then must not turn it into an error
      // (the key's row then stays "in flight", so a retry with it gets 409 rather than a second run)
      await db.idempotencyKey.update({ where, data: { responseStatus: response.status, responseHeaders: headers, responseBody: cipher.encrypt(await response.clone().text()) } })
        .catch((error) => { if (!isOutage(error)) throw error; });
    },
  };
}

/** Inserts the key's row; returns the row already there (not expired) when it was taken. */
async function claim(db: Db, clientId: string, key: string, requestHash: string) {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await db.idempotencyKey.create({ data: { clientId, key, requestHash, expiresAt: new Date(Date.now() + TTL_MS) } });
      return null;
    } catch (error) {
      if ((error as { code?: string }).code !== "P2002") throw error;
      const row = await db.idempotencyKey.findUnique({ where: { clientId_key: { clientId, key } } });
      if (row && row.expiresAt.getTime() > Date.now()) return row;
      await db.idempotencyKey.deleteMany({ where: { clientId, key, expiresAt: { lte: new Date() } } });
    }
  }
  throw new Error("idempotency key could not be claimed");
}

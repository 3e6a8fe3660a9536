/**
 * Idempotency-Key on every POST that changes something (REST, and GraphQL mutations): the
 * same key and body within 24 h replays the stored response; another body → 422; the first still
 * in flight → 409. A GraphQL query posted with a key runs as any query: it changes nothing, and
 * storing its answer would only serve stale data. The key is claimed by inserting its row, so two
 * instances racing on one key cannot both run; expired rows are purged hourly (IDEMPOTENCY_PURGE_JOB).
 */
import { getOperationAST, parse } from "graphql";
import type { GraphQLParams, Plugin } from "graphql-yoga";
import { Response } from "../fetch-api.js";
import type { Db } from "../../db/client.js";
import type { Jobs } from "../../jobs/jobs.engine.js";
import type { Cipher } from "../../lib/crypto.js";
import type { Logger } from "../../lib/logger.js";
import { isOutage, outageHeaders, outageProblem } from "../../db/outage.js";
import { sha256 } from "../../lib/crypto.js";
import { errorResponse, type Problem } from "../../rest/problem.js";
import { isGraphQLPath, stateOf } from "../request-state.js";
import { bodyText } from "./use-body-limit.js";

const OPERATOR_TENANT = "00000000-0000-0000-0000-000000000000";
const TTL_MS = 24 * 3600 * 1000;
const REPLAYED_HEADERS = ["content-type", "etag", "location"];

type Owner = { clientId: string; key: string };
type Pending = Owner & { requestHash: string };

/**
 * Stored answers are encrypted: a replay must hand back what was shown once (an API key, a webhook
 * secret), and the table must not keep it in clear.
 */
export function useIdempotency({ db, cipher }: { db: Db; cipher: Cipher }): Plugin {
  const pending = new WeakMap<Request, Pending>();
  const claimed = new WeakMap<Request, Owner>();
  const fail = (request: Request, problem: Problem, headers?: Record<string, string>) => errorResponse(request, problem, stateOf(request).requestId, headers);

  /** Claims the key, or answers for it (a replay, 409, 422, 503); null: go on and run the request. */
  async function settle(request: Request, { requestHash, ...owner }: Pending): Promise<Response | null> {
    let existing;
    try {
      existing = await claim(db, owner.clientId, owner.key, requestHash);
    } catch (error) {
      if (!isOutage(error)) throw error;
      return fail(request, outageProblem, outageHeaders);
    }
    if (!existing) {
      claimed.set(request, owner);
      return null;
    }
    if (existing.requestHash !== requestHash)
      return fail(request, { code: "IDEMPOTENCY_KEY_REUSED", detail: "This Idempotency-Key was already used with a different request; use a new key." });
    if (existing.responseStatus === null)
      return fail(request, { code: "IDEMPOTENCY_KEY_IN_USE", detail: "A request with this Idempotency-Key is still being processed; retry shortly." });
    const headers = new Headers(existing.responseHeaders as Record<string, string>);
    headers.set("idempotent-replayed", "true");
    return new Response(existing.responseBody === null ? null : cipher.decrypt(existing.responseBody), { status: existing.responseStatus, headers });
  }

  return {
    async onRequest({ request, url, endResponse }) {
      const key = request.headers.get("idempotency-key");
      const principal = stateOf(request).principal;
      if (request.method !== "POST" || !key || !principal) return;
      if (key.length > 255) return endResponse(fail(request, { code: "VALIDATION_FAILED", detail: "Idempotency-Key must be at most 255 characters." }));
      const body = await bodyText(request);
      if (typeof body !== "string") return endResponse(body);
      const asked = { clientId: principal.clientId ?? OPERATOR_TENANT, key, requestHash: sha256(`${request.method} ${url.pathname}${url.search}\n${body}`) };
      // a GraphQL POST claims its key once its operation is known to be a mutation (onRequestParse)
      if (isGraphQLPath(url.pathname)) return void pending.set(request, asked);
      const answer = await settle(request, asked);
      if (answer) endResponse(answer);
    },
    onRequestParse({ request, requestParser, setRequestParser }) {
      const owner = pending.get(request);
      if (!owner || !requestParser) return;
      setRequestParser(async (parsing) => {
        const params = await requestParser(parsing);
        return isMutation(params) ? ((await settle(request, owner)) ?? params) : params;
      });
    },
    async onResponse({ request, response }) {
      const owner = claimed.get(request);
      if (!owner) return;
      const where = { clientId_key: owner };
      // a failure the caller did not cause may succeed on retry: release the key instead of pinning it
      // (not awaited: during a database outage the release waits out a timeout the caller should not)
      if (response.status >= 500 || response.status === 429) {
        void db.idempotencyKey.delete({ where }).catch(() => {});
        return;
      }
      const headers = Object.fromEntries(REPLAYED_HEADERS.flatMap((h) => (response.headers.has(h) ? [[h, response.headers.get(h)!]] : [])));
      // the change is committed and its answer decided: a database gone since then must not turn it into an error
      // (the key's row then stays "in flight", so a retry with it gets 409 rather than a second run)
      await db.idempotencyKey
        .update({ where, data: { responseStatus: response.status, responseHeaders: headers, responseBody: cipher.encrypt(await response.clone().text()) } })
        .catch((error) => {
          if (!isOutage(error)) throw error;
        });
    },
  };
}

/** The parsed request names a mutation to run (a document that does not parse or pick one runs nothing: yoga refuses it). */
function isMutation(params: GraphQLParams | GraphQLParams[] | Response): boolean {
  const { query, operationName } = params as GraphQLParams;
  if (typeof query !== "string") return false;
  try {
    return getOperationAST(parse(query), operationName)?.operation === "mutation";
  } catch {
    return false;
  }
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

export const IDEMPOTENCY_PURGE_JOB = "idempotency.purge";
const PURGE_BATCH = 1000;

/** Deletes the keys expired by `now`, at most `batch` rows a statement (short locks, short WAL bursts); returns how many. */
export async function purgeExpiredIdempotencyKeys(db: Db, now = new Date(), batch = PURGE_BATCH): Promise<number> {
  let purged = 0;
  for (;;) {
    const deleted = await db.$executeRaw`delete from idempotency_keys where (client_id, key) in
      (select client_id, key from idempotency_keys where expires_at <= ${now} limit ${batch})`;
    purged += deleted;
    if (deleted < batch) return purged;
  }
}

/** Hourly, on one instance (pg-boss's schedule sends one job per tick across every instance). */
export function defineIdempotencyPurge(jobs: Jobs, db: Db, logger: Logger) {
  return jobs.define({
    name: IDEMPOTENCY_PURGE_JOB,
    queue: { retryLimit: 2, retryDelay: 60, expireInSeconds: 900 },
    schedule: "41 * * * *",
    work: async () => {
      logger.info({ purged: await purgeExpiredIdempotencyKeys(db) }, "expired idempotency keys purged");
    },
  });
}

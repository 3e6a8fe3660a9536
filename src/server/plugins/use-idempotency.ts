/**
 * Idempotency-Key on every POST that changes something (REST, and GraphQL mutations): the
 * same key and body from the same API key within 24 h replays the stored response; another body, or
 * another API key (even of the same client), → 422; the first still in flight → 409 with Retry-After.
 * A GraphQL query posted with a key runs as any query: it changes nothing, and storing its answer
 * would only serve stale data. Expired rows are purged hourly (IDEMPOTENCY_PURGE_JOB).
 *
 * The key is claimed by inserting its row, so two instances racing on one key cannot both run. The
 * claim names its holder (one id per attempt) and holds a short lease the holder renews while it
 * runs: a process that died lets go within LEASE_SECONDS, and a retry takes the key over. Each write
 * of the request records what it returned in its own transaction (db/write-record.ts), fenced by the
 * holder, so the attempt that took over finds the writes that committed and is handed their values
 * instead of making them again: the retry runs afresh when nothing committed and answers with what
 * committed otherwise. An attempt that lost its key to another cannot commit a write any more.
 */
import { randomUUID } from "node:crypto";
import { deserialize, serialize } from "node:v8";
import { getOperationAST, parse } from "graphql";
import type { GraphQLParams, Plugin } from "graphql-yoga";
import { Response } from "../fetch-api.js";
import type { Db } from "../../db/client.js";
import type { Tx } from "../../db/transaction.js";
import { carrying, type WriteRecord } from "../../db/write-record.js";
import type { Jobs } from "../../platform/jobs.js";
import type { Cipher } from "../../lib/crypto.js";
import type { Logger } from "../../lib/logger.js";
import { isOutage, outageHeaders, outageProblem } from "../../db/outage.js";
import { sha256 } from "../../lib/crypto.js";
import { DomainError } from "../../lib/errors.js";
import { errorResponse, type Problem } from "../../rest/problem.js";
import { isGraphQLPath, stateOf } from "../request-state.js";
import { bodyText } from "./use-body-limit.js";

const OPERATOR_TENANT = "00000000-0000-0000-0000-000000000000";
const TTL_MS = 24 * 3600 * 1000;
const REPLAYED_HEADERS = ["content-type", "etag", "location"];
/** how long a claim outlives its holder's last sign of life; renewed four times within it */
const LEASE_SECONDS = 10;
const RENEW_EVERY_MS = (LEASE_SECONDS * 1000) / 4;
/** a request still unanswered after this long is not kept alive any more: its key is left to lapse */
const LONGEST_HOLD_MS = 15 * 60 * 1000;

type Asked = { clientId: string; keyId: string; key: string; requestHash: string };
type Recorder = WriteRecord & { replayedAny(): boolean };
type Claim = Asked & { holder: string; record: Recorder; stop(): void };

/**
 * Stored answers and recorded writes are encrypted: a replay must hand back what was shown once (an
 * API key, a webhook secret), and the table must not keep it in clear.
 */
export function useIdempotency({ db, cipher }: { db: Db; cipher: Cipher }): Plugin {
  const pending = new WeakMap<Request, Asked>();
  const claimed = new WeakMap<Request, Claim>();
  const fail = (request: Request, problem: Problem, headers?: Record<string, string>) => errorResponse(request, problem, stateOf(request).requestId, headers);

  /** Claims the key, or answers for it (a replay, 409, 422, 503); null: go on and run the request. */
  async function settle(request: Request, asked: Asked): Promise<Response | null> {
    const holder = randomUUID();
    let outcome;
    try {
      outcome = await claim(db, asked, holder);
    } catch (error) {
      if (!isOutage(error)) throw error;
      return fail(request, outageProblem, outageHeaders);
    }
    if ("writes" in outcome) {
      claimed.set(request, hold(db, cipher, { ...asked, holder }, outcome.writes));
      return null;
    }
    const found = outcome;
    if (found.keyId !== asked.keyId)
      return fail(request, { code: "IDEMPOTENCY_KEY_REUSED", detail: "This Idempotency-Key was already used by another API key; use a new key." });
    if (found.requestHash !== asked.requestHash)
      return fail(request, { code: "IDEMPOTENCY_KEY_REUSED", detail: "This Idempotency-Key was already used with a different request; use a new key." });
    if (found.responseStatus === null)
      return fail(request, {
        code: "IDEMPOTENCY_KEY_IN_USE",
        detail: "A request with this Idempotency-Key is still being processed; retry shortly.",
        meta: { retryAfter: found.retryAfter },
      });
    const headers = new Headers(found.responseHeaders as Record<string, string>);
    headers.set("idempotent-replayed", "true");
    return new Response(found.responseBody === null ? null : cipher.decrypt(found.responseBody), { status: found.responseStatus, headers });
  }

  return {
    async onRequest({ request, url, endResponse }) {
      const key = request.headers.get("idempotency-key");
      const principal = stateOf(request).principal;
      if (request.method !== "POST" || !key || !principal) return;
      if (key.length > 255) return endResponse(fail(request, { code: "VALIDATION_FAILED", detail: "Idempotency-Key must be at most 255 characters." }));
      const body = await bodyText(request);
      if (typeof body !== "string") return endResponse(body);
      const asked = {
        clientId: principal.clientId ?? OPERATOR_TENANT,
        keyId: principal.keyId,
        key,
        requestHash: sha256(`${request.method} ${url.pathname}${url.search}\n${body}`),
      };
      // a GraphQL POST claims its key once its operation is known to be a mutation (onRequestParse)
      if (isGraphQLPath(url.pathname)) return void pending.set(request, asked);
      const answer = await settle(request, asked);
      if (answer) endResponse(answer);
    },
    onRequestParse({ request, requestParser, setRequestParser }) {
      const asked = pending.get(request);
      if (!asked || !requestParser) return;
      setRequestParser(async (parsing) => {
        const params = await requestParser(parsing);
        return isMutation(params) ? ((await settle(request, asked)) ?? params) : params;
      });
    },
    // the request's writes record themselves in the key's row (platform/write.ts)
    onContextBuilding({ context, extendContext }) {
      const held = claimed.get((context as { request?: Request }).request!);
      if (held) extendContext(carrying(held.record) as object);
    },
    async onResponse({ request, response }) {
      const held = claimed.get(request);
      if (!held) return;
      held.stop();
      // its writes were made by an earlier attempt: the answer is theirs, replayed
      if (held.record.replayedAny()) response.headers.set("idempotent-replayed", "true");
      // a failure the caller did not cause may succeed on retry: release the key instead of pinning it
      // (not awaited: during a database outage the release waits out a timeout the caller should not)
      if (response.status >= 500 || response.status === 429) {
        void release(db, held).catch(() => {});
        return;
      }
      const headers = Object.fromEntries(REPLAYED_HEADERS.flatMap((h) => (response.headers.has(h) ? [[h, response.headers.get(h)!]] : [])));
      // the change is committed and its answer decided: a database gone since then must not turn it into an error
      // (the row then keeps its recorded writes, and a retry once the lease ran out answers from them)
      await answered(db, held, response.status, headers, cipher.encrypt(await response.clone().text())).catch((error) => {
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

const LEASE = `clock_timestamp() + interval '${LEASE_SECONDS} seconds'`;
/** a claim whose holder has not renewed it in time (or, in a row older than leases, has none) */
const LAPSED = "coalesce(lease_until <= clock_timestamp(), true)";
const ROW = "client_id = $1::uuid and key = $2";

type Found = {
  keyId: string | null;
  requestHash: string;
  responseStatus: number | null;
  responseHeaders: unknown;
  responseBody: string | null;
  holder: string | null;
  expired: boolean;
  lapsed: boolean;
  retryAfter: number;
};

/**
 * Inserts the key's row, or takes over one whose holder let its lease lapse before answering:
 * `writes` are what the earlier attempts committed. Otherwise the row there (not expired).
 */
async function claim(db: Db, asked: Asked, holder: string): Promise<{ writes: string[] } | Found> {
  const { clientId, key } = asked;
  for (let attempt = 0; attempt < 3; attempt++) {
    const now = new Date().toISOString();
    const [inserted] = await db.$queryRawUnsafe<{ writes: string[] }[]>(
      `insert into idempotency_keys (client_id, key, key_id, request_hash, holder, lease_until, expires_at)
       values ($1::uuid, $2, $3, $4, $5::uuid, ${LEASE}, $6::timestamp) on conflict do nothing returning writes`,
      clientId,
      key,
      asked.keyId,
      asked.requestHash,
      holder,
      new Date(Date.now() + TTL_MS).toISOString(),
    );
    if (inserted) return { writes: [] };
    const [found] = await db.$queryRawUnsafe<Found[]>(
      `select key_id as "keyId", request_hash as "requestHash", response_status as "responseStatus", response_headers as "responseHeaders",
         response_body as "responseBody", holder::text as holder, expires_at <= $3::timestamp as expired, ${LAPSED} as lapsed,
         greatest(1, ceil(extract(epoch from lease_until - clock_timestamp())))::int as "retryAfter"
       from idempotency_keys where ${ROW}`,
      clientId,
      key,
      now,
    );
    if (!found) continue;
    if (found.expired) {
      await db.$executeRawUnsafe(`delete from idempotency_keys where ${ROW} and expires_at <= $3::timestamp`, clientId, key, now);
      continue;
    }
    if (found.keyId !== asked.keyId || found.requestHash !== asked.requestHash || found.responseStatus !== null || !found.lapsed) return found;
    const [taken] = await db.$queryRawUnsafe<{ writes: string[] | null }[]>(
      `update idempotency_keys set holder = $3::uuid, lease_until = ${LEASE}
       where ${ROW} and response_status is null and holder is not distinct from $4::uuid and ${LAPSED} returning writes`,
      clientId,
      key,
      holder,
      found.holder,
    );
    if (taken) return { writes: taken.writes ?? [] };
  }
  throw new Error("idempotency key could not be claimed");
}

type Held = { clientId: string; key: string; holder: string };

/** The claim of a running request: its lease renewed until it answers, and its writes' record. */
function hold(db: Db, cipher: Cipher, held: Asked & { holder: string }, writes: string[]): Claim {
  const since = Date.now();
  const renewal = setInterval(() => {
    if (Date.now() - since > LONGEST_HOLD_MS) return clearInterval(renewal);
    void db
      .$executeRawUnsafe(
        `update idempotency_keys set lease_until = ${LEASE} where ${ROW} and holder = $3::uuid and response_status is null`,
        held.clientId,
        held.key,
        held.holder,
      )
      .catch(() => {});
  }, RENEW_EVERY_MS).unref();
  return { ...held, record: recorder(cipher, held, writes), stop: () => clearInterval(renewal) };
}

/** An empty record stands for a value that could not be kept (a function, say): the write committed, its value is lost. */
const LOST = "";

function recorder(cipher: Cipher, held: Held, writes: string[]): Recorder {
  let next = 0;
  return {
    replayedAny: () => next > 0,
    replay() {
      if (next >= writes.length) return undefined;
      const sealed = cipher.decrypt(writes[next++]!);
      if (sealed === LOST)
        throw new DomainError("CONFLICT", "The first request with this Idempotency-Key made its change, but its answer was lost: read the resource to see it.");
      return { value: deserialize(Buffer.from(sealed, "base64")) };
    },
    async record(tx: Tx, value: unknown) {
      let sealed = LOST;
      try {
        sealed = serialize(value).toString("base64");
      } catch {
        // kept as lost: the write itself must not fail for it
      }
      const [fence] = await tx.$queryRawUnsafe<{ recorded: number; present: number }[]>(
        `with mine as (update idempotency_keys set writes = array_append(writes, $4), lease_until = ${LEASE} where ${ROW} and holder = $3::uuid returning 1)
         select (select count(*) from mine)::int as recorded, (select count(*) from idempotency_keys where ${ROW})::int as present`,
        held.clientId,
        held.key,
        held.holder,
        cipher.encrypt(sealed),
      );
      // no row: this very write deleted it (a sandbox reset deletes its client's keys); nothing to fence
      if (!fence!.recorded && fence!.present)
        throw new DomainError("IDEMPOTENCY_KEY_IN_USE", "Another attempt with this Idempotency-Key took it over; retry to get its answer.");
    },
  };
}

/** The answer, stored for replays; the lease ends with it. */
function answered(db: Db, held: Held, status: number, headers: Record<string, string>, body: string) {
  return db.$executeRawUnsafe(
    `update idempotency_keys set response_status = $4, response_headers = $5::jsonb, response_body = $6, lease_until = null where ${ROW} and holder = $3::uuid`,
    held.clientId,
    held.key,
    held.holder,
    status,
    JSON.stringify(headers),
    body,
  );
}

/** Lets a retry run at once: the key is freed when nothing committed, and its lease ends when something did. */
async function release(db: Db, held: Held) {
  const args = [held.clientId, held.key, held.holder] as const;
  await db.$executeRawUnsafe(`delete from idempotency_keys where ${ROW} and holder = $3::uuid and coalesce(cardinality(writes), 0) = 0`, ...args);
  await db.$executeRawUnsafe(`update idempotency_keys set lease_until = null where ${ROW} and holder = $3::uuid`, ...args);
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

/**
 * A sandbox client's clock, as writes for several clients at once need it: a job that works runs of
 * many clients stamps each client's rows with that client's time (`Actor.clocks`). A LIVE client
 * never has a clock (the sandbox routes answer 404 to its keys), so its rows carry real time.
 * The platform reads the clocks (table `sandbox_clocks`, which the sandbox module sets) because a
 * write's time is the platform's: `Effects.now(clientId)` follows them.
 */
import type { Db } from "../db/client.js";

const CLOCKS = `select sc.client_id::text as "clientId", sc.offset_seconds as "offsetSeconds" from sandbox_clocks sc
  join api_clients c on c.id = sc.client_id where sc.client_id = any($1::uuid[]) and c.mode = 'SANDBOX' and sc.offset_seconds <> 0`;

/** How far ahead (ms) each of `clientIds` whose clock was moved runs; one statement, none for no client. */
export async function clocksOf(db: Db, clientIds: Iterable<string>): Promise<Map<string, number>> {
  const ids = [...new Set(clientIds)];
  if (!ids.length) return new Map();
  const rows = await db.$queryRawUnsafe<{ clientId: string; offsetSeconds: number }[]>(CLOCKS, ids);
  return new Map(rows.map((row) => [row.clientId, row.offsetSeconds * 1000]));
}

/** The same clock inside one statement, for a row of `table` with a client_id column: its client's offset in seconds. */
export const clientOffsetSql = (table: string) =>
  `coalesce((select sc.offset_seconds from sandbox_clocks sc join api_clients c on c.id = sc.client_id
    where sc.client_id = ${table}.client_id and c.mode = 'SANDBOX'), 0)`;

/** …and the client's time at `at`. */
export const clientNowSql = (table: string, at: string) => `${at} + ${clientOffsetSql(table)} * interval '1 second'`;

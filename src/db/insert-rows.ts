/**
 * The write path's inserts of rows nobody reads back (audit entries, outbox events, queued check
 * runs) as one plain statement, sent with the rest of the write (db/statement.ts). Prisma's client
 * never caches the plan of `createMany` or `createManyAndReturn` (it skips its plan cache for them):
 * each call compiled its query again in WebAssembly, several times the cost of a plain statement.
 *
 * The rows travel as one jsonb parameter, so the statement's text is the same for any number of
 * rows. The caller gives every column, ids and timestamps included, made here as Prisma makes them
 * (uuid v4, the client's clock in UTC): the rows are known without reading them back.
 */
import { randomUUID } from "node:crypto";
import type { Statement } from "./statement.js";

/** A row's property → its column and type, e.g. `clientId: "client_id uuid"`. */
export type Columns<R> = { readonly [K in keyof R]: string };

/**
 * The insert into `table` of rows shaped by `columns` (none: no statement), its text built once;
 * `returning`, a RETURNING clause, when the statement's rows are the answer.
 */
export function rowInserter<R extends object>(table: string, columns: Columns<R>, returning = "") {
  const props = Object.keys(columns) as (keyof R & string)[];
  const names = props.map((p) => columns[p].split(" ")[0]!);
  const sql = `insert into ${table} (${names.join(", ")}) select ${names.join(", ")} from jsonb_to_recordset($1::jsonb) as r(${props.map((p) => columns[p]).join(", ")})${returning && ` ${returning}`}`;
  return (rows: readonly R[]): Statement | null => {
    if (!rows.length) return null;
    // a Date becomes ISO text in UTC; a `timestamp` column keeps its wall time, as Prisma writes it
    return { sql, params: [JSON.stringify(rows.map((row) => Object.fromEntries(props.map((p, i) => [names[i], row[p] ?? null]))))] };
  };
}

/** The id and creation time a row gets from Prisma's `@default(uuid())` and `@default(now())`. */
export const freshRow = (at = new Date()) => ({ id: randomUUID(), createdAt: at });

/** A new row's creation and update times from the writer's clock, where Prisma's `now()` defaults would take the server's. */
export const stamps = (at: Date) => ({ createdAt: at, updatedAt: at });

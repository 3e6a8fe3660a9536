/**
 * By-id reads batched across concurrent requests: under load, the reads asked for in one
 * turn of the event loop, from every request and every client, become one statement per shape
 * (`WHERE (client_id, id) IN (…)`) instead of one query each. One statement for all clients, not
 * one per client: with five clients reading at random a per-client split left ~1.7 reads a batch.
 *
 * - The window is `setImmediate`: it ends after the pending I/O of this turn has been read, well under
 *   1 ms, and nothing is scheduled while no read is waiting, so an idle process runs no timer and no
 *   query. (One `process.nextTick` never gathers a second request, and neither does Prisma's own
 *   tick-based `findUnique` batching.)
 * - One batcher per database client, registered by createDb: a transaction's client is not
 *   registered, so reads inside a transaction keep their own query and see its writes (a read
 *   through the root client would also wait on PGlite's single connection behind that transaction).
 * - Tenancy holds twice: the SQL filters on the (client, id) pairs asked for, and each row is handed
 *   only to a waiter of its own client and id; another client's row is never returned, not even
 *   inside a batch.
 * - No cache: every read is answered from the database as of its batch.
 * - Two kinds of loader: `findOwnedById` is Prisma's `findMany` with the caller's selection (relations,
 *   Json and DATE columns as for the single read); `loadOwnedById` takes a domain's own statement,
 *   run on the database's own connection (`BatchSource.rows`, no Prisma), for hot reads whose
 *   shape is fixed (users.reads.ts). Both are recorded by `countQueries`.
 */
type Selection = { select?: Record<string, unknown>; include?: Record<string, unknown> };
type OwnedRow = { id: string; clientId: string };
/** A read-only statement on the database's own connection, rows as arrays of column values. */
export type RawRows = (sql: string, params: unknown[]) => Promise<unknown[][]>;
/** What a loader reads through: the Prisma client, and its connection for plain statements. */
type BatchSource = { db: Record<string, unknown>; rows: RawRows | null };
/** The rows of these ids per client (client id → ids), all in one go; each row carries id and clientId. */
export type BatchLoad = (wanted: Map<string, string[]>, source: BatchSource) => Promise<OwnedRow[]>;

type Waiter = { resolve(row: OwnedRow | null): void; reject(error: unknown): void };
type Group = { load: BatchLoad; waiters: Map<string, { clientId: string; id: string; waiting: Waiter[] }> };
type Batcher = { source: BatchSource; groups: Map<string, Group>; scheduled: boolean };
const batchers = new WeakMap<object, Batcher>();

/** Reads through this client (not its transactions) are batched from now on; `rows` runs plain statements. */
export function batchReadsOf(db: object, rows: RawRows | null = null) {
  batchers.set(db, { source: { db: db as Record<string, unknown>, rows }, groups: new Map(), scheduled: false });
}

/** The connection for plain statements behind a batched client, or null (a transaction, a script). */
export const rawRowsOf = (db: object) => batchers.get(db)?.source.rows ?? null;

/**
 * The row `id` of `model` owned by `clientId`, read with Prisma's `findMany` and `selection`, or
 * null. `single` is the same read unbatched, used where there is no batcher (a transaction's client,
 * a CLI script's client).
 */
export function findOwnedById<T>(
  db: object,
  model: string,
  clientId: string,
  id: string,
  selection: Selection | undefined,
  single: () => Promise<T | null>,
): Promise<T | null> {
  return loadOwnedById(db, `${model}|${JSON.stringify(selection ?? {})}`, clientId, id, prismaLoad(model, selection ?? {}), single);
}

/** The same with a loader of one's own; `key` names the loader's shape (reads of one key share a batch). */
export function loadOwnedById<T>(db: object, key: string, clientId: string, id: string, load: BatchLoad, single: () => Promise<T | null>): Promise<T | null> {
  const batcher = batchers.get(db);
  if (!batcher) return single();
  let group = batcher.groups.get(key);
  if (!group) batcher.groups.set(key, (group = { load, waiters: new Map() }));
  const pair = `${clientId}|${id}`;
  let entry = group.waiters.get(pair);
  if (!entry) group.waiters.set(pair, (entry = { clientId, id, waiting: [] }));
  const { waiting } = entry;
  const answer = new Promise<OwnedRow | null>((resolve, reject) => waiting.push({ resolve, reject }));
  if (!batcher.scheduled) {
    batcher.scheduled = true;
    setImmediate(() => flush(batcher));
  }
  return answer as Promise<T | null>;
}

function flush(batcher: Batcher) {
  const groups = [...batcher.groups.values()];
  // a new Map, not `clear()`: V8's cleared table keeps a pointer to its successor, and a long-lived
  // Map cleared every batch became a chain that kept every batch's waiters (each request's state)
  // alive through minor GCs until a mark-compact
  batcher.groups = new Map();
  batcher.scheduled = false;
  for (const group of groups) void answer(batcher.source, group);
}

async function answer(source: BatchSource, { load, waiters }: Group) {
  try {
    const wanted = new Map<string, string[]>();
    for (const { clientId, id } of waiters.values()) wanted.set(clientId, [...(wanted.get(clientId) ?? []), id]);
    const rows = await load(wanted, source);
    const byPair = new Map(rows.map((row) => [`${row.clientId}|${row.id}`, row]));
    for (const [pair, { waiting }] of waiters) {
      const row = byPair.get(pair) ?? null;
      // each request gets its own object: resolvers may annotate what they were given
      waiting.forEach((w, i) => w.resolve(row && i > 0 ? { ...row } : row));
    }
  } catch (error) {
    for (const { waiting } of waiters.values()) for (const w of waiting) w.reject(error);
  }
}

type Delegate = { findMany(args: object): Promise<OwnedRow[]> };

/** Prisma's findMany over every client's ids at once: `(client_id = a AND id IN …) OR (client_id = b AND …)`. */
const prismaLoad =
  (model: string, selection: Selection): BatchLoad =>
  async (wanted, { db }) => {
    // the pairing needs both keys, whatever the caller selected
    const shape = selection.select ? { select: { ...selection.select, id: true, clientId: true } } : selection;
    const OR = [...wanted].map(([clientId, ids]) => ({ clientId, id: { in: ids } }));
    return (db[model] as Delegate).findMany({ ...shape, where: OR.length === 1 ? OR[0] : { OR } });
  };

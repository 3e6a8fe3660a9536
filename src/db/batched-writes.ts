/**
 * One-statement writes batched across concurrent requests: the writes handed over in one turn of
 * the event loop (the window of batched-reads.ts, `setImmediate`) go to the database as one
 * statement (statement.ts `writesAsOne`): one round trip, one parse and one socket write for many.
 *
 * Each write stays all or nothing, and so does the batch: PostgreSQL commits a statement whole or
 * not at all. When a batch fails (one write's unique violation, say), nothing of it was written, and
 * each of its writes is sent again alone, so each gets its own answer or its own error, none is lost
 * and none is written twice. An idle process schedules nothing.
 */
import { writesAsOne, type BatchedWrite, type Statement } from "./statement.js";

/** The rows of each write as objects (its RETURNING columns as JSON gives them). */
type Rows = Record<string, unknown>[];
type Waiting = { write: BatchedWrite; resolve(rows: Rows): void; reject(error: unknown): void };

/** Writes through `run` (a statement → its rows), at most `max` of them in one statement. */
export function batchedWrites(run: (statement: Statement) => Promise<Record<string, unknown>[]>, max: number) {
  let waiting: Waiting[] = [];

  /** The batch's rows, split by write; throws what the statement throws. */
  async function sendTogether(batch: Waiting[]): Promise<Rows[]> {
    const byWrite: Rows[] = batch.map(() => []);
    for (const { write, row } of await run(writesAsOne(batch.map((w) => w.write)))) byWrite[Number(write)]!.push(JSON.parse(row as string));
    return byWrite;
  }

  async function send(batch: Waiting[]) {
    if (batch.length > 1) {
      const rows = await sendTogether(batch).catch(() => null);
      if (rows) return batch.forEach((w, i) => w.resolve(rows[i]!));
      // one write failed the batch: each alone now, for its own answer
    }
    await Promise.all(batch.map((w) => sendTogether([w]).then(([rows]) => w.resolve(rows!), w.reject)));
  }

  function flush() {
    const batch = waiting;
    waiting = [];
    for (let i = 0; i < batch.length; i += max) void send(batch.slice(i, i + max));
  }

  return (write: BatchedWrite) =>
    new Promise<Rows>((resolve, reject) => {
      waiting.push({ write, resolve, reject });
      if (waiting.length === 1) setImmediate(flush);
    });
}

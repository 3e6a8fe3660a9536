/**
 * A database transaction and what waits for its commit. It knows nothing of what a write means:
 * audit entries, events and jobs are the events domain's (platform/write.ts).
 */
import type { Db } from "./client.js";

export type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/** Work to run once the transaction has committed; never after a rollback. */
export type AfterCommit = (hook: () => unknown) => void;

/** `fn` in one transaction; its after-commit hooks run in order once it committed (a hook's failure is the hook's to handle). */
export async function inTransaction<T>(db: Db, fn: (tx: Tx, afterCommit: AfterCommit) => Promise<T>, options?: { timeout?: number }): Promise<T> {
  const hooks: (() => unknown)[] = [];
  const result = await db.$transaction(
    (tx) =>
      fn(tx, (hook) => {
        hooks.push(hook);
      }),
    options,
  );
  for (const hook of hooks) await hook();
  return result;
}

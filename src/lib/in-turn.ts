/**
 * Work that must not overlap for one key runs in turn in this process, each call after the previous
 * one for that key has settled (failed or not). A burst for one key then holds one database
 * connection at a time instead of one per call waiting on the key's database lock, which still
 * orders the calls of different processes. A key is forgotten once nothing waits on it.
 */
export function inTurns() {
  const tails = new Map<string, Promise<void>>();
  return function inTurn<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const run = (tails.get(key) ?? Promise.resolve()).then(fn);
    const tail = run.then(
      () => {},
      () => {},
    );
    tails.set(key, tail);
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return run;
  };
}

/**
 * For what a test waits on that happens asynchronously (a job worked, an event delivered, a log line
 * written): reads `read` until `done` holds or `withinMs` pass, and returns the last value read, so
 * the test's own assertion says what was wrong. It stops as soon as `done` holds: a loaded CI machine
 * gets the time, a quick one does not wait for it.
 */
export async function eventually<T>(read: () => T | Promise<T>, done: (value: T) => boolean, withinMs = 20_000, everyMs = 100): Promise<T> {
  for (const until = Date.now() + withinMs; ; ) {
    const value = await read();
    if (done(value) || Date.now() > until) return value;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** `eventually`, failing with `what` and the last value read when `done` never held */
export async function within<T>(what: string, read: () => T | Promise<T>, done: (value: T) => boolean, withinMs = 15_000, everyMs = 100): Promise<T> {
  const value = await eventually(read, done, withinMs, everyMs);
  if (!done(value))
    throw new Error(
      `${what}: not within ${withinMs} ms (last read: ${typeof value === "number" || typeof value === "string" ? value : JSON.stringify(value)})`,
    );
  return value;
}

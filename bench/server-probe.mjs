/**
 * Preloaded into the app server by bench/users-read.ts (`node --expose-gc --import …`): on the
 * message "gc" it collects garbage twice and answers with process.memoryUsage(), so the bench
 * can tell live heap from garbage awaiting collection. Plain JS: the server runs without tsx.
 */
process.channel?.unref(); // the IPC channel must not keep a stopping server alive
process.on("message", (message) => {
  if (message !== "gc") return;
  globalThis.gc?.();
  globalThis.gc?.();
  process.send?.({ memory: process.memoryUsage() });
});

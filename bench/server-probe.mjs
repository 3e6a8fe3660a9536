/**
 * Preloaded into the app server by bench/users-read.ts (`node --expose-gc --import …`): on the
 * message "gc" it collects garbage twice and answers with process.memoryUsage(), so the bench
 * can tell live heap from garbage awaiting collection; on "loop" it answers with the event loop's
 * delay since the last "loop" (ms), which tells a stalled server from a slow load generator.
 * Plain JS: the server runs without tsx.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";

const delay = monitorEventLoopDelay({ resolution: 5 });
delay.enable();
process.channel?.unref(); // the IPC channel must not keep a stopping server alive
process.on("message", (message) => {
  if (message === "loop") {
    const ms = (ns) => Math.round(ns / 1e5) / 10;
    process.send?.({ loop: { p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), max: ms(delay.max) } });
    delay.reset();
    return;
  }
  if (message !== "gc") return;
  globalThis.gc?.();
  globalThis.gc?.();
  process.send?.({ memory: process.memoryUsage() });
});

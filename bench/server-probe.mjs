/**
 * Preloaded into the app server by bench/users-read.ts (`node --expose-gc --import …`): on the
 * message "gc" it collects garbage twice and answers with process.memoryUsage(), so the bench
 * can tell live heap from garbage awaiting collection; on "loop" it answers with the event loop's
 * delay since the last "loop" (ms), which tells a stalled server from a slow load generator, and
 * the garbage collector's pauses over the same time (count, total and longest, by kind); on
 * "profile-start" / "profile-stop" it records a CPU profile of just that window (bench/profile-read.ts)
 * and answers with the file it wrote; "promoted-start" / "promoted-stop" the same for a sampling heap
 * profile of what outlived a scavenge (what makes old space fill, and major GCs come).
 * Plain JS: the server runs without tsx.
 */
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { tmpdir } from "node:os";
import path from "node:path";
import { writeHeapSnapshot } from "node:v8";
import { monitorEventLoopDelay, PerformanceObserver, constants } from "node:perf_hooks";

// the histogram records each whole interval between the timer's ticks, the 5 ms resolution included
// (an idle server reads p50 ≈ 5.1 ms): what is reported is the lateness beyond it
const RESOLUTION_MS = 5;
const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
delay.enable();
const KINDS = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: "minor",
  [constants.NODE_PERFORMANCE_GC_MAJOR]: "major",
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: "incremental",
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: "weakcb",
};
let gc = {};
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = KINDS[entry.detail?.kind] ?? "other";
    const k = (gc[kind] ??= { count: 0, totalMs: 0, maxMs: 0 });
    k.count += 1;
    k.totalMs += entry.duration;
    k.maxMs = Math.max(k.maxMs, entry.duration);
  }
}).observe({ entryTypes: ["gc"] });
process.channel?.unref(); // the IPC channel must not keep a stopping server alive
process.on("message", (message) => {
  if (message === "loop") {
    const ms = (ns) => Math.max(0, Math.round((ns / 1e6 - RESOLUTION_MS) * 10) / 10);
    const round = (x) => Math.round(x * 10) / 10;
    const pauses = Object.fromEntries(Object.entries(gc).map(([kind, k]) => [kind, { count: k.count, totalMs: round(k.totalMs), maxMs: round(k.maxMs) }]));
    process.send?.({ loop: { p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), max: ms(delay.max), gc: pauses } });
    delay.reset();
    gc = {};
    return;
  }
  if (/^(profile|promoted|allocated)-(start|stop)$/.test(message)) return record(message);
  if (message === "mark") return process.send?.({ mark: performance.now() }); // where the measured run starts in a --log-maps log (bench/hidden-classes.ts)
  if (message === "snapshot")
    return process.send?.({
      snapshot: writeHeapSnapshot(path.join(process.env.BENCH_PROFILE_DIR ?? tmpdir(), `bench-${process.pid}-${Date.now()}.heapsnapshot`)),
    });
  if (message !== "gc") return;
  globalThis.gc?.();
  globalThis.gc?.();
  process.send?.({ memory: process.memoryUsage() });
});

/** on "<kind>-start" / "<kind>-stop": a CPU profile, or a sampling heap profile of what outlived a scavenge */
const RECORDINGS = {
  profile: {
    domain: "Profiler",
    start: ["Profiler.start"],
    setup: ["Profiler.setSamplingInterval", { interval: 500 }],
    stop: "Profiler.stop",
    ext: "cpuprofile",
  },
  promoted: {
    domain: "HeapProfiler",
    stop: "HeapProfiler.stopSampling",
    ext: "heapprofile",
    setup: null,
    start: ["HeapProfiler.startSampling", { samplingInterval: 8192, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: false }],
  },
  /** every allocation, garbage or not: what a request allocates */
  allocated: {
    domain: "HeapProfiler",
    stop: "HeapProfiler.stopSampling",
    ext: "heapprofile",
    setup: null,
    start: ["HeapProfiler.startSampling", { samplingInterval: 8192, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true }],
  },
};
let session;
function record(message) {
  const [kind, step] = message.split("-");
  const how = RECORDINGS[kind];
  if (step === "start") {
    session = new Session();
    session.connect();
    const start = () => session.post(...how.start, () => process.send?.({ recording: true }));
    session.post(`${how.domain}.enable`, () => (how.setup ? session.post(...how.setup, start) : start()));
    return;
  }
  session.post(how.stop, (error, result) => {
    const file = path.join(process.env.BENCH_PROFILE_DIR ?? tmpdir(), `bench-${process.pid}-${Date.now()}.${how.ext}`);
    if (!error) writeFileSync(file, JSON.stringify(result.profile));
    session.disconnect();
    process.send?.({ profile: error ? null : file });
  });
}

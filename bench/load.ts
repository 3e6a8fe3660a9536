/** Runs one load in its own process (load-worker.ts), so that the load generator shares no CPU with the bench's bookkeeping. */
import { fork } from "node:child_process";
import path from "node:path";
import type { Load, LoadResult } from "./load-worker.js";

export function runLoad(load: Load): Promise<LoadResult> {
  const child = fork(path.join(import.meta.dirname, "load-worker.ts"), { execArgv: ["--import", "tsx"] });
  child.send(load);
  return new Promise((resolve, reject) => {
    child.once("message", (m) => resolve(m as LoadResult));
    child.once("exit", (code) => code && reject(new Error(`load exited ${code}`)));
  });
}

import { defineConfig } from "vitest/config";
import base from "./vitest.config.js";

/**
 * The fault suite (`npm run test:faults`): PostgreSQL, Redis and the server process itself are
 * stopped, killed and restarted. Each file owns private instances (test/faults/helpers/services.ts);
 * files run one after another so a fault's timing does not depend on another file's load.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    // one project: the suite's own files, each in its own process
    projects: undefined,
    maxWorkers: undefined,
    include: ["test/faults/**/*.test.ts"],
    exclude: ["**/node_modules/**"],
    fileParallelism: false,
    testTimeout: 90_000,
    hookTimeout: 90_000,
  },
});

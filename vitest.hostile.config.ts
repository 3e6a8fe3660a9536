import { defineConfig } from "vitest/config";
import base from "./vitest.config.js";

/**
 * The hostile-load suite (`npm run test:hostile`): each file starts the real service with `npm
 * start`'s flags (test/hostile/helpers/service.ts), sends it one class of hostile load over loopback
 * and asserts it still answers; and the fuzz of every route and mutation (test/fuzz) at its full
 * count, of which `npm test` runs a fifth. Files run one after another so an attack's memory and
 * timing do not depend on another file's load.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    // one project: the suite's own files, each in its own process
    projects: undefined,
    maxWorkers: undefined,
    include: ["test/hostile/**/*.test.ts", "test/fuzz/hostile-input.test.ts"],
    exclude: ["**/node_modules/**"],
    globalSetup: ["test/helpers/global-setup.ts", "test/hostile/helpers/global-setup.ts"],
    env: { ...base.test?.env, FUZZ_SCALE: process.env.FUZZ_SCALE ?? "1" },
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});

import { defineConfig } from "vitest/config";
import base from "./vitest.config.js";

/**
 * The hostile-load suite (`npm run test:hostile`): each file starts the real service with `npm
 * start`'s flags (test/hostile/helpers/service.ts), sends it one class of hostile load over loopback
 * and asserts it still answers. Files run one after another so an attack's memory and timing do not
 * depend on another file's load.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ["test/hostile/**/*.test.ts"],
    exclude: ["**/node_modules/**"],
    globalSetup: ["test/hostile/helpers/global-setup.ts"],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});

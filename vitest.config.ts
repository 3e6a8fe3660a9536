import { defineConfig } from "vitest/config";

/**
 * Files that change what every later file in their process would see: the lanes suite sets the
 * transport and drops DATABASE_URL before it imports other suites to run them again; the fuzz sets
 * NODE_ENV per mode. They run in a process of their own; every other file shares its worker's module
 * cache (the schema, the compiled routes, the loaded watchlist are built once per worker, not once
 * per file).
 */
const OWN_PROCESS = ["test/lanes.test.ts", "test/fuzz/hostile-input.test.ts"];

export default defineConfig({
  // one graphql instance: some packages require() its CJS build while vite would load the .mjs one
  resolve: { alias: { graphql: "graphql/index.js" } },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // one migrated in-memory database for every test process to start from (test/helpers/global-setup.ts)
    globalSetup: ["test/helpers/global-setup.ts"],
    // the fuzz runs a fifth of its requests here; the hostile-load suite runs them all
    env: { NODE_ENV: "test", FUZZ_SCALE: process.env.FUZZ_SCALE ?? "0.2" },
    // `npm run test:coverage`: statements of src/ the suite runs, the figure a redesign must not lower
    coverage: { provider: "v8", include: ["src/**/*.ts"], exclude: ["src/**/*.test.ts"], reporter: ["text-summary", "json-summary"], reportOnFailure: true },
    // as many files at once as there are cores (vitest's default leaves one idle): most of a file's time is the database's
    maxWorkers: 2,
    projects: [
      // the fault suite stops and restarts its own services: `npm run test:faults`; the hostile-load suite: `npm run test:hostile`
      {
        extends: true,
        test: {
          name: "shared",
          isolate: false,
          include: ["src/**/*.test.ts", "test/**/*.test.ts"],
          exclude: ["**/node_modules/**", "test/faults/**", "test/hostile/**", ...OWN_PROCESS],
        },
      },
      { extends: true, test: { name: "own-process", include: OWN_PROCESS } },
    ],
  },
});

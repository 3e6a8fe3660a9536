import { defineConfig } from "vitest/config";

export default defineConfig({
  // one graphql instance: some packages require() its CJS build while vite would load the .mjs one
  resolve: { alias: { graphql: "graphql/index.js" } },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // the fault suite stops and restarts its own services: `npm run test:faults`; the hostile-load suite: `npm run test:hostile`
    exclude: ["**/node_modules/**", "test/faults/**", "test/hostile/**"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // one migrated in-memory database for every test process to start from (test/helpers/global-setup.ts)
    globalSetup: ["test/helpers/global-setup.ts"],
    env: { NODE_ENV: "test" },
    // `npm run test:coverage`: statements of src/ the suite runs, the figure a redesign must not lower
    coverage: { provider: "v8", include: ["src/**/*.ts"], exclude: ["src/**/*.test.ts"], reporter: ["text-summary", "json-summary"], reportOnFailure: true },
  },
});

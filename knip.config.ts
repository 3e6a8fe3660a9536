/**
 * knip (`npm run lint:unused`, part of `npm test`): files nothing reaches, exports nothing imports,
 * dependencies nothing uses. Entries are what a person or a process starts: the service, the CLI,
 * the migration child the server forks, the bench and build scripts, the tests and their configs.
 * Those knip's plugins find by themselves are not repeated here (it would call them redundant):
 * src/cli/main.ts through `npm run schema:print`, vitest.config.ts and each config's globalSetup
 * through the vitest plugin, prisma.config.ts and prisma/schema.prisma through the prisma plugin.
 */
import type { KnipConfig } from "knip";

const config: KnipConfig = {
  entry: [
    "src/main.ts",
    // forked by src/db/migrations.ts by path, never imported
    "src/db/migrate-child.ts",
    // run by hand (`npx tsx …`, its README)
    "src/domains/checks/screening/testset/build-testset.ts",
    "bench/*.{ts,mjs}",
    "scripts/*.{ts,mjs}",
    "{src,test}/**/*.test.ts",
    "vitest.*.config.ts",
  ],
  // the layer rule's deliberate violations (test/layers.test.ts cruises them by path)
  ignore: ["test/fixtures/**"],
  ignoreDependencies: [
    // src/server/plugins/use-api-docs.ts serves its files: createRequire().resolve("swagger-ui-dist/package.json")
    "swagger-ui-dist",
    // scripts/build-remittance-data.ts reads their data files by package name (createRequire), never imports them
    "banks-ng",
    "clabe-validator",
    "ifsc",
    "vietnam-qr-pay",
    // a transitive dependency the project patches (patches/); test/dependency-patches.test.ts checks the patch took
    "@prisma/debug",
    // the generator `provider` in prisma/schema.prisma: a binary of @pothos/plugin-prisma, not a package
    "prisma-pothos-types",
  ],
  /*
   * Exports nothing imports, in files the write-path rework is rewriting: left for that change. Per
   * file and issue type, the narrowest knip allows without a tag in the file itself; knip does not say
   * when an entry is no longer needed, so delete each with the exports it names and run knip.
   */
  ignoreIssues: {
    "src/db/client.ts": ["exports"], // openPGlite
    "src/db/outage.ts": ["exports"], // RETRY_AFTER_SECONDS, UNAVAILABLE_DETAIL
    "src/db/batched-reads.ts": ["types"], // BatchSource
    "src/domains/checks/checks.engine.ts": ["exports"], // CHECK_RUN_JOB, checkView, userView, settleUser, runChecks
    "src/domains/events/events.pubsub.ts": ["types"], // UserStatusEvent, RiskLevelEvent
    "src/jobs/jobs.engine.ts": ["exports", "types"], // POLLING_INTERVAL_SECONDS, transactionDb; JobHandler
    "src/jobs/jobs.upgrade.ts": ["exports", "types"], // PG_BOSS_10_SCHEMA_VERSION, constructionScript; Session
  },
  // system programs the fault and patch tests run, not npm packages
  ignoreBinaries: ["redis-server", "sha256sum"],
};

export default config;

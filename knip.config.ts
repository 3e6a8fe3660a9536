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
    // run by test/helpers/global-setup.ts by path, never imported
    "test/helpers/migrated-image.ts",
    // loaded into a fault test's server process by NODE_OPTIONS=--import, never imported
    "test/faults/helpers/kill-on-sql.mjs",
    // run by hand (`npx tsx …`, its README)
    "src/domains/checks/screening/testset/build-testset.ts",
    "bench/*.{ts,mjs}",
    "scripts/*.{ts,mjs}",
    // the compliance console's browser app: scripts/build-console.mjs bundles it by path
    "console/main.tsx",
    // each module's topics merge into the platform's bus by declaration merging; nothing imports them
    "src/domains/*/*.topics.ts",
    "{src,test}/**/*.test.ts",
    // imported by test/contract.test.ts by a path the type checker does not follow (its types are generated)
    "test/contract/integrator.ts",
    "vitest.*.config.ts",
  ],
  // the layer rule's deliberate violations (test/layers.test.ts cruises them by path)
  ignore: ["test/fixtures/**"],
  ignoreDependencies: [
    // src/server/plugins/use-api-docs.ts serves its files: createRequire().resolve("swagger-ui-dist/package.json")
    "swagger-ui-dist",
    // scripts/build-remittance-data.ts reads their data files by package name (createRequire), never imports them
    "banks-ng",
    "vietnam-qr-pay",
    // a transitive dependency the project patches (patches/); test/dependency-patches.test.ts checks the patch took
    "@prisma/debug",
    // test/contract.test.ts runs its command line by path (a proxy checking every request and answer against the document)
    "@stoplight/prism-cli",
    // the generator `provider` in prisma/schema.prisma: a binary of @pothos/plugin-prisma, not a package
    "prisma-pothos-types",
  ],
  // system programs tests run (the fault and patch tests; openssl makes the webhook sandbox test's TLS certificate), not npm packages
  ignoreBinaries: ["redis-server", "sha256sum", "openssl"],
};

export default config;

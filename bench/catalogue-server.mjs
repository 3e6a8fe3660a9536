/**
 * The app compiled as `npm start` runs it (dist/, no loader, no source maps), on the embedded PGlite
 * of DATA_DIR with the shipped reference catalogue and one sandbox key of scope lookups:read.
 * Forked by bench/payout-validate.ts after a build; answers `{port, apiKey}` over IPC and stops on
 * SIGTERM. Plain JS so that it runs without tsx, whose stack-trace source mapping a request's error
 * path would otherwise pay for.
 */
const { buildApp } = await import("../dist/src/app.js");
const { loadConfig } = await import("../dist/src/config.js");
const { createApiClient } = await import("../dist/src/domains/clients/clients.service.js");
const { OPERATOR } = await import("../dist/src/principal.js");
const { loadShippedReferenceData } = await import("../dist/src/domains/remittance/remittance.import.js");

const app = await buildApp(loadConfig({ ...process.env, LOG_LEVEL: "warn" }));
await loadShippedReferenceData(app.services.db);
const { apiKey } = await createApiClient(app.services.transact, { principal: OPERATOR }, { name: "bench", mode: "SANDBOX", scopes: ["lookups:read"] });
const port = await app.start(0, "127.0.0.1");
process.send?.({ port, apiKey });
process.on("SIGTERM", async () => {
  await app.stop();
  process.exit(0);
});

/** Child process for the benches: the real app on PostgreSQL (or PGlite), seeded with one user (BENCH_CLIENT_MODE=LIVE for a live key). */
import { buildApp } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { OPERATOR } from "../src/principal.js";
import { createApiClient } from "../src/domains/clients/clients.service.js";

const app = await buildApp(loadConfig({ ...process.env, LOG_LEVEL: "warn" }));
const { apiKey, client } = await createApiClient(
  app.services.transact,
  { principal: OPERATOR },
  { name: "bench", mode: process.env.BENCH_CLIENT_MODE === "LIVE" ? "LIVE" : "SANDBOX" },
);
const user = await app.services.db.user.create({
  data: { clientId: client.id, firstName: "Bench", lastName: "User", email: `bench-${Date.now()}@example.com` },
});
const port = await app.start(0, "127.0.0.1");
process.send?.({ port, apiKey, userId: user.id, clientId: client.id });
// the parent asks for memory after the load: resident set and heap in MiB
process.on("message", (m) => {
  if (m !== "memory") return;
  (globalThis as { gc?: () => void }).gc?.(); // with --expose-gc: live heap, not garbage awaiting collection
  const { rss, heapUsed } = process.memoryUsage();
  process.send?.({ rssMiB: Math.round(rss / 2 ** 20), heapUsedMiB: Math.round(heapUsed / 2 ** 20) });
});
process.on("SIGTERM", async () => {
  await app.stop();
  process.exit(0);
});

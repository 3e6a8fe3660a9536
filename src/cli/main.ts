/**
 * `npm run --silent cli -- <command>`: clients create|list, keys rotate|revoke, reference import, compliance import, migrate,
 * schema print, watchlist import.
 * Works on the configured database (embedded PGlite only while the server is stopped). Prints JSON.
 */
import { parseArgs } from "node:util";
import { printSchema } from "graphql";
import { ConfigError, loadConfig } from "../config.js";
import { OPERATOR } from "../context.js";
import { createDb } from "../db/client.js";
import { createApiClient, listApiClients, revokeApiKey, rotateApiKey } from "../domains/clients/clients.service.js";
import { importWatchlistFile } from "../domains/checks/screening/watchlist-import.js";
import { importReferenceFile } from "../domains/remittance/remittance.import.js";
import { importRuleSetFile } from "../domains/compliance/compliance.import.js";
import { DomainError } from "../lib/errors.js";

const USAGE = `usage: cli <command>
  clients create --name NAME (--sandbox | --live) [--scopes "users:read users:write"]
  clients list
  keys rotate --client CLIENT_ID
  keys revoke --key KEY_ID
  reference import FILE   (.json or .csv; all or nothing)
  compliance import FILE  (one rule set, data/compliance/README.md; running servers pick it up)
  migrate
  schema print
  watchlist import FILE [--date YYYY-MM-DD]   (a newer OFAC SDN sdn.csv; validated, then copied into DATA_DIR/sanctions)`;

const actor = { principal: OPERATOR, requestId: "cli" };
const print = (value: unknown) => console.log(JSON.stringify(value, null, 2));

async function main(argv: string[]) {
  const { positionals, values } = parseArgs({
    args: argv, allowPositionals: true,
    options: { name: { type: "string" }, sandbox: { type: "boolean" }, live: { type: "boolean" }, scopes: { type: "string" }, client: { type: "string" }, key: { type: "string" }, date: { type: "string" } },
  });
  const command = positionals.slice(0, 2).join(" ");
  if (command === "schema print") {
    const { schema } = await import("../graphql/schema.js");
    process.stdout.write(printSchema(schema) + "\n");
    return;
  }
  if (command === "watchlist import") {
    const file = positionals[2];
    if (!file) throw new UsageError("watchlist import needs a FILE (OFAC sdn.csv)");
    const r = await importWatchlistFile(file, loadConfig().dataDir, values.date);
    return print({ version: r.version.id, published_on: r.version.publishedOn, sha256: r.version.sha256, individuals: r.stats.individuals, names: r.stats.names, file: r.file, replaced: r.replaced, build_ms: r.stats.buildMs });
  }
  const db = await createDb(loadConfig());
  try {
    const applied = await db.migrate();
    if (command === "migrate") return print({ applied });
    switch (command) {
      case "clients create": {
        if (!values.name || values.sandbox === values.live) throw new UsageError("clients create needs --name and one of --sandbox / --live");
        const scopes = values.scopes?.split(/[\s,]+/).filter(Boolean);
        const r = await createApiClient(db.prisma, actor, { name: values.name, mode: values.live ? "LIVE" : "SANDBOX", scopes });
        return print({ client_id: r.client.id, name: r.client.name, mode: r.client.mode, scopes: r.client.scopes, api_key: r.apiKey, key_id: r.keyId });
      }
      case "reference import": {
        const file = positionals[2];
        if (!file) throw new UsageError("reference import needs a FILE (.json or .csv)");
        return print({ imported: await importReferenceFile(db.prisma, file, actor) });
      }
      case "compliance import": {
        const file = positionals[2];
        if (!file) throw new UsageError("compliance import needs a FILE (a rule set, .json)");
        return print({ imported: await importRuleSetFile(db.prisma, file, actor) });
      }
      case "clients list":
        return print((await listApiClients(db.prisma)).map((c) => ({ client_id: c.id, name: c.name, mode: c.mode, scopes: c.scopes, keys: c.keys })));
      case "keys rotate": {
        if (!values.client) throw new UsageError("keys rotate needs --client CLIENT_ID");
        const r = await rotateApiKey(db.prisma, actor, values.client);
        return print({ client_id: r.client.id, api_key: r.apiKey, key_id: r.keyId });
      }
      case "keys revoke": {
        if (!values.key) throw new UsageError("keys revoke needs --key KEY_ID");
        const r = await revokeApiKey(db.prisma, actor, values.key);
        return print({ key_id: r.id, client_id: r.clientId, revoked_at: r.revokedAt });
      }
      default:
        throw new UsageError(`unknown command "${positionals.join(" ")}"`);
    }
  } finally {
    await db.close();
  }
}

class UsageError extends Error {}

try {
  await main(process.argv.slice(2));
  process.exit(0); // the WASM schema engine leaves a timer behind
} catch (error) {
  if (error instanceof UsageError) console.error(`${error.message}\n${USAGE}`);
  else if (error instanceof ConfigError) console.error(`config: ${error.message}`);
  else if (error instanceof DomainError) console.error(JSON.stringify({ code: error.code, detail: error.message, errors: error.fields }));
  else console.error(error);
  process.exit(2);
}

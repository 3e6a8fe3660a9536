/**
 * The CLI's commands on a database, shared by the CLI process and the running server (which runs
 * them for a CLI that finds the embedded database taken: cli/control-socket.ts). Results are
 * JSON-ready and snake_case, the same names REST answers with.
 */
import { parseArgs } from "node:util";
import { CLI_ACTOR } from "../principal.js";
import type { Db } from "../db/client.js";
import { createApiClient, listApiClients, revokeApiKey, rotateApiKey } from "../domains/clients/clients.service.js";
import type { EventBus } from "../platform/bus.js";
import type { Transact } from "../platform/write.js";
import { importReferenceFile } from "../domains/remittance/remittance.import.js";
import { importRuleSetFile } from "../domains/compliance/compliance.import.js";
import { snakeKeys } from "./snake-keys.js";
import { runPeriodicChecks } from "../domains/checks/checks.periodic.js";
import { recordWatchlistImport } from "../domains/checks/checks.rescreen.js";
import { importWatchlistFile } from "../domains/checks/screening/watchlist-import.js";
import type { Jobs } from "../platform/jobs.js";
import { createLogger, type Logger } from "../lib/logger.js";

export const USAGE = `usage: cli <command>
  clients create --name NAME (--sandbox | --live) [--scopes "users:read users:write"]
  clients list
  keys rotate --client CLIENT_ID
  keys revoke --key KEY_ID
  reference import FILE   (.json or .csv, see docs/reference-import.md; all or nothing)
  compliance import FILE  (one rule set, data/compliance/README.md; running servers pick it up)
  watchlist import FILE [--date YYYY-MM-DD]   (a newer OFAC SDN sdn.csv; validated, copied into DATA_DIR/sanctions, and whoever its changes could concern re-screened)
  checks run-periodic     (one pass now: queues re-screening for every user who is due; the service's workers run them)
  migrate
  worker                  (works background jobs until SIGTERM; run the web instances with JOBS=0)
  schema print`;

export class UsageError extends Error {}

/**
 * What a command needs: the database, how to migrate it, the bus that tells running instances of a
 * change, and (for commands that queue work) the job engine, opened on demand.
 */
/** `transact`: how this process writes (the service's own through the control socket, else the CLI's: src/writes.ts). `dataDir`: where lists go. */
export type CommandContext = {
  db: Db;
  transact: Transact;
  migrate: () => Promise<string[]>;
  dataDir: string;
  events?: EventBus;
  jobs?: () => Promise<Jobs>;
  logger?: Logger;
};

export function parseCommand(argv: string[]) {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: "string" },
      sandbox: { type: "boolean" },
      live: { type: "boolean" },
      scopes: { type: "string" },
      client: { type: "string" },
      key: { type: "string" },
      date: { type: "string" },
    },
  });
  return { command: positionals.slice(0, 2).join(" "), positionals, values };
}

export async function runCommand({ db, transact, migrate, dataDir, events, jobs, logger }: CommandContext, argv: string[]): Promise<unknown> {
  const { command, positionals, values } = parseCommand(argv);
  const applied = await migrate();
  // a key change reaches every instance's principal cache, as the admin mutations' does
  const announce = (clientId: string) => events?.publish("credentials.changed", { clientId });
  switch (command) {
    case "migrate":
      return { applied };
    case "clients create": {
      if (!values.name || values.sandbox === values.live) throw new UsageError("clients create needs --name and one of --sandbox / --live");
      const scopes = values.scopes?.split(/[\s,]+/).filter(Boolean);
      const r = await createApiClient(transact, CLI_ACTOR, { name: values.name, mode: values.live ? "LIVE" : "SANDBOX", scopes });
      return snakeKeys({ clientId: r.client.id, name: r.client.name, mode: r.client.mode, scopes: r.client.scopes, apiKey: r.apiKey, keyId: r.keyId });
    }
    case "clients list":
      return snakeKeys(
        (await listApiClients(db)).map((c) => ({
          clientId: c.id,
          name: c.name,
          mode: c.mode,
          scopes: c.scopes,
          createdAt: c.createdAt,
          keys: c.keys.map((k) => ({ keyId: k.id, prefix: k.prefix, createdAt: k.createdAt, revokedAt: k.revokedAt })),
        })),
      );
    case "keys rotate": {
      if (!values.client) throw new UsageError("keys rotate needs --client CLIENT_ID");
      const r = await rotateApiKey(transact, CLI_ACTOR, values.client);
      announce(r.client.id);
      return snakeKeys({ clientId: r.client.id, name: r.client.name, mode: r.client.mode, scopes: r.client.scopes, apiKey: r.apiKey, keyId: r.keyId });
    }
    case "keys revoke": {
      if (!values.key) throw new UsageError("keys revoke needs --key KEY_ID");
      const r = await revokeApiKey(transact, CLI_ACTOR, values.key);
      announce(r.clientId);
      return snakeKeys({ keyId: r.id, clientId: r.clientId, prefix: r.prefix, createdAt: r.createdAt, revokedAt: r.revokedAt });
    }
    case "reference import": {
      const file = positionals[2];
      if (!file) throw new UsageError("reference import needs a FILE (.json or .csv)");
      return { imported: await importReferenceFile({ db, transact }, file, CLI_ACTOR) };
    }
    case "compliance import": {
      const file = positionals[2];
      if (!file) throw new UsageError("compliance import needs a FILE (a rule set, .json)");
      return { imported: await importRuleSetFile({ db, transact }, file, CLI_ACTOR) };
    }
    case "watchlist import": {
      const file = positionals[2];
      if (!file) throw new UsageError("watchlist import needs a FILE (OFAC sdn.csv)");
      let importId = "";
      const r = await importWatchlistFile(file, dataDir, values.date, async (imported) => {
        importId = (await recordWatchlistImport({ db, transact }, imported)).id;
      });
      return {
        import_id: importId,
        version: r.version.id,
        published_on: r.version.publishedOn,
        sha256: r.version.sha256,
        individuals: r.stats.individuals,
        names: r.stats.names,
        file: r.file,
        replaced: r.replaced,
        previous: r.previous.id,
        // individuals only (the screened ones); the re-screen of whoever they could concern is queued
        added: r.diff.added.length,
        changed: r.diff.changed.length,
        removed: r.diff.removed.length,
        build_ms: r.stats.buildMs,
      };
    }
    case "checks run-periodic": {
      if (!jobs) throw new UsageError("checks run-periodic needs the job engine");
      return runPeriodicChecks({ db, transact, logger: logger ?? createLogger("silent") });
    }
    case "worker": // reached only through the control socket: the running service works the jobs already
      throw new UsageError("the service on this embedded database works its jobs itself; `worker` is for a server database (DATABASE_URL)");
    default:
      throw new UsageError(`unknown command "${positionals.join(" ")}"`);
  }
}

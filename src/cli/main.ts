/**
 * `npm run --silent cli -- <command>` (commands.ts lists them). Prints JSON with REST's snake_case
 * names; errors go to stderr as `{code, detail, errors}` with exit code 2.
 * On the embedded database while the server runs, the command is handed to the server over its
 * control socket (PGlite is one process); otherwise the CLI opens the configured database itself
 * and, with REDIS_URL, tells running instances of its changes through the event bus.
 */
import path from "node:path";
import { printSchema } from "graphql";
import { ConfigError, loadConfig, type Config } from "../config.js";
import { createDb, isMemoryDir } from "../db/client.js";
import { createEventBus } from "../platform/bus.js";
import { createLogger } from "../lib/logger.js";
import { createRedis } from "../lib/redis.js";
import { redisPrefix } from "../db/deployment.js";
import { DomainError } from "../lib/errors.js";
import { parseCommand, runCommand, USAGE, UsageError } from "./commands.js";
import { createJobs, type Jobs } from "../platform/jobs.js";
import { cliTransact } from "../writes.js";
import { sendToServer, type ControlAnswer } from "./control-socket.js";
import { DataDirInUse } from "../db/data-dir.js";
import { RESCREEN_QUEUE } from "../domains/checks/checks.rescreen.js";

// what a command writes under DATA_DIR (the embedded database, a watchlist) is the service account's alone
process.umask(0o077);

const print = (value: unknown) => console.log(JSON.stringify(value, null, 2));

async function main(argv: string[]): Promise<number> {
  if (parseCommand(argv).command === "schema print") {
    const { schema } = await import("../graphql/schema.js");
    process.stdout.write(printSchema(schema) + "\n");
    return 0;
  }
  const config = loadConfig();
  const { command, positionals } = parseCommand(argv);
  // the list as this shell names it: the server the command may go to has a working directory of its own
  if (command === "watchlist import" && positionals[2]) argv = argv.map((arg) => (arg === positionals[2] ? path.resolve(arg) : arg));
  if (!config.databaseUrl && !isMemoryDir(config.dataDir)) {
    const answer = await sendToServer(config.dataDir, argv);
    if (answer) return report(answer);
  }
  if (parseCommand(argv).command === "worker") return report(await runWorker(config));
  return report(await runHere(config, argv));
}

/**
 * `worker`: the app without its HTTP server, working jobs (src/platform/jobs.ts) until SIGTERM or SIGINT, then
 * stopping cleanly: a job in hand gets its grace period, the rest stays queued for the next worker.
 */
async function runWorker(config: Config): Promise<ControlAnswer> {
  // listened for before the start: a signal while starting (jobs may already run) stops it once started, not by default death
  const stopped = new Promise<string>((resolve) => {
    process.once("SIGTERM", () => resolve("SIGTERM"));
    process.once("SIGINT", () => resolve("SIGINT"));
  });
  const { buildApp } = await import("../app.js");
  const { migrateBeforeStart } = await import("../db/migrations.js");
  await migrateBeforeStart(config); // as main.ts does: the schema engine's WASM must not stay in a long-lived process
  const app = await buildApp(config, { work: true });
  app.services.logger.info({ database: app.database.kind }, "worker started");
  const signal = await stopped;
  await app.stop();
  return { result: { worker: "stopped", signal } };
}

async function runHere(config: Config, argv: string[]): Promise<ControlAnswer> {
  const db = await createDb(config);
  const logger = createLogger(config.logLevel);
  // the default Redis prefix is read from the database: its table is there before the first command
  if (config.redisUrl) await db.migrate();
  const redis = config.redisUrl ? createRedis(config.redisUrl, logger, await redisPrefix(config.redisPrefix, db.prisma)) : null;
  const opened: { jobs?: Jobs } = {};
  const openJobs = async () => {
    const jobs = (opened.jobs ??= createJobs(db, logger));
    await jobs.define(RESCREEN_QUEUE); // `watchlist import` queues to it, maybe before any service made it
    await jobs.start({ work: false }); // sends only: the service's (or `cli worker`'s) workers run what is queued
    return jobs;
  };
  try {
    await redis?.ready();
    const events = createEventBus(redis?.pubsub);
    const transact = cliTransact(db.prisma, { bus: events, jobs: openJobs, logger });
    const result = await runCommand({ db: db.prisma, transact, migrate: db.migrate, dataDir: config.dataDir, events, jobs: openJobs, logger }, argv);
    await redis?.client.ping(); // commands go out in order: the events published above have left
    return { result };
  } catch (error) {
    if (error instanceof UsageError) return { error: { usage: error.message } };
    if (error instanceof DomainError) return { error: { code: error.code, detail: error.message, errors: error.fields } };
    throw error;
  } finally {
    await opened.jobs?.stop();
    redis?.disconnect();
    await db.close();
  }
}

function report({ result, error }: ControlAnswer): number {
  if (!error) {
    print(result);
    return 0;
  }
  if (error.usage) console.error(`${error.usage}\n${USAGE}`);
  else console.error(JSON.stringify(error));
  return 2;
}

try {
  process.exit(await main(process.argv.slice(2))); // exit: the WASM schema engine leaves a timer behind
} catch (error) {
  if (error instanceof UsageError) console.error(`${error.message}\n${USAGE}`);
  else if (error instanceof ConfigError) console.error(`config: ${error.message}`);
  else if (error instanceof DataDirInUse) console.error(`data: ${error.message}`);
  else console.error(error);
  process.exit(2);
}

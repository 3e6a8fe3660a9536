/**
 * `npm run --silent cli -- <command>` (commands.ts lists them). Prints JSON with REST's snake_case
 * names; errors go to stderr as `{code, detail, errors}` with exit code 2.
 * On the embedded database while the server runs, the command is handed to the server over its
 * control socket (PGlite is one process); otherwise the CLI opens the configured database itself
 * and, with REDIS_URL, tells running instances of its changes through the event bus.
 */
import { printSchema } from "graphql";
import { ConfigError, loadConfig, type Config } from "../config.js";
import { createDb, isMemoryDir } from "../db/client.js";
import { createEventBus } from "../domains/events/events.pubsub.js";
import { createLogger } from "../lib/logger.js";
import { createRedis } from "../lib/redis.js";
import { DomainError } from "../lib/errors.js";
import { parseCommand, runCommand, USAGE, UsageError } from "./commands.js";
import { sendToServer, type ControlAnswer } from "./control-socket.js";

const print = (value: unknown) => console.log(JSON.stringify(value, null, 2));

async function main(argv: string[]): Promise<number> {
  if (parseCommand(argv).command === "schema print") {
    const { schema } = await import("../graphql/schema.js");
    process.stdout.write(printSchema(schema) + "\n");
    return 0;
  }
  const config = loadConfig();
  if (!config.databaseUrl && !isMemoryDir(config.dataDir)) {
    const answer = await sendToServer(config.dataDir, argv);
    if (answer) return report(answer);
  }
  return report(await runHere(config, argv));
}

async function runHere(config: Config, argv: string[]): Promise<ControlAnswer> {
  const db = await createDb(config);
  const redis = config.redisUrl ? createRedis(config.redisUrl, createLogger(config.logLevel)) : null;
  try {
    await redis?.ready();
    const result = await runCommand({ db: db.prisma, migrate: db.migrate, events: createEventBus(redis?.pubsub) }, argv);
    await redis?.client.ping(); // commands go out in order: the events published above have left
    return { result };
  } catch (error) {
    if (error instanceof UsageError) return { error: { usage: error.message } };
    if (error instanceof DomainError) return { error: { code: error.code, detail: error.message, errors: error.fields } };
    throw error;
  } finally {
    redis?.disconnect();
    await db.close();
  }
}

function report({ result, error }: ControlAnswer): number {
  if (!error) { print(result); return 0; }
  if (error.usage) console.error(`${error.usage}\n${USAGE}`);
  else console.error(JSON.stringify(error));
  return 2;
}

try {
  process.exit(await main(process.argv.slice(2))); // exit: the WASM schema engine leaves a timer behind
} catch (error) {
  if (error instanceof UsageError) console.error(`${error.message}\n${USAGE}`);
  else if (error instanceof ConfigError) console.error(`config: ${error.message}`);
  else console.error(error);
  process.exit(2);
}

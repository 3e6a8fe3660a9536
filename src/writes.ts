/**
 * How a process writes: the outbox relay with every consumer of committed events, and the
 * transaction runner services are given, built here for the service (app.ts) and the CLI
 * (cli/main.ts): every process that relays an event hands it to the same consumers.
 */
import type { Db } from "./db/client.js";
import type { Jobs } from "./platform/jobs.js";
import type { Logger } from "./lib/logger.js";
import type { EventBus } from "./platform/bus.js";
import { createOutbox, defineEventRelay, publishTo } from "./platform/outbox.js";
import { createTransact, type Effects, type OneStatementChange, type Transact, type Write } from "./platform/write.js";
import type { Actor } from "./principal.js";
import { webhookFanOut } from "./domains/webhooks/webhooks.dispatch.js";

export function createWrites(db: Db, { bus, jobs, logger }: { bus: EventBus; jobs: Jobs; logger?: Logger }) {
  const outbox = createOutbox(db, [webhookFanOut(jobs), publishTo(bus)], logger);
  return { outbox, transact: createTransact(db, { jobs, outbox }) };
}

/**
 * A CLI process's writes: the job engine opened on the first write (a command that writes nothing
 * opens none), then relayed as the service relays, so running instances hear of the change at once
 * (through Redis). The relay job's queue is declared first: a fresh database has none yet, and the
 * engine would look it up outside the transaction that sends to it.
 */
export function cliTransact(db: Db, options: { bus: EventBus; jobs: () => Promise<Jobs>; logger?: Logger }): Transact {
  let opened: Promise<Transact> | null = null;
  const transact = () =>
    (opened ??= options.jobs().then(async (jobs) => {
      await defineEventRelay(jobs);
      return createWrites(db, { ...options, jobs }).transact;
    }));
  return Object.assign(
    async <T>(actor: Actor, fn: (write: Write) => Promise<T>, transactionOptions?: { timeout?: number }) => (await transact())(actor, fn, transactionOptions),
    { oneStatement: async <T>(actor: Actor, change: (effects: Effects) => OneStatementChange<T>) => (await transact()).oneStatement(actor, change) },
  );
}

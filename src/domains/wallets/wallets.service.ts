/** Wallets and cards: open a wallet, request and cancel cards, and the asynchronous activation step. */
import { stamps } from "../../db/insert-rows.js";
import { clocksOf } from "../../platform/clock.js";
import type { RequestContext, Services } from "../../context.js";
import { tenantOf } from "../../context.js";
import { OPERATOR } from "../../principal.js";
import type { Prisma } from "../../../generated/prisma/client.js";
import type { Jobs } from "../../platform/jobs.js";
import { DomainError } from "../../lib/errors.js";
import { foundOr404 } from "../../lib/found.js";
import type { Db } from "../../db/client.js";
import type { Tx } from "../../db/transaction.js";
import type { Write } from "../../platform/write.js";
import { checkCardMove, checkIssuedCard } from "./wallets.rules.js";
import { sandboxCardProvider, type CardProvider } from "./wallets.provider.js";

type WalletSelection = { select?: Prisma.WalletSelect; include?: Prisma.WalletInclude };
type CardSelection = { select?: Prisma.CardSelect; include?: Prisma.CardInclude };

/** The card provider in use. Only the offline sandbox exists; a live one becomes a Services entry. */
const cardProvider: CardProvider = sandboxCardProvider();
/** How long after a request the in-process timer runs activation (until the job engine runs it). */
export const CARD_ACTIVATION_JOB = "cards.activate";

/** A wallet of the caller's client, read through `db` (the request's, or a write's transaction), or 404. */
const walletIn = (db: Db | Tx, ctx: RequestContext, id: string, query?: WalletSelection) =>
  foundOr404("wallet", id, (id) => db.wallet.findFirst({ ...query, where: { id, clientId: tenantOf(ctx) } }));

/** A card of the caller's client, read through `db`, or 404. */
const cardIn = (db: Db | Tx, ctx: RequestContext, id: string, query?: CardSelection) =>
  foundOr404("card", id, (id) => db.card.findFirst({ ...query, where: { id, clientId: tenantOf(ctx) } }));

export const getWallet = (ctx: RequestContext, id: string, query?: WalletSelection) => walletIn(ctx.db, ctx, id, query);

export const getCard = (ctx: RequestContext, id: string, query?: CardSelection) => cardIn(ctx.db, ctx, id, query);

/**
 * A wallet of an ACTIVE user (the flow, src/flows/open-wallet.ts, has checked that) in an active ISO
 * 4217 currency, inside the flow's write; one per user and currency.
 */
export async function createWallet(write: Write, ctx: RequestContext, input: { userId: string; currency: string }, query?: WalletSelection) {
  const { tx, audit, now } = write;
  const clientId = tenantOf(ctx);
  const currency = input.currency;
  const known = await tx.currency.findUnique({ where: { code: currency }, select: { status: true } });
  if (known?.status !== "ACTIVE")
    throw new DomainError("CURRENCY_NOT_SUPPORTED", `${currency} is not an active ISO 4217 currency.`, [
      { field: "currency", code: "unsupported", message: `${currency} is not an active ISO 4217 currency.` },
    ]);
  if (await tx.wallet.findFirst({ where: { userId: input.userId, currency }, select: { id: true } }))
    throw new DomainError("CONFLICT", `The user already has a ${currency} wallet.`, [
      { field: "currency", code: "duplicate", message: `The user already has a ${currency} wallet.` },
    ]);
  const wallet = await tx.wallet.create({ ...query, data: { clientId, userId: input.userId, currency, ...stamps(now()) } });
  audit({ action: "wallet.created", targetType: "wallet", targetId: wallet.id, changedFields: ["userId", "currency"] });
  return wallet;
}

/** A card needs an ACTIVE wallet; it starts REQUESTED and is activated later by the provider. */
export async function requestCard(ctx: RequestContext, input: { walletId: string; cardType: "VIRTUAL" | "PHYSICAL" }, query?: CardSelection) {
  const clientId = tenantOf(ctx);
  return ctx.transact(ctx, async ({ tx, audit, enqueue, now }) => {
    const wallet = await walletIn(tx, ctx, input.walletId, { select: { id: true, status: true } });
    if (wallet.status !== "ACTIVE") throw new DomainError("WALLET_NOT_ACTIVE", `The wallet is ${wallet.status}; a card needs an ACTIVE wallet.`);
    const created = await tx.card.create({ ...query, data: { clientId, walletId: wallet.id, cardType: input.cardType, ...stamps(now()) } });
    audit({ action: "card.requested", targetType: "card", targetId: created.id, changedFields: ["walletId", "cardType"] });
    // the provider is asked by a job enqueued with the card: a crash after commit loses no activation
    enqueue(CARD_ACTIVATION_JOB, { cardId: (created as { id: string }).id });
    return created;
  });
}

export async function cancelCard(ctx: RequestContext, id: string, query?: CardSelection) {
  const clientId = tenantOf(ctx);
  return ctx.transact(ctx, async ({ tx, audit, emit, now }) => {
    const current = await cardIn(tx, ctx, id, { select: { id: true, walletId: true, status: true } });
    checkCardMove(current.status, "CANCELLED");
    const card = await tx.card.update({ ...query, where: { id }, data: { status: "CANCELLED", cancelledAt: now(), updatedAt: now() } });
    audit({ action: "card.cancelled", targetType: "card", targetId: id, changedFields: ["status"] });
    emit("card.status.updated", clientId, { cardId: id, walletId: current.walletId, status: "CANCELLED", previousStatus: current.status });
    return card;
  });
}

/**
 * The activation step: asks the provider to issue each REQUESTED card (all, or the ones named) and
 * moves it to ACTIVE with its last4 and expiry, emitting card.status.updated. A card cancelled
 * meanwhile stays CANCELLED. The card-activation job (defineCardActivation) calls it.
 */
export async function activatePendingCards({ db, transact }: Pick<Services, "db" | "transact">, options: { cardIds?: string[]; provider?: CardProvider } = {}) {
  const provider = options.provider ?? cardProvider;
  const pending = await db.card.findMany({
    where: { status: "REQUESTED", ...(options.cardIds ? { id: { in: options.cardIds } } : {}) },
    select: { id: true, clientId: true, walletId: true, cardType: true, wallet: { select: { currency: true } } },
  });
  let activated = 0;
  for (const card of pending) {
    const issued = await provider.issue({ cardId: card.id, cardType: card.cardType, currency: card.wallet.currency });
    const { last4, expiry } = checkIssuedCard(issued);
    // a sandbox client's card is activated at its clock's time
    const clocks = await clocksOf(db, [card.clientId]);
    await transact({ principal: OPERATOR, clocks }, async ({ tx, audit, emit, now }) => {
      const moved = await tx.card.updateMany({
        where: { id: card.id, status: "REQUESTED" },
        data: { status: "ACTIVE", providerRef: issued.providerRef, last4, expiry, activatedAt: now(card.clientId), updatedAt: now(card.clientId) },
      });
      if (!moved.count) return;
      activated++;
      audit({ action: "card.activated", targetType: "card", targetId: card.id, changedFields: ["status", "last4", "expiry"] });
      emit("card.status.updated", card.clientId, { cardId: card.id, walletId: card.walletId, status: "ACTIVE", previousStatus: "REQUESTED" });
    });
  }
  return activated;
}

/** The card-activation queue and its worker: a batch of jobs is one call of the provider step. */
export function defineCardActivation(jobs: Jobs, deps: Pick<Services, "db" | "transact">) {
  return jobs.define<{ cardId: string }>({
    name: CARD_ACTIVATION_JOB,
    queue: { retryLimit: 5, retryDelay: 5, retryBackoff: true, expireInSeconds: 120 },
    workOptions: { batchSize: 20 },
    work: async (batch) => {
      await activatePendingCards(deps, { cardIds: batch.map((job) => job.data.cardId) });
    },
  });
}

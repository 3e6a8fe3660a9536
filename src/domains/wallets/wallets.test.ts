import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, startTestApp, type TestApp } from "../../../test/helpers/app.js";
import { bossSchemaFor } from "../../platform/jobs.js";
import { activatePendingCards, CARD_ACTIVATION_JOB } from "./wallets.service.js";
import type { CardProvider } from "./wallets.provider.js";
import { within } from "../../../test/helpers/eventually.js";

const WALLET = "id userId currency status cards { id walletId cardType status last4 expiry }";
const CREATE = `mutation($input: CreateWalletInput!) { createWallet(input: $input) { ${WALLET} } }`;
const REQUEST = `mutation($input: RequestCardInput!) { requestCard(input: $input) { id walletId cardType status last4 expiry } }`;
const CANCEL = `mutation($input: CancelCardInput!) { cancelCard(input: $input) { id status } }`;

describe.each(backends)("wallets and cards on %s", (backend) => {
  let t: TestApp;
  let key: string;
  let other: string;
  beforeAll(async () => {
    t = await startTestApp(backend);
    ({ key } = await t.createClient("Wallets"));
    ({ key: other } = await t.createClient("Other"));
  });
  afterAll(() => t.stop());

  /** A user of `k`'s client; ACTIVE unless told (KYC approval is another domain's, so it is set directly). */
  async function user(k = key, status: "ACTIVE" | "PENDING" = "ACTIVE") {
    const res = await t.rest("POST", "/v2/users", { key: k, body: { first_name: "Wal", last_name: "Let", email: `${randomUUID()}@example.com` } });
    if (res.status !== 201) throw new Error(JSON.stringify(res.body));
    const id = res.body.user_id as string;
    if (status === "ACTIVE") await t.db.user.update({ where: { id }, data: { status } });
    return id;
  }
  // jobs are polled every 2 s: give them a few polls, and fail if it never happens
  const waitFor = (check: () => Promise<boolean>) => within("the sandbox provider's change", check, Boolean);

  it("opens a wallet for an ACTIVE user and shows it on User.wallets", async () => {
    const userId = await user();
    const res = await t.gql(key, CREATE, { input: { userId, currency: "sgd" } });
    expect(res.errors).toBeUndefined();
    expect(res.data.createWallet).toMatchObject({ userId, currency: "SGD", status: "ACTIVE", cards: [] });
    const read = await t.gql(key, `query($id: ID!) { user(id: $id) { wallets { id currency } } }`, { id: userId });
    expect(read.data.user.wallets).toEqual([{ id: res.data.createWallet.id, currency: "SGD" }]);
  });

  it("refuses a wallet for a user who is not ACTIVE, in an unknown or inactive currency, twice, or for another client's user", async () => {
    const pending = await user(key, "PENDING");
    const code = async (input: object, k = key) => (await t.gql(k, CREATE, { input })).errors?.[0].extensions.code;
    expect(await code({ userId: pending, currency: "SGD" })).toBe("USER_NOT_ACTIVE");
    const active = await user();
    expect(await code({ userId: active, currency: "XYZ" })).toBe("CURRENCY_NOT_SUPPORTED");
    expect(await code({ userId: active, currency: "XAU" })).toBe("CURRENCY_NOT_SUPPORTED"); // gold: ISO 4217 but not payable
    expect(await code({ userId: active, currency: "S$" })).toBe("VALIDATION_FAILED");
    expect(await code({ userId: active, currency: "SGD" }, other)).toBe("NOT_FOUND");
    expect(await code({ userId: active, currency: "USD" })).toBeUndefined();
    expect(await code({ userId: active, currency: "USD" })).toBe("CONFLICT");
    expect(await t.db.wallet.count({ where: { userId: pending } })).toBe(0);
    const rest = await t.rest("POST", "/v2/users/wallets", { key, body: { user_id: pending, currency: "SGD" } });
    expect(rest).toMatchObject({ status: 409, body: { code: "USER_NOT_ACTIVE" } });
  });

  it("requests a card REQUESTED, the sandbox provider activates it asynchronously with last4 and expiry, and an event is emitted", async () => {
    const userId = await user();
    const walletId = (await t.gql(key, CREATE, { input: { userId, currency: "EUR" } })).data.createWallet.id;
    const events: unknown[] = [];
    const clientId = (await t.db.wallet.findUniqueOrThrow({ where: { id: walletId } })).clientId;
    const sub = t.app.services.events.subscribe("card.status.updated", clientId);
    void (async () => {
      for await (const e of sub) events.push(e);
    })();
    const res = await t.gql(key, REQUEST, { input: { walletId, cardType: "VIRTUAL" } });
    expect(res.data.requestCard).toMatchObject({ walletId, cardType: "VIRTUAL", status: "REQUESTED", last4: null, expiry: null });
    const cardId = res.data.requestCard.id;
    await waitFor(async () => (await t.db.card.findUniqueOrThrow({ where: { id: cardId } })).status === "ACTIVE");
    const card = (await t.gql(key, `query($id: ID!) { wallet(id: $id) { cards { id status last4 expiry } } }`, { id: walletId })).data.wallet.cards[0];
    expect(card).toMatchObject({ id: cardId, status: "ACTIVE" });
    expect(card.last4).toMatch(/^\d{4}$/);
    expect(card.expiry).toMatch(/^\d{4}-\d{2}$/);
    await waitFor(async () => events.length > 0);
    expect(events).toEqual([{ cardId, walletId, status: "ACTIVE", previousStatus: "REQUESTED" }]);
    // cancelling moves ACTIVE → CANCELLED once; again is a state error
    expect((await t.gql(key, CANCEL, { input: { id: cardId } })).data.cancelCard.status).toBe("CANCELLED");
    expect((await t.gql(key, CANCEL, { input: { id: cardId } })).errors?.[0].extensions.code).toBe("INVALID_STATE_TRANSITION");
    expect((await t.gql(other, CANCEL, { input: { id: cardId } })).errors?.[0].extensions.code).toBe("NOT_FOUND");
  });

  it("leaves a card cancelled before activation CANCELLED, and needs an ACTIVE wallet", async () => {
    const userId = await user();
    const walletId = (await t.gql(key, CREATE, { input: { userId, currency: "GBP" } })).data.createWallet.id;
    const cardId = (await t.gql(key, REQUEST, { input: { walletId, cardType: "PHYSICAL" } })).data.requestCard.id;
    await t.gql(key, CANCEL, { input: { id: cardId } });
    expect(await activatePendingCards(t.app.services, { cardIds: [cardId] })).toBe(0);
    // the activation job has run too (it finds the card CANCELLED and leaves it)
    await waitFor(
      async () =>
        (
          await t.db.$queryRawUnsafe<{ n: number }[]>(
            `select count(*)::int as n from ${bossSchemaFor(t.schemaName)}.job where name = '${CARD_ACTIVATION_JOB}' and state = 'completed' and data->>'cardId' = '${cardId}'`,
          )
        )[0].n === 1,
    );
    expect(await t.db.card.findUniqueOrThrow({ where: { id: cardId } })).toMatchObject({ status: "CANCELLED", last4: null });
    await t.db.wallet.update({ where: { id: walletId }, data: { status: "FROZEN" } });
    expect((await t.gql(key, REQUEST, { input: { walletId, cardType: "VIRTUAL" } })).errors?.[0].extensions.code).toBe("WALLET_NOT_ACTIVE");
    expect((await t.gql(other, REQUEST, { input: { walletId, cardType: "VIRTUAL" } })).errors?.[0].extensions.code).toBe("NOT_FOUND");
  });

  it("never stores a card number: only what the provider reports, checked for shape", async () => {
    const userId = await user();
    const walletId = (await t.gql(key, CREATE, { input: { userId, currency: "JPY" } })).data.createWallet.id;
    const card = await t.db.card.create({
      data: { clientId: (await t.db.wallet.findUniqueOrThrow({ where: { id: walletId } })).clientId, walletId, cardType: "VIRTUAL" },
    });
    const leaky: CardProvider = { issue: async () => ({ providerRef: "ref", last4: "4111111111111111", expiry: "2030-01" }) };
    await expect(activatePendingCards(t.app.services, { cardIds: [card.id], provider: leaky })).rejects.toThrow(/malformed last4/);
    expect(await t.db.card.findUniqueOrThrow({ where: { id: card.id } })).toMatchObject({ status: "REQUESTED", last4: null, providerRef: null });
  });
});

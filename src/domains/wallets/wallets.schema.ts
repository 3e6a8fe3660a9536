/** GraphQL for wallets and cards: Wallet, Card, User.wallets, Wallet.cards, wallet(id), card(id), createWallet, requestCard, cancelCard. */
import { CardStatus, CardType, WalletStatus } from "../../../generated/prisma/enums.js";
import { builder } from "../../graphql/builder.js";
import { relationFirst, relationTake } from "../../graphql/paging.js";
import { cancelCard, getCard, getWallet, requestCard } from "./wallets.service.js";
import { openWallet } from "../../flows/open-wallet.js";

const WalletStatusEnum = builder.enumType(WalletStatus, { name: "WalletStatus" });
const CardTypeEnum = builder.enumType(CardType, { name: "CardType" });
const CardStatusEnum = builder.enumType(CardStatus, { name: "CardStatus", description: "REQUESTED → ACTIVE (issued by the provider) | CANCELLED" });

builder.prismaObject("Wallet", {
  fields: (t) => ({
    id: t.exposeID("id"),
    userId: t.exposeID("userId"),
    currency: t.exposeString("currency", { description: "ISO 4217 alpha-3" }),
    status: t.expose("status", { type: WalletStatusEnum }),
    cards: t.relation("cards", {
      description: "The wallet's cards, newest first",
      args: { first: relationFirst(t.arg) },
      query: ({ first }) => ({ orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: relationTake(first) }),
    }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
  }),
});

builder.prismaObject("Card", {
  description: "A payment card on a wallet; its number is never stored or shown",
  fields: (t) => ({
    id: t.exposeID("id"),
    walletId: t.exposeID("walletId"),
    cardType: t.expose("cardType", { type: CardTypeEnum }),
    status: t.expose("status", { type: CardStatusEnum }),
    last4: t.exposeString("last4", { nullable: true, description: "Last four digits, once the provider has issued the card" }),
    expiry: t.exposeString("expiry", { nullable: true, description: "YYYY-MM, once the provider has issued the card" }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
  }),
});

builder.prismaObjectField("User", "wallets", (t) =>
  t.relation("wallets", {
    description: "The user's wallets, oldest first",
    args: { first: relationFirst(t.arg) },
    query: ({ first }) => ({ orderBy: [{ createdAt: "asc" }, { id: "asc" }], take: relationTake(first) }),
  }),
);

const CreateWalletInput = builder.inputType("CreateWalletInput", {
  fields: (t) => ({ userId: t.id({ required: true }), currency: t.string({ required: true, description: "ISO 4217 alpha-3, e.g. SGD" }) }),
});
const RequestCardInput = builder.inputType("RequestCardInput", {
  fields: (t) => ({ walletId: t.id({ required: true }), cardType: t.field({ type: CardTypeEnum, required: true }) }),
});
const CancelCardInput = builder.inputType("CancelCardInput", { fields: (t) => ({ id: t.id({ required: true }) }) });

builder.queryFields((t) => ({
  wallet: t.prismaField({
    type: "Wallet",
    authScopes: { scope: "users:read" },
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, { id }, ctx) => getWallet(ctx, String(id), query),
  }),
  card: t.prismaField({
    type: "Card",
    authScopes: { scope: "users:read" },
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, { id }, ctx) => getCard(ctx, String(id), query),
  }),
}));

builder.mutationFields((t) => ({
  createWallet: t.prismaField({
    type: "Wallet",
    authScopes: { scope: "users:write" },
    description: "Opens a wallet in one active ISO 4217 currency for an ACTIVE user",
    args: { input: t.arg({ type: CreateWalletInput, required: true }) },
    resolve: (query, _root, { input }, ctx) => openWallet(ctx, { userId: String(input.userId), currency: input.currency }, query),
  }),
  requestCard: t.prismaField({
    type: "Card",
    authScopes: { scope: "users:write" },
    description: "Requests a card on an ACTIVE wallet; it starts REQUESTED and the provider activates it",
    args: { input: t.arg({ type: RequestCardInput, required: true }) },
    resolve: (query, _root, { input }, ctx) => requestCard(ctx, { walletId: String(input.walletId), cardType: input.cardType }, query),
  }),
  cancelCard: t.prismaField({
    type: "Card",
    authScopes: { scope: "users:write" },
    args: { input: t.arg({ type: CancelCardInput, required: true }) },
    resolve: (query, _root, { input }, ctx) => cancelCard(ctx, String(input.id), query),
  }),
}));

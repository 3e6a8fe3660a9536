/** REST entries for /v2/users/wallets and their cards. Each maps a path and body onto a GraphQL operation; no rules here. */
import { bodyInput, restOperation, type PathLookup, type Route } from "../../rest/route.js";
import { getCard, getWallet } from "./wallets.service.js";

const WALLET_REST_FIELDS = `wallet_id: id userId currency status createdAt updatedAt`;
const CARD_REST_FIELDS = `card_id: id walletId cardType status last4 expiry createdAt updatedAt`;

const card: PathLookup = (ctx, params) => getCard(ctx, params.card_id, { select: { id: true } });

export const WALLETS = "/v2/users/wallets";
export const CARDS = "/v2/users/wallets/cards";

export const walletsRoutes: Route[] = [
  {
    method: "POST",
    path: WALLETS,
    summary: "Open a wallet for an ACTIVE user in an active ISO 4217 currency",
    scope: "users:write",
    status: 201,
    operation: restOperation(`mutation CreateWallet($input: CreateWalletInput!) { createWallet(input: $input) { ${WALLET_REST_FIELDS} } }`),
    variables: (req) => ({ input: bodyInput(req) }),
    field: "createWallet",
  },
  {
    method: "GET",
    path: `${WALLETS}/{wallet_id}`,
    summary: "Read a wallet with its cards",
    scope: "users:read",
    operation: restOperation(`query Wallet($id: ID!) { wallet(id: $id) { ${WALLET_REST_FIELDS} cards { ${CARD_REST_FIELDS} } } }`),
    lookup: (ctx, params) => getWallet(ctx, params.wallet_id, { select: { id: true } }),
    variables: (req) => ({ id: req.params.wallet_id }),
    field: "wallet",
  },
  {
    method: "POST",
    path: CARDS,
    summary: "Request a card on an ACTIVE wallet (REQUESTED; the provider activates it)",
    scope: "users:write",
    status: 201,
    operation: restOperation(`mutation RequestCard($input: RequestCardInput!) { requestCard(input: $input) { ${CARD_REST_FIELDS} } }`),
    variables: (req) => ({ input: bodyInput(req) }),
    field: "requestCard",
  },
  {
    method: "GET",
    path: `${CARDS}/{card_id}`,
    summary: "Read a card (never its number)",
    scope: "users:read",
    operation: restOperation(`query Card($id: ID!) { card(id: $id) { ${CARD_REST_FIELDS} } }`),
    lookup: card,
    variables: (req) => ({ id: req.params.card_id }),
    field: "card",
  },
  {
    method: "POST",
    path: `${CARDS}/{card_id}/cancel`,
    summary: "Cancel a card",
    scope: "users:write",
    operation: restOperation(`mutation CancelCard($input: CancelCardInput!) { cancelCard(input: $input) { ${CARD_REST_FIELDS} } }`),
    lookup: card,
    variables: (req) => ({ input: { id: req.params.card_id } }),
    field: "cancelCard",
  },
];

/**
 * The seed's v1 paths as route-table entries over the same GraphQL operations as their v2
 * twins: no rule lives here. Each names its successor; the shim adds Deprecation, Sunset and the
 * successor-version Link to every answer, counts the call, and answers 410 when V1_ENABLED=0.
 */
import { bodyInput, restOperation, type Route } from "./route.js";
import { documentsRoutes } from "../domains/documents/documents.routes.js";
import { USER_REST_FIELDS, usersRoutes } from "../domains/users/users.routes.js";
import { CARDS, WALLETS, walletsRoutes } from "../domains/wallets/wallets.routes.js";

/** The v2 route a v1 one answers like; it must exist, so a renamed v2 path fails at start. A v1 path names no object (its body does): no lookup. */
function twin(list: Route[], method: string, path: string): Route {
  const found = list.find((r) => r.method === method && r.path === path);
  if (!found) throw new Error(`v1 twin ${method} ${path} is missing`);
  return { ...found, lookup: undefined };
}

const DOCUMENTS = "/v2/users/authentications/documents";
const updateUser = twin(usersRoutes, "PUT", "/v2/users/{user_id}");

/** v1 names the user by `user_id` in the body (the v2 path parameter); If-Match works as on v2. */
const byBodyUserId: Pick<Route, "bodyAliases" | "variables"> = {
  bodyAliases: { user_id: "id" },
  variables: (req) => ({ input: bodyInput(req, { ifMatch: req.headers.get("if-match") }) }),
};

const address = (type: "RESIDENTIAL" | "BILLING"): Route => ({
  method: "PUT",
  path: `/v1/users/addresses/${type.toLowerCase()}`,
  summary: `Replace the user's ${type.toLowerCase()} address {user_id, address}`,
  scope: "users:write",
  successor: "/v2/users",
  bodyAliases: { user_id: "id" },
  operation: restOperation(
    `mutation UpdateUserAddress($input: UpdateUserAddressInput!) { updateUserAddress(input: $input) { ${USER_REST_FIELDS.replace("etag", "")} } }`,
  ),
  variables: (req) => ({ input: bodyInput(req, { type }) }),
  field: "updateUserAddress",
});

export const legacyRoutes: Route[] = [
  { ...twin(usersRoutes, "POST", "/v2/users"), path: "/v1/users", successor: "/v2/users" },
  { ...updateUser, ...byBodyUserId, path: "/v1/users", summary: "Update a user named by user_id in the body (partial)", successor: "/v2/users" },
  address("RESIDENTIAL"),
  address("BILLING"),
  { ...twin(documentsRoutes, "POST", DOCUMENTS), path: "/v1/users/authentications/documents", successor: DOCUMENTS },
  { ...twin(documentsRoutes, "PUT", DOCUMENTS), path: "/v1/users/authentications/documents", successor: DOCUMENTS },
  {
    ...twin(walletsRoutes, "POST", WALLETS),
    path: "/v1/users/wallets",
    successor: WALLETS,
    operation: restOperation(`mutation CreateWallet($input: CreateWalletInput!) { createWallet(input: $input) { wallet_id: id userId currency status } }`),
  },
  {
    ...twin(walletsRoutes, "POST", CARDS),
    path: "/v1/users/wallets/cards/",
    successor: CARDS,
    operation: restOperation(`mutation RequestCard($input: RequestCardInput!) { requestCard(input: $input) { card_id: id walletId cardType status } }`),
  },
];

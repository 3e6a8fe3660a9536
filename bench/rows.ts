/**
 * The rows of `npm run bench` (issue #17): what the app and the raw baseline are asked, per row.
 * `rest`, `graphql`: a user by id; `list`: a page of 100 users with their documents and check runs;
 * `post`: a user created; `put`: a user's last name changed; `lookup`: a currencies page.
 */
import type { Load } from "./load-worker.js";

const USER_FIELDS = "id email firstName lastName phoneNumber status kycStatus createdAt updatedAt";
/**
 * The users page of every bench run so far (kept for comparison across sessions): under graphql-armor's
 * old cost limit (5,000) a literal page of 100 users with documents and checks passed with this few
 * fields only; the limit now prices variables alike and lets the full body through (graphql/cost.ts)
 */
const LIST = "{ users(first: 100) { edges { node { id status documents { id } checks { id status } } } } }";
const gql = (query: string, variables: object = {}) => JSON.stringify({ query, variables });
const CREATE = JSON.stringify({ first_name: "Load", last_name: "Bench", email: "load-{n}@example.com" });
// a screened field (checksForChange: KYC and a sanctions screening), a new value each request: a PUT
// that changes nothing writes nothing and queues no checks
const UPDATE: Ask = { method: "PUT", path: "/v2/users/{id}", body: JSON.stringify({ last_name: "Bench {n}" }), distinct: true };

export type Ask = Omit<Load, "base" | "targets" | "connections" | "seconds">;
/**
 * `name`: what BENCH_ROWS and bench/profile-read.ts call the row; `perClient`: targets are clients, not users;
 * `checks`: the app's requests queue check runs, so the row reports a settled rate too (bench/users-read.ts)
 */
export type Row = { name: string; title: string; app: Ask; raw: Ask; perClient?: boolean; checks?: boolean };
export const rows: Row[] = [
  { name: "rest", title: "REST `GET /v2/users/{id}`", app: { method: "GET", path: "/v2/users/{id}" }, raw: { method: "GET", path: "/v2/users/{id}" } },
  {
    name: "graphql",
    title: "GraphQL `user(id)`",
    app: { method: "POST", path: "/graphql", body: gql(`query($id: ID!) { user(id: $id) { ${USER_FIELDS} } }`, { id: "{id}" }) },
    raw: { method: "GET", path: "/v2/users/{id}" },
  },
  {
    name: "list",
    title: `GraphQL \`${LIST.slice(2, -2)}\``,
    perClient: true,
    app: { method: "POST", path: "/graphql", body: gql(LIST) },
    raw: { method: "GET", path: "/v2/users" },
  },
  {
    name: "post",
    title: "REST `POST /v2/users`",
    perClient: true,
    checks: true,
    app: { method: "POST", path: "/v2/users", body: CREATE },
    raw: { method: "POST", path: "/v2/users", body: CREATE },
  },
  { name: "put", title: "REST `PUT /v2/users/{id}`", checks: true, app: UPDATE, raw: UPDATE },
  {
    name: "lookup",
    title: "lookup `GET /payouts/remittances/utilities/currencies`",
    perClient: true,
    app: { method: "GET", path: "/payouts/remittances/utilities/currencies?status=ACTIVE&records_per_page=50" },
    raw: { method: "GET", path: "/payouts/remittances/utilities/currencies" },
  },
];

export const rowNamed = (name: string) => {
  const row = rows.find((r) => r.name === name);
  if (!row) throw new Error(`no bench row "${name}": ${rows.map((r) => r.name).join(", ")}`);
  return row;
};

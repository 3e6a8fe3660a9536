/**
 * Who calls: an API client's key (its scopes and mode) or the operator. A leaf every layer may
 * import: it imports nothing of the project.
 */

/** What an API client's key may hold. Operator power is none of them: it is who the caller is (OPERATOR_ONLY). */
export const CLIENT_SCOPES = [
  "users:read",
  "users:write",
  "documents:read",
  "documents:write",
  "lookups:read",
  "webhooks:manage",
  "compliance:review",
] as const;
export type Scope = (typeof CLIENT_SCOPES)[number];

/** Reviewing belongs to a named person: only a reviewer's key holds it (keyScopes). */
export const REVIEW_SCOPE = "compliance:review";
/** What a reviewer's key holds of its client's scopes: it reviews and reads, it does not change users. */
const REVIEWER_SCOPES: ReadonlySet<string> = new Set([REVIEW_SCOPE, "users:read", "documents:read"]);

/** A key's scopes from its client's: a reviewer's key the reviewing ones, any other key all but reviewing. */
export const keyScopes = (clientScopes: readonly string[], reviewer: Reviewer | null): ReadonlySet<string> =>
  new Set(clientScopes.filter((scope) => (reviewer ? REVIEWER_SCOPES.has(scope) : scope !== REVIEW_SCOPE)));

/** The named person a reviewer key belongs to (issued by the operator, bound to the key). */
/** A reviewer as the key names them: the person four eyes count is their email. */
export type Reviewer = { id: string; name: string; email: string | null };

/**
 * What operator-only operations (REST routes, GraphQL fields) require: the operator principal
 * (ADMIN_API_KEY, the CLI), never a scope, so no client's key can be given it, whatever its row holds.
 */
export const OPERATOR_ONLY = "operator";

export type Principal =
  | {
      kind: "client";
      clientId: string;
      keyId: string;
      mode: "SANDBOX" | "LIVE";
      scopes: ReadonlySet<string>;
      reviewer?: Reviewer | null;
      /** how far a SANDBOX client's clock runs ahead of real time (its sandbox clock), in ms; absent: none */
      clockAheadMs?: number;
    }
  | { kind: "operator"; clientId: null; keyId: "admin"; mode: null; scopes: ReadonlySet<string> };

/** Who writes, as the audit trail records it: the principal and the request that carried the change. */
/**
 * Who writes. `clocks`: for a write on behalf of several clients (a job's, the operator's), how far
 * each sandbox client's clock runs ahead (ms), so what is written for a client carries its time.
 */
export type Actor = { principal: Principal; requestId?: string; clocks?: ReadonlyMap<string, number> };

/** The operator (ADMIN_API_KEY, the CLI, start-up tasks): no client of its own. */
export const OPERATOR: Principal = { kind: "operator", clientId: null, keyId: "admin", mode: null, scopes: new Set(["lookups:read"]) };

/** The operator writing from the command line (and the start-up loaders it shares code with), as the audit trail records it. */
export const CLI_ACTOR: Actor = { principal: OPERATOR, requestId: "cli" };

/** The one permission check of REST routes and GraphQL fields: a scope the principal holds, or the operator itself. */
export const permits = (principal: Principal, required: string) =>
  required === OPERATOR_ONLY ? principal.kind === "operator" : principal.scopes.has(required);

/** Why `permits` said no, for the 403. */
export const refusalOf = (required: string, operation: string) =>
  required === OPERATOR_ONLY ? `Only the operator key may call ${operation}.` : `The API key lacks the scope ${required} needed for ${operation}.`;

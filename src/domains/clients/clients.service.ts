/** API clients (tenants) and their keys: keys are shown once, stored as SHA-256, rotated and revoked. */
import type { Actor, Principal, Scope } from "../../principal.js";
import { CLIENT_SCOPES, keyScopes, OPERATOR, OPERATOR_ONLY, REVIEW_SCOPE } from "../../principal.js";
import type { Db } from "../../db/client.js";
import { randomToken, safeEqual, sha256 } from "../../lib/crypto.js";
import { DomainError, invalid } from "../../lib/errors.js";
import { foundOr404 } from "../../lib/found.js";
import { isUuid } from "../../lib/ids.js";
import type { Transact } from "../../platform/write.js";
import type { EventBus } from "../../platform/bus.js";
import { createTtlCache } from "../../lib/ttl-cache.js";

export type ClientMode = "SANDBOX" | "LIVE";
export type CreateClientInput = { name: string; mode: ClientMode; scopes?: string[] | null };

/** Names of operator power a caller may try to give a client: refused by name, not as unknown. */
const OPERATOR_SCOPES = new Set(["admin", OPERATOR_ONLY]);

function checkClientInput(input: CreateClientInput) {
  const name = input.name?.trim();
  if (!name || name.length > 200) throw invalid([{ field: "name", code: "invalid", message: "name must be 1 to 200 characters." }]);
  const scopes = input.scopes ?? CLIENT_SCOPES;
  if (scopes.some((s) => OPERATOR_SCOPES.has(s)))
    throw invalid([{ field: "scopes", code: "invalid", message: "admin is no scope a client can hold: operator power belongs to the operator key alone." }]);
  const unknown = scopes.filter((s) => !(CLIENT_SCOPES as readonly string[]).includes(s));
  if (unknown.length)
    throw invalid([{ field: "scopes", code: "invalid", message: `Unknown scopes: ${unknown.join(", ")}. Known: ${CLIENT_SCOPES.join(" ")}.` }]);
  return { name, mode: input.mode, scopes: [...new Set(scopes)] as Scope[] };
}

const modeTag = (mode: ClientMode) => `ogk_${mode.toLowerCase()}_`;
const newKeyText = (mode: ClientMode) => `${modeTag(mode)}${randomToken(24)}`;

/**
 * What tells keys apart in lists (`prefix`): the mode tag and the first 8 hex digits of the key's
 * SHA-256, none of the key's own characters, so a list shows nothing of the secret. Whoever holds
 * a key finds its row with `printf %s "$KEY" | sha256sum | cut -c1-8`.
 */
const keyLabel = (mode: ClientMode, hash: string) => `${modeTag(mode)}…${hash.slice(0, 8)}`;

async function issueKey(tx: Pick<Db, "apiKey">, clientId: string, mode: ClientMode, reviewerId: string | null = null) {
  const apiKey = newKeyText(mode);
  const hash = sha256(apiKey);
  const row = await tx.apiKey.create({ data: { clientId, hash, prefix: keyLabel(mode, hash), reviewerId } });
  return { apiKey, keyId: row.id };
}

export async function createApiClient(transact: Transact, actor: Actor, input: CreateClientInput) {
  const data = checkClientInput(input);
  return transact(actor, async ({ tx, audit }) => {
    const client = await tx.apiClient.create({ data });
    const key = await issueKey(tx, client.id, client.mode);
    audit({ action: "client.created", targetType: "api_client", targetId: client.id, changedFields: ["name", "mode", "scopes"] });
    return { client, ...key };
  });
}

/** Issues a new key and revokes the client's previous ones (reviewers' keys are theirs: untouched) in the same transaction. */
export async function rotateApiKey(transact: Transact, actor: Actor, clientId: string) {
  return transact(actor, async ({ tx, audit }) => {
    const client = await foundOr404("API client", clientId, (id) => tx.apiClient.findUnique({ where: { id } }));
    await tx.apiKey.updateMany({ where: { clientId, revokedAt: null, reviewerId: null }, data: { revokedAt: new Date() } });
    const key = await issueKey(tx, clientId, client.mode);
    audit({ action: "api_key.rotated", targetType: "api_client", targetId: clientId });
    return { client, ...key };
  });
}

export type CreateReviewerInput = { clientId: string; name: string; email: string };

/**
 * A named reviewer of a client and their first key (shown once): the key carries the person, so a
 * decision is theirs whatever a request claims. The client must hold compliance:review itself. The
 * email names the person: four eyes count people, so one email is one reviewer of a client (a person
 * who needs a new key gets one with rotateReviewerKey, never a second identity).
 */
export async function createReviewer(transact: Transact, actor: Actor, input: CreateReviewerInput) {
  const name = input.name?.trim();
  const email = input.email?.trim() ?? "";
  const errors = [
    ...(!name || name.length > 200 ? [{ field: "name", code: "invalid", message: "name must be 1 to 200 characters." }] : []),
    ...(!email
      ? [{ field: "email", code: "required", message: "email is required: it names the person four eyes count." }]
      : email.length > 254 || !/^[^@\s]+@[^@\s]+$/.test(email)
        ? [{ field: "email", code: "invalid_format", message: "email is not an email address." }]
        : []),
  ];
  return transact(actor, async ({ tx, audit }) => {
    const client = await lockedClient(tx, input.clientId);
    if (errors.length) throw invalid(errors);
    if (!client.scopes.includes(REVIEW_SCOPE))
      throw new DomainError("INVALID_STATE_TRANSITION", `The client does not hold ${REVIEW_SCOPE}: its reviewers could not review.`);
    const same = await tx.reviewer.findFirst({ where: { clientId: client.id, email: { equals: email, mode: "insensitive" } }, select: { id: true } });
    if (same)
      throw new DomainError("CONFLICT", "A reviewer of this client has this email: rotate their key instead of creating a second identity.", undefined, {
        reviewer_id: same.id,
      });
    const reviewer = await tx.reviewer.create({ data: { clientId: client.id, name: name!, email } });
    const key = await issueKey(tx, client.id, client.mode, reviewer.id);
    audit({ action: "reviewer.created", targetType: "reviewer", targetId: reviewer.id, changedFields: ["name", "email"] });
    return { reviewer, ...key };
  });
}

/** A new key for a reviewer, their previous keys revoked in the same transaction: the person stays one identity. */
export async function rotateReviewerKey(transact: Transact, actor: Actor, input: { clientId: string; reviewerId: string }) {
  return transact(actor, async ({ tx, audit }) => {
    const client = await lockedClient(tx, input.clientId);
    const reviewer = await foundOr404("reviewer", input.reviewerId, (id) => tx.reviewer.findFirst({ where: { id, clientId: client.id } }));
    await tx.apiKey.updateMany({ where: { reviewerId: reviewer.id, revokedAt: null }, data: { revokedAt: new Date() } });
    const key = await issueKey(tx, client.id, client.mode, reviewer.id);
    audit({ action: "reviewer.key_rotated", targetType: "reviewer", targetId: reviewer.id });
    return { reviewer, ...key };
  });
}

/** The client under its row's lock: its reviewers are created one at a time, so one email never makes two. */
async function lockedClient(tx: Pick<Db, "$queryRawUnsafe" | "apiClient">, id: string) {
  return foundOr404("API client", id, async (id) => {
    const [row] = await tx.$queryRawUnsafe<{ id: string }[]>(`select id::text from api_clients where id = $1::uuid for update`, id);
    return row ? tx.apiClient.findUnique({ where: { id: row.id } }) : null;
  });
}

export async function revokeApiKey(transact: Transact, actor: Actor, keyId: string) {
  return transact(actor, async ({ tx, audit }) => {
    const key = await foundOr404("API key", keyId, (id) => tx.apiKey.findUnique({ where: { id } }));
    if (key.revokedAt) throw new DomainError("CONFLICT", "This API key is already revoked.");
    const revoked = await tx.apiKey.update({ where: { id: keyId }, data: { revokedAt: new Date() } });
    audit({ action: "api_key.revoked", targetType: "api_key", targetId: keyId });
    return revoked;
  });
}

/** The client an operator route's path names, or 404. */
export const findApiClient = (db: Db, id: string) => foundOr404("API client", id, (id) => db.apiClient.findUnique({ where: { id }, select: { id: true } }));

/** A reviewer of the client an operator route's path names, or 404. */
export const findReviewer = (db: Db, clientId: string, id: string) =>
  foundOr404("reviewer", id, async (id) => (isUuid(clientId) ? db.reviewer.findFirst({ where: { id, clientId }, select: { id: true } }) : null));

/** The key an operator route's path names, or 404. */
export const findApiKey = (db: Db, id: string) => foundOr404("API key", id, (id) => db.apiKey.findUnique({ where: { id }, select: { id: true } }));

export const listApiClients = (db: Db) =>
  db.apiClient.findMany({ orderBy: { createdAt: "asc" }, include: { keys: { select: { id: true, prefix: true, createdAt: true, revokedAt: true } } } });

/** Resolves a presented key to a principal; cached briefly so the read path costs no query. */
export function createAuthenticator(db: Db, adminApiKey: string | undefined, ttlMs = 30_000) {
  // unknown keys are kept too (as null): a caller retrying a bad key costs no query either
  const principals = createTtlCache<Principal | null>(10_000);
  const principalOf = async (hash: string): Promise<Principal | null> => {
    const row = await db.apiKey.findUnique({
      where: { hash },
      include: { client: { include: { clock: true } }, reviewer: { select: { id: true, name: true, email: true } } },
    });
    if (!row || row.revokedAt) return null;
    const clockAheadMs = row.client.mode === "SANDBOX" && row.client.clock ? row.client.clock.offsetSeconds * 1000 : 0;
    return {
      kind: "client",
      clientId: row.clientId,
      keyId: row.id,
      mode: row.client.mode,
      scopes: keyScopes(row.client.scopes, row.reviewer),
      reviewer: row.reviewer,
      ...(clockAheadMs ? { clockAheadMs } : {}),
    };
  };
  return {
    async authenticate(presented: string): Promise<Principal | null> {
      if (adminApiKey && safeEqual(presented, adminApiKey)) return OPERATOR;
      const hash = sha256(presented);
      const kept = principals.get(hash);
      return kept !== undefined ? kept : principals.fill(hash, ttlMs, () => principalOf(hash));
    },
    /**
     * Revocation and rotation on this instance take effect at once (a look-up already under way is
     * answered but not kept: it may have read the key before the change); other instances within the TTL.
     */
    forget: () => principals.clear(),
  };
}
export type Authenticator = ReturnType<typeof createAuthenticator>;

/**
 * Rotation and revocation take effect on every instance at once: this one forgets now, the others
 * when the event reaches them (Redis). Keys changed by the CLI in another process wait out the TTL.
 */
export function announceKeyChange(services: { auth: Authenticator; events: EventBus }, clientId: string) {
  services.auth.forget();
  services.events.publish("credentials.changed", { clientId });
}

export function forgetOnKeyChanges(auth: Authenticator, events: EventBus) {
  const changes = events.subscribe("credentials.changed");
  void (async () => {
    for await (const _ of changes) auth.forget();
  })();
  return () => changes.return?.();
}

/** First start on an empty database: a sandbox demo client so `npm start` is usable at once. */
export async function bootstrapDemoClient(db: Db, transact: Transact) {
  if ((await db.apiClient.count()) > 0) return null;
  return createApiClient(transact, { principal: OPERATOR, requestId: "bootstrap" }, { name: "Demo (sandbox)", mode: "SANDBOX" });
}

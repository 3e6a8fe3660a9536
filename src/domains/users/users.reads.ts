/**
 * A user by id, the hot read. Concurrent reads are batched (db/batched-reads.ts), and
 * when the fields asked for are the user's columns plus what `requirements` and
 * `risk_assessment_status` need (the REST body, most GraphQL reads), the batch is one plain
 * statement: the user, its active documents' facts and its latest check run of each type and decider, as one
 * JSON value per row. Prisma's findMany with that selection took three statements and its query
 * compiler per batch. Any other selection (a relation with other fields, `include`) is Prisma's.
 */
import { isDeepStrictEqual } from "node:util";
import type { Db } from "../../db/client.js";
import type { Tx } from "../../db/transaction.js";
import type { CheckRun, User } from "../../../generated/prisma/client.js";
import { findOwnedById, loadOwnedById, rawRowsOf, type BatchLoad } from "../../db/batched-reads.js";
import { REQUIREMENT_COLUMNS } from "../compliance/compliance.service.js";
import { ASSESSED_CHECKS } from "../checks/checks.rules.js";

type Selection = { select?: Record<string, unknown>; include?: Record<string, unknown> };

/** The user's columns as Prisma names them, and the SQL column each comes from. */
const COLUMNS: Record<string, string> = {
  id: "id",
  clientId: "client_id",
  externalId: "external_id",
  email: "email",
  emailKey: "email_key",
  phoneNumber: "phone_number",
  firstName: "first_name",
  middleName: "middle_name",
  lastName: "last_name",
  dateOfBirth: "date_of_birth",
  nationality: "nationality",
  countryOfResidence: "country_of_residence",
  residentialAddress: "residential_address",
  billingAddress: "billing_address",
  taxIdEncrypted: "tax_id_encrypted",
  taxIdLast4: "tax_id_last4",
  locale: "locale",
  status: "status",
  kycStatus: "kyc_status",
  riskLevel: "risk_level",
  riskScore: "risk_score",
  emailVerified: "email_verified",
  phoneVerified: "phone_verified",
  pendingEmail: "pending_email",
  pendingPhoneNumber: "pending_phone_number",
  version: "version",
  createdAt: "created_at",
  updatedAt: "updated_at",
};

/** The relations the statement carries, in the very selection Pothos merges in for those two fields (key order aside: isDeepStrictEqual ignores it). */
const RELATIONS: Record<string, unknown> = { documents: REQUIREMENT_COLUMNS.documents, checks: ASSESSED_CHECKS };

/** The columns of the users row `alias` as a JSON object's members (the row's JSON: `userOf`). */
export const userColumnsJson = (alias: string) =>
  Object.entries(COLUMNS)
    .map(([name, column]) => `'${name}', ${alias}.${column}`)
    .join(", ");

const USERS_BY_IDS = `select json_build_object(${userColumnsJson("u")},
  'documents', coalesce((select json_agg(json_build_object('documentType', d.document_type, 'status', d.status, 'expiryDate', d.expiry_date,
       'invalidReason', d.invalid_reason))
     from documents d where d.client_id = u.client_id and d.user_id = u.id and d.status in ('ACTIVE', 'INVALID')), '[]'::json),
  'checks', coalesce((select json_agg(json_build_object('id', c.id, 'type', c.type, 'status', c.status, 'createdAt', c.created_at, 'completedAt', c.completed_at, 'decidedBy', c.decided_by)
       order by c.created_at desc)
     from (select distinct on (r.type, r.decided_by) r.id, r.type, r.status, r.created_at, r.completed_at, r.decided_by from check_runs r where r.user_id = u.id
       order by r.type, r.decided_by, r.created_at desc) c), '[]'::json)
)::text as "user" from unnest($1::uuid[], $2::uuid[]) as w(client_id, id) join users u on u.id = w.id and u.client_id = w.client_id`;

/**
 * true when the statement's row holds everything `selection` asks for: Pothos's `include` (every
 * column, plus relations) or `select`, with relations only in the shapes above
 */
export function statementCovers(selection: Selection | undefined) {
  if (!selection) return false;
  // a document's planned selection is one object for every request (graphql/planned-query.ts): asked once
  let covers = covered.get(selection);
  if (covers === undefined) covered.set(selection, (covers = coveredBy(selection)));
  return covers;
}

const covered = new WeakMap<Selection, boolean>();

function coveredBy(selection: Selection) {
  if (selection.select && selection.include) return false;
  const wanted = selection.include ?? selection.select;
  // `{}`: Pothos's query for columns alone (include mode, no relation): every column, which the row has
  if (!wanted) return Object.keys(selection).length === 0;
  for (const name in wanted) {
    const value = wanted[name];
    if (value === true ? !(selection.select && name in COLUMNS) : !(name in RELATIONS && isDeepStrictEqual(value, RELATIONS[name]))) return false;
  }
  return true;
}

/** JSON has no dates: timestamps (UTC, without zone) and DATE columns become Date as Prisma gives them. */
const utc = (text: string | null) => (text === null ? null : new Date(text.length === 10 ? text : `${text}Z`));

/** A run as a user read lists it (ASSESSED_CHECKS). */
type ListedRun = Pick<CheckRun, "id" | "type" | "status" | "createdAt" | "completedAt" | "decidedBy">;
/** A user as the users-by-id statement reads it: its columns, its documents' facts and its listed runs. */
export type ReadUser = User & { documents: { expiryDate: Date | null }[]; checks: ListedRun[] };

/** A user row read as JSON (`userColumnsJson`, `documents` and `checks` as USERS_BY_IDS makes them) as Prisma gives it. */
export function userOf(json: string): ReadUser {
  const user = JSON.parse(json);
  user.dateOfBirth = utc(user.dateOfBirth);
  user.createdAt = utc(user.createdAt);
  user.updatedAt = utc(user.updatedAt);
  for (const d of user.documents) d.expiryDate = utc(d.expiryDate);
  for (const c of user.checks) {
    c.createdAt = utc(c.createdAt);
    c.completedAt = utc(c.completedAt);
  }
  return user;
}

const loadUsers: BatchLoad = async (wanted, { rows }) => {
  const clients: string[] = [];
  const ids: string[] = [];
  for (const [clientId, some] of wanted)
    for (const id of some) {
      clients.push(clientId);
      ids.push(id);
    }
  return (await rows!(USERS_BY_IDS, [clients, ids])).map(([json]) => userOf(json as string));
};

/** The user `id` of `clientId` with the fields `selection` asks for, or null. */
export function readUserById(db: Db | Tx, clientId: string, id: string, selection: Selection | undefined): Promise<User | null> {
  if (!statementCovers(selection))
    return findOwnedById(db, "user", clientId, id, selection, () => db.user.findFirst({ ...selection, where: { id, clientId } }));
  // unbatched (a transaction's client): the same statement through Prisma, one row
  const single = async () => {
    const [row] = await db.$queryRawUnsafe<{ user: string }[]>(USERS_BY_IDS, [clientId], [id]);
    return row ? userOf(row.user) : null;
  };
  return rawRowsOf(db) ? loadOwnedById(db, "user|statement", clientId, id, loadUsers, single) : single();
}

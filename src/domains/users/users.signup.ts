/**
 * The users module's part of a sign-up (the flow is src/flows/sign-up.ts): the new row as one
 * statement that returns the user as the users-by-id statement shapes it, and its audit entry. A new
 * user has no documents, and its checks are exactly the runs the sign-up queues (`withRuns`), so the
 * usual body (the columns, requirements, the risk assessment) needs no read-back.
 */
import { freshRow, rowInserter } from "../../db/insert-rows.js";
import type { Effects } from "../../platform/write.js";
import { userColumnsJson, userOf, type ReadUser } from "./users.reads.js";

/** The columns a caller's fields and the row's identity fill; every other column takes its default (PENDING, NOT_STARTED, version 1…). */
type NewUserRow = {
  id: string;
  createdAt: Date;
  updatedAt: Date;
  clientId: string;
  externalId?: unknown;
  email?: unknown;
  emailKey?: unknown;
  phoneNumber?: unknown;
  firstName?: unknown;
  middleName?: unknown;
  lastName?: unknown;
  dateOfBirth?: unknown;
  nationality?: unknown;
  countryOfResidence?: unknown;
  residentialAddress?: unknown;
  billingAddress?: unknown;
  taxIdEncrypted?: unknown;
  taxIdLast4?: unknown;
  locale?: unknown;
};

const insertUser = rowInserter<NewUserRow>(
  "users",
  {
    id: "id uuid",
    createdAt: "created_at timestamp(3)",
    updatedAt: "updated_at timestamp(3)",
    clientId: "client_id uuid",
    externalId: "external_id text",
    email: "email text",
    emailKey: "email_key text",
    phoneNumber: "phone_number text",
    firstName: "first_name text",
    middleName: "middle_name text",
    lastName: "last_name text",
    dateOfBirth: "date_of_birth date",
    nationality: "nationality text",
    countryOfResidence: "country_of_residence text",
    residentialAddress: "residential_address jsonb",
    billingAddress: "billing_address jsonb",
    taxIdEncrypted: "tax_id_encrypted text",
    taxIdLast4: "tax_id_last4 text",
    locale: "locale text",
  },
  `returning json_build_object(${userColumnsJson("users")}, 'documents', json_build_array(), 'checks', json_build_array())::text as "user"`,
);

/** What the write needs of the service: the new row's columns as the caller gave them (absent = null). */
export type NewUser = { clientId: string; columns: Record<string, unknown>; changedFields: string[] };

/** The new user's id and the statement that inserts it (returning the user as JSON, `user`), its audit entry among the effects. */
export function newUser({ clientId, columns, changedFields }: NewUser, effects: Effects) {
  const { id, createdAt } = freshRow(effects.now());
  const row: NewUserRow = { ...columns, id, createdAt, updatedAt: createdAt, clientId };
  effects.audit({ action: "user.created", targetType: "user", targetId: id, changedFields });
  return { id, statement: insertUser([row])! };
}

/** The returned row with its checks as the users-by-id statement shapes them (ASSESSED_CHECKS: newest first). */
export function withRuns(json: string, runs: ReadUser["checks"]) {
  const user = userOf(json);
  user.checks = runs
    .map(({ id, type, status, createdAt, completedAt, decidedBy }) => ({ id, type, status, createdAt, completedAt, decidedBy }))
    .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
  return user;
}

/**
 * A sign-up as one statement: the user row, its audit entry, its three queued check runs and their
 * job go to the database together (platform/write.ts `oneStatement`), and the answer is made of what
 * the statement returns plus the runs it queued. A new user has no documents, and its checks are
 * exactly the runs just queued, so the usual body (the columns, requirements, the risk assessment)
 * needs no read-back; a GraphQL selection beyond that is read after the commit.
 */
import type { CheckRun, User } from "../../../generated/prisma/client.js";
import { freshRow, rowInserter } from "../../db/insert-rows.js";
import type { Effects } from "../../platform/write.js";
import { queueFreshChecks } from "../checks/checks.store.js";
import { CHECK_TYPES } from "../checks/checks.rules.js";
import { statementCovers, userColumnsJson, userOf } from "./users.reads.js";

type Selection = { select?: Record<string, unknown>; include?: Record<string, unknown> };

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
export type SignUp = { clientId: string; columns: Record<string, unknown>; changedFields: string[] };

/** The sign-up's change and effects; the answer is the user as `selection` asks, or null when only a read can give it. */
export function signUp({ clientId, columns, changedFields }: SignUp, selection: Selection | undefined) {
  return (effects: Effects) => {
    const { id, createdAt } = freshRow(effects.now());
    const row: NewUserRow = { ...columns, id, createdAt, updatedAt: createdAt, clientId };
    effects.audit({ action: "user.created", targetType: "user", targetId: id, changedFields });
    const runs = queueFreshChecks(effects, { clientId, userId: id }, CHECK_TYPES, "USER_UPDATED");
    return {
      statement: insertUser([row])!,
      answer: ([returned]: Record<string, unknown>[]) => ({ id, user: statementCovers(selection) ? withRuns(returned!.user as string, runs) : null }),
    };
  };
}

/** The returned row with its checks as the users-by-id statement shapes them (ASSESSED_CHECKS: newest first). */
function withRuns(json: string, runs: CheckRun[]) {
  const user = userOf(json) as unknown as User & { checks: Pick<CheckRun, "id" | "type" | "status" | "createdAt" | "completedAt" | "decidedBy">[] };
  user.checks = runs
    .map(({ id, type, status, createdAt, completedAt, decidedBy }) => ({ id, type, status, createdAt, completedAt, decidedBy }))
    .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
  return user;
}

/**
 * The users module's store: the statements on the `users` table that other code needs beyond Prisma's
 * model API, typed here. A settlement reads the state it moves under the rows' locks and writes every
 * user's move in one statement.
 */
import type { Tx } from "../../db/transaction.js";

const USER_STATE = {
  id: true,
  clientId: true,
  externalId: true,
  status: true,
  kycStatus: true,
  riskLevel: true,
  riskScore: true,
  version: true,
  updatedAt: true,
} as const;
export type UserState = {
  id: string;
  clientId: string;
  externalId: string | null;
  status: string;
  kycStatus: string;
  riskLevel: string | null;
  riskScore: number | null;
  version: number;
  updatedAt: Date;
};
const USER_STATE_COLUMNS = `id::text, client_id::text as "clientId", external_id as "externalId", status::text, kyc_status::text as "kycStatus",
  risk_level::text as "riskLevel", risk_score as "riskScore", version, updated_at as "updatedAt"`;
/** USER_STATE of several users read under their rows' locks, taken in id order (two settlements never wait on each other in a circle) */
const LOCKED_USERS_STATE = `select ${USER_STATE_COLUMNS} from users where id = any($1::uuid[]) order by id for update`;
/** what a settlement moved, written for every user at once */
const MOVE_USERS = `update users u set status = m.status, kyc_status = m.kyc_status, risk_level = m.risk_level, risk_score = m.risk_score,
  version = m.version, updated_at = m.updated_at
  from jsonb_to_recordset($1::jsonb) as m(id uuid, status "UserStatus", kyc_status "KycStatus", risk_level "RiskLevel", risk_score int, version int, updated_at timestamp(3))
  where u.id = m.id`;

/** The user's state in events: what moved, never personal data (the consumer reads the user for that). */
export const userView = (u: Omit<UserState, "version">) => ({
  user_id: u.id,
  external_id: u.externalId,
  status: u.status,
  kyc_status: u.kycStatus,
  risk_level: u.riskLevel,
  risk_score: u.riskScore,
  updated_at: u.updatedAt.toISOString(),
});

/** `userView` of the user as the write `tx` sees it. */
export const userStateOf = async (tx: Tx, id: string) => userView(await tx.user.findUniqueOrThrow({ where: { id }, select: USER_STATE }));

/** Locks the user's row for the rest of the write (a write that settles the user takes it first). */
export async function lockUser(tx: Tx, id: string) {
  await tx.$queryRawUnsafe(`select id from users where id = $1::uuid for update`, id);
}

/** The state of `ids`, each row locked as it is read, in id order. */
export const lockedUserStates = (tx: Tx, ids: string[]) => tx.$queryRawUnsafe<UserState[]>(LOCKED_USERS_STATE, ids);

/** Writes each user's new state, every user in one statement. */
export async function moveUsers(tx: Tx, moves: UserState[]) {
  if (!moves.length) return;
  const rows = moves.map((u) => ({
    id: u.id,
    status: u.status,
    kyc_status: u.kycStatus,
    risk_level: u.riskLevel,
    risk_score: u.riskScore,
    version: u.version,
    updated_at: u.updatedAt,
  }));
  await tx.$executeRawUnsafe(MOVE_USERS, JSON.stringify(rows));
}

/** The users' data as a screening compared it (names, date of birth, nationality): what a review opened on them keeps. */
const SCREENED = `select id::text, first_name as "firstName", middle_name as "middleName", last_name as "lastName",
  to_char(date_of_birth, 'YYYY-MM-DD') as "dateOfBirth", nationality from users where id = any($1::uuid[])`;
type ScreenedPerson = { id: string } & Record<"firstName" | "middleName" | "lastName" | "dateOfBirth" | "nationality", string | null>;
export const screenedPeople = (tx: Tx, ids: string[]) => tx.$queryRawUnsafe<ScreenedPerson[]>(SCREENED, ids);

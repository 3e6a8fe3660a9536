/**
 * What one operation may read while it runs. The cost model (graphql/cost.ts) refuses an operation
 * before it runs by the most each list can hold, but a bound it takes on trust (a list declared or
 * assumed shorter than it turns out) is only checked here: every list of objects a resolver
 * answers spends its length from the request's row budget, and every file's bytes, before they are
 * read, from its byte budget. Once a budget is spent, the next list or file is refused with
 * RESULT_TOO_LARGE and no further list resolver runs, whichever transport brought the operation
 * (the budget is in the request's context, and the resolvers are the schema's own).
 *
 * A file's bytes are held several times over while they are answered (the bytes, their base64, the
 * serialised answer), so the process also bounds the bytes all requests together are reading: a
 * file that would pass it is refused with UNAVAILABLE (retry in a second) until an execution that
 * holds some ends and gives them back (`releaseWork`).
 *
 * A subscription is not counted: its context lives as long as it does, and each event is one
 * small execution its cost was checked for when it subscribed.
 */
import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from "@pothos/core";
import type { GraphQLFieldResolver, GraphQLResolveInfo } from "graphql";
import { DomainError } from "../lib/errors.js";

/** Bytes the process's requests may hold together; `take` answers false when `n` more would pass it. */
export type BytePool = { take(n: number): boolean; give(n: number): void };

export function createBytePool(max: number): BytePool {
  let held = 0;
  return {
    take(n) {
      if (held + n > max) return false;
      held += n;
      return true;
    },
    give(n) {
      held = Math.max(0, held - n);
    },
  };
}

export type WorkLimits = {
  /** items of lists of objects one operation may answer (MAX_ROWS_PER_REQUEST) */
  rows: number;
  /** bytes of files one operation may answer */
  fileBytes: number;
  /** bytes of files every operation in flight together may be reading (MAX_FILE_BYTES_IN_FLIGHT) */
  fileBytesInFlight: BytePool;
};
/** What an operation has read so far; its `fileBytes` are held in the process's pool until `releaseWork`. */
export type WorkSpent = { rows: number; fileBytes: number };
type Budgeted = { workLimits: WorkLimits; workSpent: WorkSpent };

const counted = (info: GraphQLResolveInfo) => info.operation.operation !== "subscription";

function refuse(what: "rows" | "fileBytes", limit: number) {
  const detail = what === "rows" ? `more than ${limit} rows` : `more than ${limit} bytes of files`;
  return new DomainError(
    "RESULT_TOO_LARGE",
    `The answer would hold ${detail}: ask for fewer rows (first, last), fewer nested lists or fewer files.`,
    undefined,
    { limit },
  );
}

function spendRows({ workLimits, workSpent }: Budgeted, info: GraphQLResolveInfo, rows: number) {
  if (!counted(info)) return;
  workSpent.rows += rows;
  if (workSpent.rows > workLimits.rows) throw refuse("rows", workLimits.rows);
}

/** Spends a file's size from the request's and the process's byte budgets before its bytes are read. */
export function spendFileBytes({ workLimits, workSpent }: Budgeted, info: GraphQLResolveInfo, bytes: number) {
  if (!counted(info)) return;
  if (workSpent.fileBytes + bytes > workLimits.fileBytes) throw refuse("fileBytes", workLimits.fileBytes);
  if (!workLimits.fileBytesInFlight.take(bytes))
    throw new DomainError("UNAVAILABLE", "The service is answering as many files as it can hold; retry in a second.", undefined, { retryAfter: 1 });
  workSpent.fileBytes += bytes;
}

/** Gives back what an execution held (its file bytes) once it has ended; again is harmless. */
export function releaseWork(ctx: object) {
  const { workLimits, workSpent } = ctx as Partial<Budgeted>;
  if (!workLimits || !workSpent?.fileBytes) return;
  workLimits.fileBytesInFlight.give(workSpent.fileBytes);
  workSpent.fileBytes = 0;
}

/** Throws when the budget is spent already: nothing more is loaded for an answer that will be refused. */
function ensureLeft({ workLimits, workSpent }: Budgeted, info: GraphQLResolveInfo) {
  if (counted(info) && workSpent.rows > workLimits.rows) throw refuse("rows", workLimits.rows);
}

const isListOfObjects = (type: { kind: string; type?: { kind: string } }) => type.kind === "List" && type.type?.kind !== "Scalar" && type.type?.kind !== "Enum";

/** The Pothos plugin: every field answering a list of objects spends its length from the row budget. */
class WorkBudgetPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapResolve(
    resolver: GraphQLFieldResolver<unknown, Types["Context"], object>,
    fieldConfig: PothosOutputFieldConfig<Types>,
  ): GraphQLFieldResolver<unknown, Types["Context"], object> {
    if (!isListOfObjects(fieldConfig.type)) return resolver;
    return (parent, args, ctx, info) => {
      ensureLeft(ctx as Budgeted, info);
      const items = resolver(parent, args, ctx, info) as unknown;
      const tally = (list: unknown) => {
        if (Array.isArray(list)) spendRows(ctx as Budgeted, info, list.length);
        return list;
      };
      return typeof (items as PromiseLike<unknown> | null)?.then === "function" ? (items as Promise<unknown>).then(tally) : tally(items);
    };
  }
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  export namespace PothosSchemaTypes {
    interface Plugins<Types extends SchemaTypes> {
      workBudget: WorkBudgetPlugin<Types>;
    }
  }
}

export const workBudgetPlugin = "workBudget";
SchemaBuilder.registerPlugin(workBudgetPlugin, WorkBudgetPlugin);

/**
 * What one operation may read while it runs. The cost model (graphql/cost.ts) refuses an operation
 * before it runs by the most each list can hold, but a bound it takes on trust (a list declared or
 * assumed shorter than it turns out) is only checked here: every list of objects a resolver
 * answers spends its length from the request's row budget, and every file's bytes from its byte
 * budget. Once a budget is spent, the next list or file is refused with RESULT_TOO_LARGE and no
 * further list resolver runs, whichever transport brought the operation (the budget is in the
 * request's context, and the resolvers are the schema's own).
 *
 * A subscription is not counted: its context lives as long as it does, and each event is one
 * small execution its cost was checked for when it subscribed.
 */
import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from "@pothos/core";
import type { GraphQLFieldResolver, GraphQLResolveInfo } from "graphql";
import { DomainError } from "../lib/errors.js";

export type WorkLimits = {
  /** items of lists of objects one operation may answer (MAX_ROWS_PER_REQUEST) */
  rows: number;
  /** bytes of files one operation may answer */
  fileBytes: number;
};
export type WorkSpent = { rows: number; fileBytes: number };
type Budgeted = { workLimits: WorkLimits; workSpent: WorkSpent };

const counted = (info: GraphQLResolveInfo) => info.operation.operation !== "subscription";

function refuse(what: keyof WorkLimits, limit: number) {
  const detail = what === "rows" ? `more than ${limit} rows` : `more than ${limit} bytes of files`;
  return new DomainError("RESULT_TOO_LARGE", `The answer would hold ${detail}: ask for fewer rows (first, last), fewer nested lists or fewer files.`, undefined, { limit });
}

/** Spends `amount` of the request's budget; throws RESULT_TOO_LARGE once it is over. */
export function spend({ workLimits, workSpent }: Budgeted, info: GraphQLResolveInfo, what: keyof WorkLimits, amount: number) {
  if (!counted(info)) return;
  workSpent[what] += amount;
  if (workSpent[what] > workLimits[what]) throw refuse(what, workLimits[what]);
}

/** Throws when the budget is spent already: nothing more is loaded for an answer that will be refused. */
function ensureLeft({ workLimits, workSpent }: Budgeted, info: GraphQLResolveInfo) {
  if (counted(info) && workSpent.rows > workLimits.rows) throw refuse("rows", workLimits.rows);
}

const isListOfObjects = (type: { kind: string; type?: { kind: string } }) => type.kind === "List" && type.type?.kind !== "Scalar" && type.type?.kind !== "Enum";

/** The Pothos plugin: every field answering a list of objects spends its length from the row budget. */
export class WorkBudgetPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapResolve(resolver: GraphQLFieldResolver<unknown, Types["Context"], object>, fieldConfig: PothosOutputFieldConfig<Types>): GraphQLFieldResolver<unknown, Types["Context"], object> {
    if (!isListOfObjects(fieldConfig.type)) return resolver;
    return (parent, args, ctx, info) => {
      ensureLeft(ctx as Budgeted, info);
      const items = resolver(parent, args, ctx, info) as unknown;
      const spendRows = (list: unknown) => {
        if (Array.isArray(list)) spend(ctx as Budgeted, info, "rows", list.length);
        return list;
      };
      return typeof (items as PromiseLike<unknown> | null)?.then === "function" ? (items as Promise<unknown>).then(spendRows) : spendRows(items);
    };
  }
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  export namespace PothosSchemaTypes {
    interface Plugins<Types extends SchemaTypes> { workBudget: WorkBudgetPlugin<Types> }
  }
}

export const workBudgetPlugin = "workBudget";
SchemaBuilder.registerPlugin(workBudgetPlugin, WorkBudgetPlugin);

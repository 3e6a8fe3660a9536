/**
 * Offset-backed Relay connections: every list takes `first/after` and `last/before` with
 * `totalCount`, and the cursors are offsets, so the REST shim can turn `page`/`records_per_page`
 * into `first`/`after` exactly. Bad paging arguments are VALIDATION_FAILED naming the argument.
 */
import type { ArgBuilder } from "@pothos/core";
import { cursorToOffset, offsetToCursor, resolveArrayConnection, resolveOffsetConnection } from "@pothos/plugin-relay";
import { Kind, type FieldNode, type GraphQLResolveInfo, type SelectionSetNode } from "graphql";
import type { RequestContext } from "../context.js";
import type { SchemaTypes } from "./builder.js";
import { plannedQuery } from "./planned-query.js";
import { invalid } from "../lib/errors.js";

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 10;
/** The default page of a relation list (User.documents, User.checks…), which takes `first` only. */
const RELATION_PAGE_SIZE = 20;

export type PageArgs = { first?: number | null; after?: string | null; last?: number | null; before?: string | null };

/** Every bad paging argument at once, named as the caller wrote it (Pothos would say "Invalid base64 string"). */
function checkPageArgs(args: PageArgs) {
  const errors = [];
  for (const name of ["first", "last"] as const) {
    const n = args[name];
    if (n != null && (n < 0 || n > MAX_PAGE_SIZE)) errors.push({ field: name, code: "out_of_range", message: `${name} must be from 0 to ${MAX_PAGE_SIZE}.` });
  }
  for (const name of ["after", "before"] as const) {
    const cursor = args[name];
    if (cursor != null && !isCursor(cursor))
      errors.push({ field: name, code: "invalid", message: `${name} must be a cursor from this list's pageInfo or edges.` });
  }
  if (errors.length) throw invalid(errors);
}

function isCursor(cursor: string) {
  try {
    const offset = cursorToOffset(cursor);
    return Number.isSafeInteger(offset) && offset >= 0;
  } catch {
    return false;
  }
}

/** `last` alone counts back from the end: the total is needed before the window. */
const countsFirst = (args: PageArgs) => args.last != null && args.before == null && args.first == null;

/**
 * A connection's `totalCount`: a number, or the count still to run. A page whose selection does not
 * ask for the total is not counted at all (hasNextPage comes from reading one row more); asked for,
 * the count runs once, however many aliases read it.
 */
export type TotalCount = number | (() => Promise<number>);

/** `asksTotal`: the selection reads `totalCount`, so the count runs beside the page, not after it. */
async function offsetConnection<T>(
  args: PageArgs,
  count: () => Promise<number>,
  fetch: (window: { offset: number; limit: number }) => Promise<T[]>,
  asksTotal = true,
): Promise<{ totalCount: TotalCount }> {
  checkPageArgs(args);
  const options = { args, defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE };
  if (countsFirst(args)) {
    const totalCount = await count();
    return Object.assign(await resolveOffsetConnection({ ...options, totalCount }, fetch), { totalCount });
  }
  if (!asksTotal) {
    let counted: Promise<number> | undefined;
    return Object.assign(await resolveOffsetConnection(options, fetch), { totalCount: () => (counted ??= count()) });
  }
  const [totalCount, connection] = await Promise.all([count(), resolveOffsetConnection(options, fetch)]);
  return Object.assign(connection, { totalCount });
}

const asksTotalOf = new WeakMap<FieldNode, boolean>();
/** Whether the connection field's selection reads `totalCount` (a fragment spread is taken as asking). */
function asksTotal(info: GraphQLResolveInfo) {
  const field = info.fieldNodes[0]!;
  let asks = asksTotalOf.get(field);
  if (asks === undefined) {
    const reads = (set: SelectionSetNode | undefined): boolean =>
      !!set
      && set.selections.some((s) => (s.kind === Kind.FIELD ? s.name.value === "totalCount" : s.kind === Kind.INLINE_FRAGMENT ? reads(s.selectionSet) : true));
    asks = info.fieldNodes.some((node) => reads(node.selectionSet));
    asksTotalOf.set(field, asks);
  }
  return asks;
}

/** The same paging over rows already in memory (e.g. loaded by a DataLoader for many parents at once). */
export function arrayConnection<T>(args: PageArgs, rows: T[]) {
  checkPageArgs(args);
  return resolveArrayConnection({ args, defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE }, rows);
}

/**
 * The `first` of a relation list: a user's documents, wallets or check runs grow without a rule, so
 * each list answers a page, newest first, and the cost model prices it by that page (graphql/cost.ts).
 */
export const relationFirst = (arg: ArgBuilder<SchemaTypes>) =>
  arg.int({ defaultValue: RELATION_PAGE_SIZE, description: `At most this many (1 to ${MAX_PAGE_SIZE})` });

/** The rows a relation's `first` takes: out-of-range values are brought within 1 to MAX_PAGE_SIZE. */
export const relationTake = (first: number | null | undefined) => Math.min(Math.max(first ?? RELATION_PAGE_SIZE, 1), MAX_PAGE_SIZE);

/** The `after` cursor that starts a page at `offset` (REST page → Relay). */
export const cursorBefore = (offset: number) => (offset > 0 ? offsetToCursor(offset - 1) : null);

/** A list as a service gives it: the total, and one window of rows. */
export type Found = { count: () => Promise<number>; page: (window: { offset: number; limit: number }) => Promise<unknown[]> };

/**
 * The resolver of every list field: Pothos's selection for the nodes goes to the service, so
 * relations load with the page. The `never` casts stand for Pothos's per-field selection and
 * resolver types, which one shared helper cannot name.
 */
export const listResolver =
  <A>(typeName: string, find: (ctx: RequestContext, args: A, query: never) => Found, { narrow = false } = {}) =>
  (_root: unknown, args: A & PageArgs, ctx: RequestContext, info: GraphQLResolveInfo) => {
    const found = find(ctx, args, plannedQuery(ctx, info, { path: ["edges", "node"], typeName, narrow }) as never);
    return offsetConnection(args, found.count, found.page, asksTotal(info)) as never;
  };

/** Connection options naming the type and adding totalCount (REST's total_records). */
export const withTotalCount = (name: string) => ({
  name,
  fields: (c: PothosSchemaTypes.ObjectFieldBuilder<SchemaTypes, object>) => ({
    totalCount: c.int({
      resolve: (conn) => {
        const total = (conn as { totalCount: TotalCount }).totalCount;
        return typeof total === "function" ? total() : total;
      },
    }),
  }),
});

/**
 * Offset-backed Relay connections: every list is `first/after` with `totalCount`, and the cursors
 * are offsets, so the REST shim can turn `page`/`records_per_page` into `first`/`after` exactly.
 */
import { queryFromInfo } from "@pothos/plugin-prisma";
import { offsetToCursor, resolveOffsetConnection } from "@pothos/plugin-relay";
import type { GraphQLResolveInfo } from "graphql";
import type { RequestContext } from "../context.js";
import type { SchemaTypes } from "./builder.js";
import { invalid } from "../lib/errors.js";

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 10;

export type PageArgs = { first?: number | null; after?: string | null; last?: number | null; before?: string | null };

export async function offsetConnection<T>(
  args: PageArgs,
  count: () => Promise<number>,
  fetch: (window: { offset: number; limit: number }) => Promise<T[]>,
) {
  for (const name of ["first", "last"] as const) {
    const n = args[name];
    if (n != null && (n < 0 || n > MAX_PAGE_SIZE)) throw invalid([{ field: name, code: "out_of_range", message: `${name} must be from 0 to ${MAX_PAGE_SIZE}.` }]);
  }
  const [totalCount, connection] = await Promise.all([
    count(),
    resolveOffsetConnection({ args, defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE }, fetch),
  ]);
  return Object.assign(connection, { totalCount });
}

/** The `after` cursor that starts a page at `offset` (REST page → Relay). */
export const cursorBefore = (offset: number) => (offset > 0 ? offsetToCursor(offset - 1) : null);

/** A list as a service gives it: the total, and one window of rows. */
export type Found = { count: () => Promise<number>; page: (window: { offset: number; limit: number }) => Promise<unknown[]> };

/**
 * The resolver of every list field: Pothos's selection for the nodes goes to the service, so
 * relations load with the page. The `never` casts stand for Pothos's per-field selection and
 * resolver types, which one shared helper cannot name.
 */
export const listResolver = <A>(typeName: string, find: (ctx: RequestContext, args: A, query: never) => Found) =>
  (_root: unknown, args: A & PageArgs, ctx: RequestContext, info: GraphQLResolveInfo) => {
    const found = find(ctx, args, queryFromInfo({ context: ctx, info, path: ["edges", "node"], typeName }) as never);
    return offsetConnection(args, found.count, found.page) as never;
  };

/** Connection options naming the type and adding totalCount (REST's total_records). */
export const withTotalCount = (name: string) => ({
  name,
  fields: (c: PothosSchemaTypes.ObjectFieldBuilder<SchemaTypes, object>) => ({ totalCount: c.int({ resolve: (conn) => (conn as { totalCount: number }).totalCount }) }),
});

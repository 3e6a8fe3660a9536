/**
 * A REST route is data: method + path → one GraphQL operation, how to build its variables, how to
 * shape its result, and the success status. It holds no business rule; the domain does.
 */
import { Kind, parse, visit, type DocumentNode } from "graphql";
import type { RequestContext } from "../context.js";
import { toCamel, toSnake } from "../lib/case.js";
import type { HeaderSource } from "../server/request-state.js";

export type Method = "GET" | "POST" | "PUT" | "DELETE";

/** What a route's `variables` sees: inputs already read against the operation's types (rest-input.ts). */
export type RestRequest = {
  /** path parameters, percent-decoded */
  params: Record<string, string>;
  /** the route's query parameters, typed, under their GraphQL (camelCase) names */
  query: Record<string, unknown>;
  /** the body as the GraphQL input object (camelCase), unknown fields already refused */
  body: Record<string, unknown>;
  headers: HeaderSource;
};

/**
 * Finds the object a path names as the caller may see it (its own client's; the operator's: any),
 * through the owning domain's read, or throws that domain's NOT_FOUND.
 */
export type PathLookup = (ctx: RequestContext, params: Record<string, string>) => Promise<unknown>;

export type Route = {
  method: Method;
  /** OpenAPI-style template, e.g. /v2/users/{user_id} */
  path: string;
  summary: string;
  /** the scope the operation checks, or OPERATOR_ONLY (context.ts `permits`: REST before reading the input, GraphQL again) */
  scope: string;
  /** GraphQL document (one operation), written in camelCase; REST snake_case aliases are added */
  operation: DocumentNode;
  variables: (req: RestRequest) => Record<string, unknown>;
  /**
   * What the path's parameters name. Whatever the route refuses (the body, the query) is answered only
   * once the lookup finds the object (answer-route.ts), so an unknown or another client's id is 404
   * whatever the rest of the request holds; `"filters"`: they only narrow a list. A route with a path
   * parameter declares one, or the table refuses to start.
   */
  lookup?: PathLookup | "filters";
  /** the top-level field of `data` that is the response body */
  field: string;
  /** @default 200 */
  status?: number;
  /** a list: the field is a connection, answered with the paging envelope */
  list?: boolean;
  /** header ETag taken from this (selected, then removed) field of the object */
  etagField?: string;
  /** public reference data: ETag from the body, If-None-Match → 304, Cache-Control */
  cacheControl?: string;
  /** the answer is the same for every caller with the scope: served from memory this long (rest/shared-cache.ts) */
  sharedCacheMs?: number;
  /** body fields whose REST name is not the input field's snake_case name, e.g. `{ document_id: "id" }` */
  bodyAliases?: Record<string, string>;
  /** names of the query parameters the route reads (OpenAPI) */
  queryParams?: string[];
  /** a body limit above MAX_BODY_BYTES for this route only (uploads); the larger of the two applies */
  maxBodyBytes?: number;
  /** the answer is raw bytes, not JSON: the result's (REST-named) fields holding them in base64, their content type and file name */
  binary?: { content: string; contentType: string; fileName?: string };
  /** a deprecated (v1) route: its successor's path, sent as `Link: <…>; rel="successor-version"` with Deprecation and Sunset */
  successor?: string;
};

/**
 * Parses a REST operation once, at start, and aliases every camelCase field to its snake_case
 * REST name, so the GraphQL result already has the REST shape (`user_id: id` is written by hand).
 */
export function restOperation(source: string): DocumentNode {
  return visit(parse(source), {
    Field(node, _key, _parent, _path, ancestors) {
      // root fields keep their name: the shim reads data[route.field]
      const nested = ancestors.some((a) => "kind" in a && a.kind === Kind.FIELD);
      if (!nested || node.alias || !/[A-Z]/.test(node.name.value)) return undefined;
      return { ...node, alias: { kind: Kind.NAME, value: toSnake(node.name.value) } };
    },
  });
}

/** The body as the operation's `input`, with what the route takes from the path or headers merged in. */
export const bodyInput = (req: RestRequest, extra: Record<string, unknown> = {}) => ({ ...req.body, ...extra });

/** The named query parameters (snake_case) as variables (camelCase); absent ones are left out. */
export function queryVariables(req: RestRequest, names: string[]) {
  const out: Record<string, unknown> = {};
  for (const name of names) if (req.query[toCamel(name)] !== undefined) out[toCamel(name)] = req.query[toCamel(name)];
  return out;
}

/** The one SchemaBuilder: plugins, scalars, context type and empty roots. Domains add the types. */
import SchemaBuilder from "@pothos/core";
import PrismaPlugin from "@pothos/plugin-prisma";
import RelayPlugin from "@pothos/plugin-relay";
import ScopeAuthPlugin from "@pothos/plugin-scope-auth";
import { GraphQLError } from "graphql";
import type PrismaTypes from "../../generated/prisma/pothos-types.js";
import { getDatamodel } from "../../generated/prisma/pothos-types.js";
import type { RequestContext } from "../context.js";
import { permits, refusalOf } from "../principal.js";
import { DomainError } from "../lib/errors.js";
import { workBudgetPlugin } from "./work-budget.js";

export const builder = new SchemaBuilder<{
  Context: RequestContext;
  PrismaTypes: PrismaTypes;
  AuthScopes: { scope: string };
  DefaultFieldNullability: false;
  Scalars: {
    Date: { Input: string; Output: Date | string };
    DateTime: { Input: Date; Output: Date };
    JSON: { Input: unknown; Output: unknown };
    MinorUnits: { Input: number; Output: number | bigint };
    /** a file part of a GraphQL multipart request (yoga parses it); input only */
    File: { Input: File; Output: never };
  };
}>({
  plugins: [ScopeAuthPlugin, PrismaPlugin, RelayPlugin, workBudgetPlugin],
  defaultFieldNullability: false,
  prisma: {
    dmmf: getDatamodel(),
    // the client is per request (ctx.db), so selections work for PGlite and pg alike
    client: (ctx) => ctx.db,
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
  relay: { clientMutationId: "omit", cursorType: "String", nodeQueryOptions: false, nodesQueryOptions: false },
  scopeAuth: {
    // a key without the field's scope is refused when it subscribes, not as each event arrives:
    // it holds no subscription slot and learns of no event
    authorizeOnSubscribe: true,
    authScopes: (ctx) => ({ scope: (scope: string) => permits(ctx.principal, scope) }),
    unauthorizedError: (_parent, _ctx, info) =>
      new DomainError("FORBIDDEN", refusalOf(scopeOf(info.parentType.getFields()[info.fieldName]?.extensions), info.fieldName)),
  },
});

function scopeOf(ext: Record<string, unknown> | undefined | null) {
  const scopes = (ext?.pothosOptions as { authScopes?: { scope?: string } } | undefined)?.authScopes;
  return scopes?.scope ?? "required";
}

/** The builder's type parameters, for helpers that take Pothos field builders. */
export type SchemaTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

builder.queryType({});
builder.mutationType({});

// The scalar checks the JSON type only; whether the text is a real date is a domain rule
// (parseIsoDate in the domain's rules), so a bad date is reported together with the body's other errors.
builder.scalarType("Date", {
  description: "A calendar date, YYYY-MM-DD",
  serialize: (value) => (value instanceof Date ? value.toISOString().slice(0, 10) : String(value)),
  parseValue: (value) => {
    if (typeof value === "string") return value;
    throw new GraphQLError("must be a date written YYYY-MM-DD", { extensions: { code: "VALIDATION_FAILED" } });
  },
});

builder.scalarType("DateTime", {
  description: "An instant, ISO 8601 in UTC",
  serialize: (value) => (value instanceof Date ? value.toISOString() : String(value)),
  parseValue: (value) => {
    const d = new Date(String(value));
    if (typeof value !== "string" || Number.isNaN(d.getTime()))
      throw new GraphQLError("must be an ISO 8601 date-time", { extensions: { code: "VALIDATION_FAILED" } });
    return d;
  },
});

/** Money: a whole number of the currency's minor units. GraphQL Int stops at 2^31, below many IDR/VND limits. */
builder.scalarType("MinorUnits", {
  description: "A whole number of minor units (cents, paise…) up to 2^53 - 1, sent as a JSON number",
  serialize: (value) => Number(value),
  parseValue: (value) => {
    if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return value;
    throw new GraphQLError("must be a whole, non-negative number of minor units", { extensions: { code: "VALIDATION_FAILED" } });
  },
});

builder.scalarType("File", {
  description: "A file sent as a part of a GraphQL multipart request (github.com/jaydenseric/graphql-multipart-request-spec)",
  serialize: () => {
    throw new GraphQLError("File is an input-only scalar");
  },
  parseValue: (value) => {
    // yoga's File (@whatwg-node) is not an instance of Node's own Blob class: judge it by its shape
    const file = value as File | null;
    if (file && typeof file === "object" && typeof file.arrayBuffer === "function" && typeof file.name === "string" && typeof file.size === "number")
      return file;
    throw new GraphQLError("must be a file part of a multipart request", { extensions: { code: "VALIDATION_FAILED" } });
  },
});

builder.scalarType("JSON", { description: "Any JSON value", serialize: (v) => v, parseValue: (v) => v });

/**
 * A REST request's inputs, read against the GraphQL types of the route's operation: body fields and
 * query parameters by their REST (snake_case) names, each checked for its JSON type, enum value or
 * scalar, the problems collected and named the REST way (`residential_address.postal_code`,
 * `destination_country_code[1]`). Unknown names are refused (camelCase spellings included), so
 * what reaches GraphQL always coerces and no GraphQL variable, type or enum name can reach a
 * REST caller. Walks follow the type, never the input, so depth is bounded by the schema; a list
 * longer than MAX_INPUT_LIST_ITEMS is refused whole, and past MAX_LISTED_PROBLEMS problems are only
 * counted, so what a walk does and what it answers stay small whatever the body holds.
 * Plans are made once per route at start; requests only walk them.
 */
import type { HeaderSource } from "../server/request-state.js";
import {
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLID,
  GraphQLInt,
  GraphQLString,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  typeFromAST,
  type GraphQLEnumType,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLScalarType,
  type GraphQLSchema,
  Kind,
} from "graphql";
import { enumSpellings, toCamel, toSnake } from "../lib/case.js";
import { clip, invalid, Problems, reportUnknownKeys, type FieldError } from "../lib/errors.js";
import type { Route } from "./route.js";

export type InputPlan = {
  /** the variable the body fills, and the fields of it the route fills from the path or headers */
  body: {
    variable: string;
    type: GraphQLInputObjectType;
    fromRoute: ReadonlySet<string>;
    aliases: Readonly<Record<string, string>>;
    takesUserId: boolean;
  } | null;
  /** REST query parameter → its variable's type */
  query: ReadonlyMap<string, GraphQLInputType>;
};

export const PAGING_PARAMS = ["page", "records_per_page"];
/** The most items a list of a REST input may hold (OpenAPI's maxItems): no route's list comes near it. */
export const MAX_INPUT_LIST_ITEMS = 1000;

export function planInput(schema: GraphQLSchema, route: Route): InputPlan {
  const operation = route.operation.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION);
  const types = new Map((operation?.variableDefinitions ?? []).map((d) => [d.variable.name.value, typeFromAST(schema, d.type as never) as GraphQLInputType]));
  let body: InputPlan["body"] = null;
  if (route.method === "POST" || route.method === "PUT") {
    const entry = [...types].find(([name, t]) => name === "input" && isInputObjectType(unwrap(t)));
    const aliases = route.bodyAliases ?? {};
    const fromRoute = [...filledByRoute(route, entry?.[0] ?? "")].filter((f) => !Object.values(aliases).includes(f));
    if (entry) {
      const type = unwrap(entry[1]) as GraphQLInputObjectType;
      const takesUserId = "user_id" in aliases || ("userId" in type.getFields() && !fromRoute.includes("userId"));
      body = { variable: entry[0], type, fromRoute: new Set(fromRoute), aliases, takesUserId };
    }
  }
  const query = new Map((route.queryParams ?? []).map((name) => [name, types.get(toCamel(name)) ?? GraphQLString] as const));
  return { body, query };
}

/** The input fields a route sets itself (path ids, If-Match): asked of the route with nothing sent. */
function filledByRoute(route: Route, variable: string) {
  const params = Object.fromEntries([...route.path.matchAll(/\{(\w+)\}/g)].map((m) => [m[1], "x"]));
  const probe = route.variables({ params, query: {}, body: {}, headers: new Headers() })[variable];
  return new Set(probe && typeof probe === "object" ? Object.keys(probe) : []);
}

const unwrap = (type: GraphQLInputType): GraphQLInputType => (isNonNullType(type) ? unwrap(type.ofType) : type);

/** `listed`: the objects (by path prefix) whose known fields a message has named already, so they are named once. */
type Walk = { problems: Problems<FieldError>; loose: boolean; listed: Set<string> };
const newWalk = (loose: boolean): Walk => ({ problems: new Problems(), loose, listed: new Set() });
const refuse = (walk: Walk) => invalid(walk.problems.listed, walk.problems.omitted);

/**
 * The body as the GraphQL input object (camelCase), or a VALIDATION_FAILED naming every bad field.
 * Wherever a body takes `user_id`, the `X-Auth-User-ID` header may carry it instead (the
 * vendor's convention); both given and different is the caller's error.
 */
export function readBodyInput(plan: InputPlan, given: Record<string, unknown>, form: boolean, headers?: HeaderSource) {
  const walk = newWalk(form);
  const headerUser = headers?.get("x-auth-user-id");
  let body = given;
  if (headerUser != null && plan.body?.takesUserId) {
    if (body.user_id === undefined) body = { ...body, user_id: headerUser };
    else if (body.user_id !== headerUser)
      fail(walk, "user_id", "user_id in the body and the X-Auth-User-ID header name different users; send one, or the same in both.", "conflict");
  }
  const value = plan.body ? objectValue(body, plan.body.type, "", walk, plan.body.fromRoute, plan.body.aliases) : noBody(body, walk);
  if (walk.problems.size) throw refuse(walk);
  return value as Record<string, unknown>;
}

function noBody(body: Record<string, unknown>, walk: Walk) {
  reportUnknownKeys(body, new Set(), walk.problems, (key) => unknownField(walk, key, [], []));
  return {};
}

/** Query parameters as typed variables (camelCase); unknown ones are refused, naming what is taken. */
export function readQueryInput(plan: InputPlan, query: URLSearchParams, list: boolean) {
  const walk = newWalk(true);
  const out: Record<string, unknown> = {};
  const taken = [...plan.query.keys(), ...(list ? PAGING_PARAMS : [])];
  const refused = new Set<string>();
  for (const name of new Set(query.keys())) {
    const type = plan.query.get(name);
    if (!type) {
      if (!taken.includes(name)) unknownField(walk, name, taken, [], "query parameter");
      continue;
    }
    const before = walk.problems.size;
    const values = query.getAll(name).filter((v) => v !== "");
    if (!values.length) continue;
    const itemType = unwrap(type);
    if (isListType(itemType))
      out[toCamel(name)] = value(
        values.flatMap((v) =>
          v
            .split(",")
            .map((s) => s.trim())
            .filter(Boolean),
        ),
        type,
        name,
        walk,
      );
    else if (values.length > 1) fail(walk, name, `${name} may be given only once.`);
    else out[toCamel(name)] = value(values[0], type, name, walk);
    if (walk.problems.size > before) refused.add(name);
  }
  for (const [name, type] of plan.query)
    if (isNonNullType(type) && out[toCamel(name)] === undefined && !refused.has(name)) fail(walk, name, `${name} is required.`, "required");
  if (walk.problems.size) throw refuse(walk);
  return out;
}

function value(raw: unknown, type: GraphQLInputType, path: string, walk: Walk): unknown {
  if (isNonNullType(type)) {
    if (raw === null || raw === undefined) return fail(walk, path, `${path} is required.`, "required");
    return value(raw, type.ofType, path, walk);
  }
  if (raw === null) return null;
  if (isListType(type)) {
    if (!Array.isArray(raw)) return fail(walk, path, `${path} must be a list.`);
    if (raw.length > MAX_INPUT_LIST_ITEMS) return fail(walk, path, `${path} holds ${raw.length} items; at most ${MAX_INPUT_LIST_ITEMS} are taken.`);
    return raw.map((item, i) => value(item, type.ofType, `${path}[${i}]`, walk));
  }
  if (isInputObjectType(type)) return objectValue(raw, type, `${path}.`, walk);
  if (isEnumType(type)) return enumValue(raw, type, path, walk);
  return scalarValue(raw, type as GraphQLScalarType, path, walk);
}

function objectValue(
  raw: unknown,
  type: GraphQLInputObjectType,
  prefix: string,
  walk: Walk,
  fromRoute: ReadonlySet<string> = new Set(),
  aliases: Readonly<Record<string, string>> = {},
) {
  const where = prefix.replace(/\.$/, "") || "body";
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return fail(walk, where, `${where} must be an object.`);
  const fields = type.getFields();
  const renamed = new Set(Object.values(aliases));
  const names = new Map([
    ...Object.keys(fields)
      .filter((f) => !fromRoute.has(f) && !renamed.has(f))
      .map((f) => [toSnake(f), f] as const),
    ...Object.entries(aliases),
  ]);
  const out: Record<string, unknown> = {};
  const given = raw as Record<string, unknown>;
  const keys = Object.keys(given);
  let unknown = keys.length;
  for (const rest of names.keys()) if (Object.hasOwn(given, rest)) unknown--;
  let taken: string[] | undefined;
  // in the body's order while problems are still listed; once the list is full, the unknown keys left are counted, not visited
  for (const key of keys) {
    const field = names.get(key);
    if (field) out[field] = value(given[key], fields[field].type, `${prefix}${key}`, walk);
    else if (walk.problems.full) break;
    else {
      unknown--;
      taken ??= [...names.keys()];
      unknownField(walk, key, taken, [...fromRoute].map(toSnake), "field", prefix);
    }
  }
  for (const [rest, field] of names)
    if (!(field in out) && Object.hasOwn(given, rest)) out[field] = value(given[rest], fields[field].type, `${prefix}${rest}`, walk);
  walk.problems.skip(unknown);
  for (const [rest, field] of names)
    if (isNonNullType(fields[field].type) && !(field in out) && fields[field].defaultValue === undefined)
      fail(walk, `${prefix}${rest}`, `${prefix}${rest} is required.`, "required");
  // what the schema states beyond NonNull (rest/openapi-schemas.ts): at least one of these fields
  const atLeastOneOf = (type.extensions as { atLeastOneOf?: string[] }).atLeastOneOf;
  if (atLeastOneOf && !atLeastOneOf.some((field) => out[field] != null)) {
    const rests = atLeastOneOf.map((field) => `${prefix}${[...names].find(([, f]) => f === field)?.[0] ?? toSnake(field)}`);
    fail(walk, rests[0]!, `${rests.join(" or ")} is required.`, "required");
  }
  return out;
}

/** An unknown name; the known ones are named once per object, in the first such message. Past the cap, only counted. */
function unknownField(walk: Walk, key: string, taken: string[], fromRoute: string[], what = "field", prefix = "") {
  if (walk.problems.full) return walk.problems.skip(1);
  const path = `${prefix}${clip(key)}`;
  const snake = key.length <= 64 ? toSnake(key) : key;
  const listed = walk.listed.has(prefix);
  const hint = fromRoute.includes(snake)
    ? ` It is taken from the path or headers, not the body.`
    : snake !== key && taken.includes(snake)
      ? ` Did you mean ${snake}? Field names are snake_case.`
      : taken.length && !listed
        ? ` Known ${what}s: ${taken.join(", ")}.`
        : "";
  if (hint.startsWith(" Known")) walk.listed.add(prefix);
  fail(walk, path, `${path} is not a known ${what}.${hint}`, "unknown_parameter");
}

/** One of the enum's spellings (`enumSpellings`, as the OpenAPI document declares them), as GraphQL names it. */
function enumValue(raw: unknown, type: GraphQLEnumType, path: string, walk: Walk) {
  const values = type.getValues().map((v) => v.name);
  const found = typeof raw === "string" ? values.find((v) => enumSpellings(v).includes(raw.trim())) : undefined;
  if (found) return found;
  // list the allowed values the way this caller writes them
  const lower = typeof raw === "string" && raw === raw.toLowerCase();
  return fail(walk, path, `${path} must be one of ${values.map((v) => (lower ? v.toLowerCase() : v)).join(", ")}.`);
}

const BUILT_IN: Record<string, (raw: unknown, loose: boolean) => unknown> = {
  [GraphQLString.name]: (raw) => (typeof raw === "string" ? raw : undefined),
  [GraphQLID.name]: (raw) => (typeof raw === "string" ? raw : Number.isInteger(raw) ? String(raw) : undefined),
  [GraphQLInt.name]: (raw, loose) => {
    const n = loose && typeof raw === "string" && /^-?\d+$/.test(raw) ? Number(raw) : raw;
    return Number.isInteger(n) && Math.abs(n as number) <= 2 ** 31 - 1 ? n : undefined;
  },
  [GraphQLFloat.name]: (raw, loose) => {
    const n = loose && typeof raw === "string" && raw.trim() !== "" ? Number(raw) : raw;
    return typeof n === "number" && Number.isFinite(n) ? n : undefined;
  },
  [GraphQLBoolean.name]: (raw, loose) => (typeof raw === "boolean" ? raw : loose && (raw === "true" || raw === "false") ? raw === "true" : undefined),
};
const KIND: Record<string, string> = { String: "a string", ID: "a string", Int: "a whole number", Float: "a number", Boolean: "true or false" };

function scalarValue(raw: unknown, type: GraphQLScalarType, path: string, walk: Walk) {
  const builtIn = BUILT_IN[type.name];
  if (builtIn) {
    const out = builtIn(raw, walk.loose);
    return out === undefined ? fail(walk, path, `${path} must be ${KIND[type.name]}.`) : out;
  }
  // a custom scalar judges its own values; from a form or query string, a number may come as text
  const candidates = walk.loose && typeof raw === "string" && /^-?\d+(\.\d+)?$/.test(raw) ? [raw, Number(raw)] : [raw];
  let message = "is not valid";
  for (const candidate of candidates) {
    try {
      type.parseValue(candidate);
      return candidate;
    } catch (error) {
      message = (error as Error).message;
    }
  }
  return fail(walk, path, `${path} ${message.replace(/\.?$/, ".")}`);
}

function fail(walk: Walk, field: string, message: string, code = "invalid"): undefined {
  walk.problems.add({ field, code, message });
  return undefined;
}

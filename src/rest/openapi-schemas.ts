/**
 * JSON Schema (2020-12, as OpenAPI 3.1 uses it) from the GraphQL types a route runs on: a request
 * body from the operation's input type under REST names, a response from the operation's own
 * selection set (aliases are the REST names), so the description cannot drift from what is served.
 */
import {
  getNamedType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  Kind,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLOutputType,
  type SelectionSetNode,
} from "graphql";
import { enumSpellings, toSnake } from "../lib/case.js";
import { MAX_INPUT_LIST_ITEMS } from "./rest-input.js";

export type JsonSchema = Record<string, unknown>;

const SCALARS: Record<string, JsonSchema> = {
  String: { type: "string" },
  ID: { type: "string" },
  Int: { type: "integer" },
  Float: { type: "number" },
  Boolean: { type: "boolean" },
  Date: { type: "string", format: "date" },
  DateTime: { type: "string", format: "date-time" },
  MinorUnits: { type: "integer", minimum: 0 },
  JSON: {},
  File: { type: "string", format: "binary" },
};

const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: "null" }] });

/** A request body or query value: REST names, unknown fields refused, NonNull fields required. */
export function inputSchema(type: GraphQLInputType, omit: ReadonlySet<string> = new Set(), aliases: Readonly<Record<string, string>> = {}): JsonSchema {
  if (isNonNullType(type)) return inputSchema(type.ofType, omit, aliases);
  if (isListType(type)) return { type: "array", items: inputSchema(type.ofType), maxItems: MAX_INPUT_LIST_ITEMS };
  if (isEnumType(type)) return { type: "string", enum: type.getValues().flatMap((v) => enumSpellings(v.name)) };
  if (isScalarType(type)) return SCALARS[type.name] ?? {};
  return objectInput(type as GraphQLInputObjectType, omit, aliases);
}

function objectInput(type: GraphQLInputObjectType, omit: ReadonlySet<string>, aliases: Readonly<Record<string, string>>): JsonSchema {
  const restName = Object.fromEntries(Object.entries(aliases).map(([rest, field]) => [field, rest]));
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const field of Object.values(type.getFields())) {
    if (omit.has(field.name) && !restName[field.name]) continue;
    const name = restName[field.name] ?? toSnake(field.name);
    const schema = inputSchema(field.type);
    properties[name] = { ...(isNonNullType(field.type) ? schema : nullable(schema)), ...(field.description ? { description: field.description } : {}) };
    if (isNonNullType(field.type) && field.defaultValue === undefined) required.push(name);
  }
  const object = { type: "object", properties, additionalProperties: false, ...(required.length ? { required } : {}) };
  // an input type may need at least one of several optional fields (extensions.atLeastOneOf); as allOf +
  // anyOf of whole objects, the form generated clients type as "this and (that or that)"
  const atLeastOneOf = (type.extensions as { atLeastOneOf?: string[] }).atLeastOneOf;
  if (!atLeastOneOf) return object;
  const branch = (name: string) => ({ type: "object", required: [name], properties: { [name]: present(properties[name]!) } });
  return { allOf: [object, { anyOf: atLeastOneOf.map((field) => branch(restName[field] ?? toSnake(field))) }] };
}

/** What a selection set answers: each selected field under its alias (the REST name), typed by the schema, null only where GraphQL allows it. */
export function outputSchema(type: GraphQLOutputType, selection?: SelectionSetNode): JsonSchema {
  if (isNonNullType(type)) return definite(type.ofType, selection);
  return nullable(definite(type, selection));
}

function definite(type: GraphQLOutputType, selection?: SelectionSetNode): JsonSchema {
  if (isListType(type)) return { type: "array", items: outputSchema(type.ofType, selection) };
  return namedOutput(type, selection);
}

function namedOutput(type: GraphQLOutputType, selection?: SelectionSetNode): JsonSchema {
  const named = getNamedType(type);
  if (isEnumType(named)) return { type: "string", enum: named.getValues().map((v) => v.name) };
  if (isScalarType(named)) return SCALARS[named.name] ?? {};
  if (!isObjectType(named) || !selection) return { type: "object" };
  const fields = named.getFields();
  const properties: Record<string, JsonSchema> = {};
  for (const node of selection.selections) {
    if (node.kind !== Kind.FIELD) continue;
    const key = node.alias?.value ?? node.name.value;
    properties[key] = node.name.value === "__typename" ? { type: "string" } : outputSchema(fields[node.name.value].type, node.selectionSet);
  }
  return { type: "object", properties, required: Object.keys(properties) };
}

/** Without the outer `null`: the top of a response body is always there. */
export const present = (schema: JsonSchema): JsonSchema => (schema.anyOf as JsonSchema[] | undefined)?.[0] ?? schema;

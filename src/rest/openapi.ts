/**
 * OpenAPI 3.1 built from the same compiled route table, GraphQL types and error table the shim runs
 * on: parameters and bodies from each route's input plan, responses from its operation's selection
 * set, errors from ERROR_CODES. Served at /openapi.json and rendered at /docs.
 */
import { isNonNullType, Kind, type GraphQLSchema, type OperationDefinitionNode } from "graphql";
import { ERROR_CODES, MAX_LISTED_PROBLEMS } from "../lib/errors.js";
import { inputSchema, outputSchema, present, type JsonSchema } from "./openapi-schemas.js";
import { PAGING_PARAMS } from "./rest-input.js";
import type { CompiledRoute } from "./routes.js";

/** The REST API's version, as /openapi.json and `GET /` report it. */
export const API_VERSION = "2.0.0";

const problem = { $ref: "#/components/schemas/Problem" };
const FILE_TYPES = ["application/pdf", "image/jpeg", "image/png"];

/** An event type's description and the JSON Schema of its envelope (the events domain's catalogue). */
export type EventCatalogue = Record<string, { description: string; schema: JsonSchema }>;

export function buildOpenApi(schema: GraphQLSchema, table: CompiledRoute[], events: EventCatalogue = {}) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of table) (paths[route.path] ??= {})[route.method.toLowerCase()] = operationOf(schema, route);
  return {
    openapi: "3.1.0",
    info: {
      title: "Onboarding Gateway REST API",
      version: API_VERSION,
      description: "Every route runs a GraphQL operation of /graphql (x-graphql-operation); fields are the GraphQL names in snake_case.",
    },
    paths,
    webhooks: Object.fromEntries(Object.entries(events).map(([type, event]) => [type, { post: webhookOf(type, event) }])),
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "Authorization: Bearer <API key>" },
        apiKey: { type: "apiKey", in: "header", name: "X-Api-Key" },
        basic: { type: "http", scheme: "basic", description: "API key as user name, empty password" },
      },
      schemas: { Problem: PROBLEM, Pagination: PAGINATION },
    },
  };
}

function operationOf(schema: GraphQLSchema, route: CompiledRoute) {
  const operation = route.operation.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
  const body = route.input.body;
  const status = String(route.status ?? 200);
  return {
    operationId: `${route.method.toLowerCase()}${route.path.replace(/\{(\w+)\}/g, "By_$1").replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? "").toUpperCase())}`,
    summary: route.summary,
    tags: [tagOf(route.path)],
    "x-graphql-operation": operation.name?.value,
    "x-scope": route.scope,
    security: [{ bearer: [] }, { apiKey: [] }, { basic: [] }],
    ...(route.successor
      ? { deprecated: true, description: `Deprecated: use ${route.successor}. Answers carry Deprecation, Sunset and Link (rel="successor-version").` }
      : {}),
    parameters: [...pathParameters(route), ...queryParameters(route), ...headerParameters(route)],
    ...(body
      ? {
          requestBody: {
            required: true,
            content: Object.fromEntries(["application/json", "application/x-www-form-urlencoded"].map((type) => [type, { schema: bodySchema(route) }])),
          },
        }
      : {}),
    responses: {
      [status]: {
        description: route.summary,
        ...(status === "204" ? {} : { content: responseContent(schema, route, operation) }),
        ...(conditional(route) ? { headers: { ETag: { schema: { type: "string" } } } } : {}),
      },
      ...(conditional(route) && route.method === "GET"
        ? {
            "304": { description: "Not modified: the ETag sent in If-None-Match is still current; no body", headers: { ETag: { schema: { type: "string" } } } },
          }
        : {}),
      ...Object.fromEntries(errorStatuses(route).map((code) => [code, problemResponse(Number(code))])),
    },
  };
}

/** A route whose answers carry an ETag: a GET answers 304 to a current If-None-Match. */
const conditional = (route: CompiledRoute) => !!(route.etagField || route.cacheControl);
const takesIfMatch = (route: CompiledRoute) => !!route.input.body?.fromRoute.has("ifMatch");

/**
 * The statuses a route can answer with a problem. Every route: the input (400), the key (401, 403),
 * what it names (404), Accept (406), limits (429), and the server (500, 503). A body adds its size
 * and type (413, 415) and a write what its rules refuse (409, 422) and a failed delivery (502);
 * If-Match adds 412; v1 answers 410 once turned off.
 */
function errorStatuses(route: CompiledRoute) {
  const statuses = ["400", "401", "403", "404", "406", "429", "500", "503"];
  if (route.method !== "GET") statuses.push("409", "422");
  if (route.input.body) statuses.push("413", "415");
  if (route.method === "POST") statuses.push("502");
  if (takesIfMatch(route)) statuses.push("412");
  if (route.successor) statuses.push("410");
  return statuses.sort();
}

/** A problem of one status: its `code` one of the codes of that status. */
function problemResponse(status: number) {
  const codes = Object.entries(ERROR_CODES)
    .filter(([, entry]) => entry.status === status)
    .map(([code]) => code);
  const headers =
    status === 429 || status === 503 ? { headers: { "Retry-After": { description: "Seconds to wait before retrying", schema: { type: "integer" } } } } : {};
  return {
    description: codes.map((code) => `${code}: ${ERROR_CODES[code as keyof typeof ERROR_CODES].title}`).join("; "),
    ...headers,
    content: { "application/problem+json": { schema: { allOf: [problem, { type: "object", properties: { code: { type: "string", enum: codes } } }] } } },
  };
}

/** The request body: a `user_id` the X-Auth-User-ID header may carry instead is not required in it. */
function bodySchema(route: CompiledRoute) {
  const body = route.input.body!;
  const schema = inputSchema(body.type, body.fromRoute, body.aliases);
  if (!body.takesUserId) return schema;
  const required = (schema.required as string[] | undefined)?.filter((name) => name !== "user_id");
  const properties = schema.properties as Record<string, JsonSchema>;
  return {
    ...schema,
    properties: { ...properties, user_id: { ...properties.user_id, description: "Required unless the X-Auth-User-ID header carries it" } },
    ...(required?.length ? { required } : { required: undefined }),
  };
}

function headerParameters(route: CompiledRoute) {
  const header = (name: string, description: string) => ({ name, in: "header", required: false, description, schema: { type: "string" } });
  return [
    ...(conditional(route) && route.method === "GET" ? [header("If-None-Match", "An ETag of an earlier answer: 304 without a body while it is current")] : []),
    ...(takesIfMatch(route) ? [header("If-Match", "The ETag of the version read: 412 PRECONDITION_FAILED if the object changed since")] : []),
    ...(route.input.body?.takesUserId ? [header("X-Auth-User-ID", "The user the call is about, instead of user_id in the body")] : []),
    ...(route.method === "POST"
      ? [header("Idempotency-Key", "Replays the first answer for 24 h to a retry from the same API key with the same key and body")]
      : []),
  ];
}

/** What the service posts to a client's endpoint for an event type: Standard Webhooks headers and the envelope. */
function webhookOf(type: string, { description, schema }: EventCatalogue[string]) {
  const header = (name: string, text: string) => ({ name, in: "header", required: true, description: text, schema: { type: "string" } });
  return {
    operationId: `webhook${type.replace(/(^|[._])(\w)/g, (_, _sep: string, c: string) => c.toUpperCase())}`,
    summary: type,
    description: `${description}. Signed per Standard Webhooks (standardwebhooks.com) with the endpoint's secret; the same envelope is listed by GET /v2/events.`,
    tags: ["Events"],
    parameters: [
      header("webhook-id", "The event's id: the same event delivered again carries the same id"),
      header("webhook-timestamp", "Seconds since the epoch when this attempt was signed"),
      header("webhook-signature", "v1,<base64 HMAC-SHA256>; several, space-separated, while a rotated secret is in its grace period"),
    ],
    requestBody: { required: true, content: { "application/json": { schema } } },
    responses: { "200": { description: "Any 2xx acknowledges the event; anything else, or no answer in time, is retried" } },
  };
}

/** Groups for the reader of /docs, by path: the domains a caller thinks in. */
const TAGS: [RegExp, string][] = [
  [/^\/v1\//, "Legacy v1"],
  [/^\/admin\//, "Operator"],
  [/^\/v2\/users\/authentications\//, "Documents"],
  [/^\/v2\/(users\/(trigger|verify)\/otp|sandbox\/)/, "OTP"],
  [/^\/v2\/(compliance\/|users\/verify$|users\/\{user_id\}\/checks)/, "Compliance and checks"],
  [/^\/v2\/users/, "Users"],
  [/remittances/, "Remittance lookups"],
];
const tagOf = (path: string) => TAGS.find(([pattern]) => pattern.test(path))?.[1] ?? "Other";

const pathParameters = (route: CompiledRoute) => route.paramNames.map((name) => ({ name, in: "path", required: true, schema: { type: "string" } }));

function queryParameters(route: CompiledRoute) {
  const typed = [...route.input.query].map(([name, type]) => {
    const schema = inputSchema(type);
    return { name, in: "query", required: isNonNullType(type), schema, ...(schema.type === "array" ? { style: "form", explode: false } : {}) };
  });
  const paging = route.list
    ? PAGING_PARAMS.map((name) => ({
        name,
        in: "query",
        required: false,
        schema: name === "page" ? { type: "integer", minimum: 1, default: 1 } : { type: "integer", minimum: 1, maximum: 100, default: 10 },
      }))
    : [];
  return [...typed, ...paging];
}

function responseContent(schema: GraphQLSchema, route: CompiledRoute, operation: OperationDefinitionNode) {
  if (route.binary) return Object.fromEntries(FILE_TYPES.map((type) => [type, { schema: { type: "string", format: "binary" } }]));
  const root = operation.operation === "query" ? schema.getQueryType()! : schema.getMutationType()!;
  const top = operation.selectionSet.selections.find((s) => s.kind === Kind.FIELD && (s.alias?.value ?? s.name.value) === route.field);
  if (!top || top.kind !== Kind.FIELD) return { "application/json": { schema: {} } };
  let body = present(outputSchema(root.getFields()[top.name.value].type, top.selectionSet));
  if (route.list) body = envelope(nodesOf(body));
  else if (route.etagField) body = withoutField(body, route.etagField);
  return { "application/json": { schema: body } };
}

/** The paging envelope (docs/api.md) around a connection's node schema. */
const envelope = (item: JsonSchema): JsonSchema => ({
  type: "object",
  required: ["pagination", "data"],
  properties: { pagination: { $ref: "#/components/schemas/Pagination" }, data: { type: "array", items: item } },
});

function nodesOf(connection: JsonSchema): JsonSchema {
  const edges = present((connection.properties as Record<string, JsonSchema>).edges);
  const edge = present(edges.items as JsonSchema);
  return present((edge.properties as Record<string, JsonSchema>).node);
}

function withoutField(object: JsonSchema, field: string): JsonSchema {
  const { [field]: _gone, ...properties } = object.properties as Record<string, JsonSchema>;
  return { ...object, properties, required: Object.keys(properties) };
}

const PROBLEM = {
  type: "object",
  required: ["type", "title", "status", "detail", "code", "request_id", "timestamp"],
  properties: {
    type: { type: "string" },
    title: { type: "string" },
    status: { type: "integer" },
    detail: { type: "string" },
    code: { type: "string", enum: Object.keys(ERROR_CODES) },
    request_id: { type: "string" },
    timestamp: { type: "string", format: "date-time" },
    currently_due: {
      type: "array",
      items: { type: "string" },
      description: "REQUIREMENTS_DUE: what the user still owes, as GET /v2/compliance/requirements names it",
    },
    attempts_remaining: { type: "integer", minimum: 0, description: "OTP_INVALID: how many more codes may be tried" },
    retry_after: { type: "integer", minimum: 1, description: "429 and 503 (when known): seconds to wait, as the Retry-After header" },
    error_id: { type: "string", description: "INTERNAL: quote it to support; the log holds the cause" },
    errors: {
      type: "array",
      maxItems: MAX_LISTED_PROBLEMS,
      description: `At most ${MAX_LISTED_PROBLEMS} problems; errors_omitted counts the rest`,
      items: {
        type: "object",
        required: ["field", "code", "message"],
        properties: { field: { type: "string" }, code: { type: "string" }, message: { type: "string" } },
      },
    },
    errors_omitted: { type: "integer", minimum: 1, description: "How many more problems were found than errors lists" },
  },
};

const PAGINATION = {
  type: "object",
  required: ["page", "records_per_page", "total_records", "total_pages", "links"],
  properties: {
    page: { type: "integer" },
    records_per_page: { type: "integer" },
    total_records: { type: "integer" },
    total_pages: { type: "integer" },
    links: { type: "object", required: ["self"], properties: { self: { type: "string" }, next: { type: "string" }, prev: { type: "string" } } },
  },
};

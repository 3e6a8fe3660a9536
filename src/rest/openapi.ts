/** OpenAPI 3.1 built from the same route table and error table the shim runs on. */
import { ERROR_CODES } from "../lib/errors.js";
import type { Route } from "./route.js";

/** The REST API's version, as /openapi.json and `GET /` report it. */
export const API_VERSION = "2.0.0";

export function buildOpenApi(routes: Route[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const pathParams = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: "path", required: true, schema: { type: "string" } }));
    const queryParams = [...(route.queryParams ?? []), ...(route.list ? ["page", "records_per_page"] : [])]
      .map((name) => ({ name, in: "query", required: false, schema: name === "page" || name === "records_per_page" ? { type: "integer", minimum: 1, ...(name === "records_per_page" ? { maximum: 100, default: 10 } : { default: 1 }) } : { type: "string" } }));
    const operationName = route.operation.definitions.find((d) => d.kind === "OperationDefinition")?.name?.value;
    (paths[route.path] ??= {})[route.method.toLowerCase()] = {
      operationId: operationName, summary: route.summary, "x-graphql-operation": operationName,
      security: [{ bearer: [route.scope] }, { basic: [route.scope] }],
      parameters: [...pathParams, ...queryParams],
      ...(route.method === "POST" || route.method === "PUT" ? { requestBody: { required: true, content: { "application/json": { schema: { type: "object" } } } } } : {}),
      responses: {
        [String(route.status ?? 200)]: { description: route.list ? "A page of results in the list envelope" : "The object" },
        default: { description: "An error", content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } } },
      },
    };
  }
  return {
    openapi: "3.1.0",
    info: { title: "Onboarding Gateway REST shim", version: API_VERSION, description: "Every route runs a GraphQL operation of /graphql." },
    paths,
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" }, basic: { type: "http", scheme: "basic", description: "API key as user name, empty password" } },
      schemas: {
        Problem: {
          type: "object", required: ["type", "title", "status", "detail", "code", "request_id", "timestamp"],
          properties: {
            type: { type: "string" }, title: { type: "string" }, status: { type: "integer" }, detail: { type: "string" },
            code: { type: "string", enum: Object.keys(ERROR_CODES) }, request_id: { type: "string" }, timestamp: { type: "string", format: "date-time" },
            errors: { type: "array", items: { type: "object", properties: { field: { type: "string" }, code: { type: "string" }, message: { type: "string" } } } },
          },
        },
      },
    },
  };
}

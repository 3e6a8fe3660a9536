/** THE route table: every domain's REST entries, compiled once; a duplicate fails at start. */
import { clientsRoutes } from "../domains/clients/clients.routes.js";
import { usersRoutes } from "../domains/users/users.routes.js";
import { remittanceRoutes } from "../domains/remittance/remittance.routes.js";
import type { GraphQLSchema } from "graphql";
import { DomainError } from "../lib/errors.js";
import { planInput, type InputPlan } from "./rest-input.js";
import { otpRoutes } from "../domains/otp/otp.routes.js";
import { complianceRoutes } from "../domains/compliance/compliance.routes.js";
import { checksRoutes } from "../domains/checks/checks.routes.js";
import { documentsRoutes } from "../domains/documents/documents.routes.js";
import { webhooksRoutes } from "../domains/webhooks/webhooks.routes.js";
import { eventsRoutes } from "../domains/events/events.routes.js";
import type { Method, Route } from "./route.js";
import { walletsRoutes } from "../domains/wallets/wallets.routes.js";
import { legacyRoutes } from "./legacy.routes.js";
import { reviewsRoutes } from "../domains/reviews/reviews.routes.js";
import { sandboxRoutes } from "../domains/sandbox/sandbox.routes.js";

export const routes: Route[] = [
  ...clientsRoutes,
  ...usersRoutes,
  ...remittanceRoutes,
  ...otpRoutes,
  ...complianceRoutes,
  ...checksRoutes,
  ...documentsRoutes,
  ...walletsRoutes,
  ...webhooksRoutes,
  ...eventsRoutes,
  ...reviewsRoutes,
  ...sandboxRoutes,
  ...legacyRoutes,
];

export type CompiledRoute = Route & { pattern: RegExp; paramNames: string[]; literalSegments: number; input: InputPlan };

function compile(route: Route, schema: GraphQLSchema): CompiledRoute {
  const paramNames: string[] = [];
  const source = route.path
    .replace(/\/$/, "")
    .split("/")
    .map((segment) => {
      const m = /^\{(\w+)\}$/.exec(segment);
      if (!m) return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      paramNames.push(m[1]);
      return "([^/]+)";
    })
    .join("/");
  return {
    ...route,
    pattern: new RegExp(`^${source}/?$`),
    paramNames,
    literalSegments: route.path.split("/").length - paramNames.length,
    input: planInput(schema, route),
  };
}

export function compileRoutes(schema: GraphQLSchema, list: Route[] = routes) {
  const compiled = list.map((route) => compile(route, schema));
  const seen = new Set<string>();
  for (const r of compiled) {
    if (!r.paramNames.length !== !r.lookup)
      throw new Error(`REST route ${r.method} ${r.path}: ${r.lookup ? "a lookup without a path parameter" : "names an object in its path without a lookup"}`);
    const key = `${r.method} ${r.path.replace(/\{\w+\}/g, "{}").replace(/\/$/, "")}`;
    if (seen.has(key)) throw new Error(`duplicate REST route ${key}`);
    seen.add(key);
  }
  return compiled;
}

export type Match = { route: CompiledRoute; params: Record<string, string> } | { allow: Method[] } | null;

/** The routes of the most literal template matching the path (one per method), or none. */
function mostLiteral(table: CompiledRoute[], pathname: string) {
  const candidates = table.filter((r) => r.pattern.test(pathname));
  const best = Math.max(...candidates.map((r) => r.literalSegments));
  return candidates.filter((r) => r.literalSegments === best);
}

/** The template of the route the path names, whatever the method: a bounded name for a path (metrics). */
export const templateOf = (table: CompiledRoute[], pathname: string): string | null => mostLiteral(table, pathname)[0]?.path ?? null;

/** The most literal template matching the path wins; its methods decide between a match and 405. */
export function matchRoute(table: CompiledRoute[], method: string, pathname: string): Match {
  const top = mostLiteral(table, pathname);
  if (!top.length) return null;
  const route = top.find((r) => r.method === method) ?? (method === "HEAD" ? top.find((r) => r.method === "GET") : undefined);
  if (!route) return { allow: [...new Set(top.map((r) => r.method))] };
  const values = route.pattern.exec(pathname)!.slice(1);
  return { route, params: Object.fromEntries(route.paramNames.map((n, i) => [n, decodePathParam(n, values[i])])) };
}

/** The one path decoder: broken percent-encoding is the caller's error, named by its parameter. */
function decodePathParam(name: string, raw: string) {
  try {
    return decodeURIComponent(raw);
  } catch {
    const message = `${name} is not valid percent-encoded UTF-8.`;
    throw new DomainError("VALIDATION_FAILED", message, [{ field: name, code: "malformed_text", message }]);
  }
}

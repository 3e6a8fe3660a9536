/** THE route table: every domain's REST entries, compiled once; a duplicate fails at start. */
import { clientsRoutes } from "../domains/clients/clients.routes.js";
import { usersRoutes } from "../domains/users/users.routes.js";
import { remittanceRoutes } from "../domains/remittance/remittance.routes.js";
import { documentsRoutes } from "../domains/documents/documents.routes.js";
import type { Method, Route } from "./route.js";

export const routes: Route[] = [...clientsRoutes, ...usersRoutes, ...remittanceRoutes, ...documentsRoutes];

export type CompiledRoute = Route & { pattern: RegExp; paramNames: string[]; literalSegments: number };

function compile(route: Route): CompiledRoute {
  const paramNames: string[] = [];
  const source = route.path.replace(/\/$/, "").split("/").map((segment) => {
    const m = /^\{(\w+)\}$/.exec(segment);
    if (!m) return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    paramNames.push(m[1]);
    return "([^/]+)";
  }).join("/");
  return { ...route, pattern: new RegExp(`^${source}/?$`), paramNames, literalSegments: route.path.split("/").length - paramNames.length };
}

export function compileRoutes(list: Route[] = routes) {
  const compiled = list.map(compile);
  const seen = new Set<string>();
  for (const r of compiled) {
    const key = `${r.method} ${r.path.replace(/\{\w+\}/g, "{}").replace(/\/$/, "")}`;
    if (seen.has(key)) throw new Error(`duplicate REST route ${key}`);
    seen.add(key);
  }
  return compiled;
}

export type Match = { route: CompiledRoute; params: Record<string, string> } | { allow: Method[] } | null;

/** The most literal template matching the path wins; its methods decide between a match and 405. */
export function matchRoute(table: CompiledRoute[], method: string, pathname: string): Match {
  const candidates = table.filter((r) => r.pattern.test(pathname));
  if (!candidates.length) return null;
  const best = Math.max(...candidates.map((r) => r.literalSegments));
  const top = candidates.filter((r) => r.literalSegments === best);
  const route = top.find((r) => r.method === method) ?? (method === "HEAD" ? top.find((r) => r.method === "GET") : undefined);
  if (!route) return { allow: [...new Set(top.map((r) => r.method))] };
  const values = route.pattern.exec(pathname)!.slice(1);
  return { route, params: Object.fromEntries(route.paramNames.map((n, i) => [n, decodeURIComponent(values[i])])) };
}

/**
 * The browsable REST reference at /docs: Swagger UI rendering /openapi.json, its assets served from
 * the installed `swagger-ui-dist` package (read once, on first use), never from a CDN: the machines
 * this runs on may have no internet. Public, like /openapi.json.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { createRequire } from "node:module";
import type { Plugin } from "graphql-yoga";
import { Response } from "../fetch-api.js";
import { pagePolicy } from "../security-headers.js";

const ASSETS: Record<string, string> = { "swagger-ui.css": "text/css; charset=utf-8", "swagger-ui-bundle.js": "text/javascript; charset=utf-8" };

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Onboarding Gateway REST reference</title>
<link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="docs"></div><script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script></body></html>`;
// a separate file, not inline, so a strict Content-Security-Policy can forbid inline scripts
const INIT = `window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#docs", deepLinking: true, docExpansion: "list", defaultModelsExpandDepth: 0 });`;

// Swagger UI: its scripts and stylesheet from here, inline styles, data: images; it fetches /openapi.json
const POLICY = pagePolicy("script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'");

export function useApiDocs(): Plugin {
  const dir = path.dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
  const cache = new Map<string, Promise<Buffer>>();
  const asset = (name: string) => {
    let found = cache.get(name);
    if (!found) cache.set(name, (found = readFile(path.join(dir, name))));
    return found;
  };
  const reply = (body: string | Buffer, type: string) =>
    new Response(typeof body === "string" ? body : new Uint8Array(body), {
      headers: { "content-type": type, "cache-control": "public, max-age=3600", "content-security-policy": POLICY },
    });
  return {
    async onRequest({ request, url, endResponse }) {
      if ((request.method !== "GET" && request.method !== "HEAD") || !url.pathname.startsWith("/docs")) return;
      if (url.pathname === "/docs" || url.pathname === "/docs/") return endResponse(reply(PAGE, "text/html; charset=utf-8"));
      if (url.pathname === "/docs/init.js") return endResponse(reply(INIT, "text/javascript; charset=utf-8"));
      const name = url.pathname.slice("/docs/".length);
      if (ASSETS[name]) endResponse(reply(await asset(name), ASSETS[name]));
    },
  };
}

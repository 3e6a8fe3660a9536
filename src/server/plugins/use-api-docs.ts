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
import { staticAnswer } from "../static-answer.js";

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
  const headers = (type: string) => ({ "content-type": type, "cache-control": "public, max-age=3600", "content-security-policy": POLICY });
  const page = staticAnswer(() => ({ body: PAGE, headers: headers("text/html; charset=utf-8") }));
  const answers = new Map([
    ["/docs", page],
    ["/docs/", page],
    ["/docs/init.js", staticAnswer(() => ({ body: INIT, headers: headers("text/javascript; charset=utf-8") }))],
    // the package's files, read on first use
    ...Object.entries(ASSETS).map(
      ([name, type]) => [`/docs/${name}`, staticAnswer(async () => ({ body: await readFile(path.join(dir, name)), headers: headers(type) }))] as const,
    ),
  ]);
  return {
    async onRequest({ request, url, endResponse }) {
      if (request.method !== "GET" && request.method !== "HEAD") return;
      // browsers ask every page's origin for an icon: nothing, rather than a 401 in the console of /docs and GraphiQL
      if (url.pathname === "/favicon.ico") return endResponse(new Response(null, { status: 204, headers: { "cache-control": "public, max-age=86400" } }));
      const answer = answers.get(url.pathname);
      if (answer) endResponse(await answer(request));
    },
  };
}

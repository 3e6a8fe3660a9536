/**
 * GraphiQL as yoga renders it from the installed package (no CDN: it works offline), rendered on
 * first use and answered compressed (server/static-answer.ts).
 */
import { createHash } from "node:crypto";
import type { Plugin } from "graphql-yoga";
import { pagePolicy } from "../security-headers.js";
import { staticAnswer } from "../static-answer.js";

export function useGraphiQLPage(endpoint: string): Plugin {
  const options = {
    title: "Onboarding Gateway",
    endpoint,
    // SSE, not graphql-ws: every operation, subscriptions too, is an HTTP request that carries the
    // headers pane (graphql-ws would send only a fixed connection_init), and a refused key comes back
    // as a readable 401 error instead of a socket that closes and silently reconnects
    subscriptionsProtocol: "SSE",
    // a placeholder to replace, never a real key: the page is public
    headers: JSON.stringify({ Authorization: "Bearer <your API key, e.g. from .data/bootstrap.json>" }, null, 2),
    defaultQuery:
      "# Put your API key in the Headers tab below, then run:\n{\n  users(first: 5) {\n    totalCount\n    edges { node { id email status requirements { currentlyDue } } }\n  }\n}\n",
  } as const;
  // the page's bundle is large, in memory too once loaded: imported on the first visit, not at start
  const page = staticAnswer(async () => {
    const { renderGraphiQL } = await import("@graphql-yoga/render-graphiql");
    const text = renderGraphiQL(options);
    return {
      body: text,
      headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-cache", "content-security-policy": graphiqlPolicy(text) },
    };
  });
  return {
    async onRequest({ request, url, endResponse }) {
      if (url.pathname !== endpoint || request.method !== "GET" || !(request.headers.get("accept") ?? "").includes("text/html")) return;
      endResponse(await page(request));
    },
  };
}

/**
 * GraphiQL's page runs its two inline scripts (allowed by their hashes, nothing else inline), Monaco's
 * editor workers from blob: URLs, inline styles and data: fonts; it talks to this origin only.
 */
function graphiqlPolicy(html: string) {
  const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => `'sha256-${createHash("sha256").update(m[1]).digest("base64")}'`);
  return pagePolicy(
    `script-src 'self' ${scripts.join(" ")}; worker-src 'self' blob:; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'`,
  );
}

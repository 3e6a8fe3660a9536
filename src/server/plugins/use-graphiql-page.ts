/**
 * GraphiQL as yoga renders it from the installed package (no CDN: it works offline), rendered and
 * compressed once per encoding on first use, off the event loop, and kept: the page is large, its
 * compression costs real CPU, and it never changes while the process runs. Not at start: most starts
 * (tests, production with GraphiQL off) never serve it.
 */
import { createHash } from "node:crypto";
import { promisify } from "node:util";
import zlib from "node:zlib";
import type { Plugin } from "graphql-yoga";
import { Response } from "../fetch-api.js";
import { pagePolicy } from "../security-headers.js";

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

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
  let html: Promise<Uint8Array<ArrayBuffer>> | null = null;
  let policy = "";
  const page = () =>
    (html ??= import("@graphql-yoga/render-graphiql").then(({ renderGraphiQL }) => {
      const text = renderGraphiQL(options);
      policy = graphiqlPolicy(text);
      return new Uint8Array(Buffer.from(text));
    }));
  const encoded = new Map<string, Promise<Uint8Array<ArrayBuffer>>>();
  const encode = (encoding: "br" | "gzip") => {
    let body = encoded.get(encoding);
    if (!body) {
      const compressed = page().then((source) =>
        encoding === "br"
          ? brotli(source, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: source.length } })
          : gzip(source, { level: 6 }),
      );
      body = compressed.then((b) => new Uint8Array(b));
      encoded.set(encoding, body);
    }
    return body;
  };
  return {
    async onRequest({ request, url, endResponse }) {
      if (url.pathname !== endpoint || request.method !== "GET" || !(request.headers.get("accept") ?? "").includes("text/html")) return;
      const encoding = preferredEncoding(request.headers.get("accept-encoding"));
      const source = await page();
      const headers: Record<string, string> = {
        "content-type": "text/html; charset=utf-8",
        vary: "accept-encoding",
        "cache-control": "no-cache",
        "content-security-policy": policy,
      };
      if (!encoding) return endResponse(new Response(source, { headers }));
      endResponse(new Response(await encode(encoding), { headers: { ...headers, "content-encoding": encoding } }));
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

/** br before gzip when both are accepted; `q=0` refuses. */
function preferredEncoding(header: string | null): "br" | "gzip" | null {
  const accepted = new Set(
    (header ?? "")
      .split(",")
      .map((part) => part.trim().toLowerCase())
      .filter((part) => !/;\s*q=0(\.0*)?$/.test(part))
      .map((part) => part.split(";")[0].trim()),
  );
  return accepted.has("br") ? "br" : accepted.has("gzip") || accepted.has("*") ? "gzip" : null;
}

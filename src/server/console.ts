/**
 * The compliance console at /console (docs/reviews.md, "The console"): the page and its bundle as
 * scripts/build-console.mjs left them in dist/console/ (at install and before every start), read
 * on the first visit and kept, answered compressed (static-answer.ts). Public like /docs: the files
 * hold no data, the analyst's reviewer key is given in the page and sent with each API call.
 * The page is revalidated on every visit (`no-cache`, its ETag the build's fingerprint); the assets'
 * names change with their content, so they are cached for good. No CDN: it works offline.
 */
import { readFile } from "node:fs/promises";
import type { Plugin } from "graphql-yoga";
import { fromRoot } from "../lib/paths.js";
import { Response } from "./fetch-api.js";
import { pagePolicy } from "./security-headers.js";
import { staticAnswer } from "./static-answer.js";

const PAGE_PATHS = new Set(["/console", "/console/"]);
const ASSET_PREFIX = "/console/assets/";
const TYPES: Record<string, string> = { mjs: "text/javascript; charset=utf-8", css: "text/css; charset=utf-8" };

/**
 * Its own scripts and stylesheet, nothing inline; it talks to this origin only: HTTP for queries and
 * mutations, graphql-ws for the subscription ('self' covers ws: and wss: to the same host, CSP Level 3).
 */
const POLICY = pagePolicy("script-src 'self'; style-src 'self'; img-src 'self'; font-src 'self'; connect-src 'self'");

type Answer = (request: Request) => Promise<Response>;
type Built = { page: Answer; assets: Map<string, Answer> };
type Manifest = { fingerprint: string; html: string; assets: string[] };

/** A file answered compressed, with its ETag; a request that names the ETag (If-None-Match) gets 304 and no body. */
function fileAnswer(body: Uint8Array, headers: Record<string, string>): Answer {
  const answer = staticAnswer(() => ({ body, headers }));
  const etag = headers.etag!;
  return async (request) => {
    const known = request.headers.get("if-none-match");
    if (known?.split(",").some((tag) => tag.trim() === etag))
      return new Response(null, { status: 304, headers: { etag, "cache-control": headers["cache-control"]! } });
    return answer(request);
  };
}

/** Every file of the build at once, so a rebuild under a running server cannot leave the page naming assets it no longer has. */
async function load(dir: string): Promise<Built> {
  const manifest = JSON.parse(await readFile(`${dir}/manifest.json`, "utf8")) as Manifest;
  const html = await readFile(`${dir}/${manifest.html}`);
  const pageHeaders = {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-cache",
    "content-security-policy": POLICY,
    etag: `"${manifest.fingerprint.slice(0, 32)}"`,
  };
  const assets = new Map<string, Answer>();
  for (const name of manifest.assets) {
    const body = await readFile(`${dir}/assets/${name}`);
    const headers = {
      "content-type": TYPES[name.slice(name.lastIndexOf(".") + 1)] ?? "application/octet-stream",
      "cache-control": "public, max-age=31536000, immutable",
      etag: `"${name}"`,
    };
    assets.set(name, fileAnswer(body, headers));
  }
  return { page: fileAnswer(html, pageHeaders), assets };
}

const notFound = () => new Response("Not found\n", { status: 404, headers: { "content-type": "text/plain; charset=utf-8" } });

export function useConsole(dir = fromRoot("dist", "console")): Plugin {
  let built: Promise<Built> | null = null;
  return {
    async onRequest({ request, url, endResponse }) {
      const { pathname } = url;
      if ((request.method !== "GET" && request.method !== "HEAD") || !(PAGE_PATHS.has(pathname) || pathname.startsWith(ASSET_PREFIX))) return;
      let files: Built;
      try {
        files = await (built ??= load(dir));
      } catch {
        built = null; // not built yet: asked again on the next visit
        return endResponse(
          new Response("The console is not built: run `node scripts/build-console.mjs` (npm install and npm start do).\n", {
            status: 503,
            headers: { "content-type": "text/plain; charset=utf-8" },
          }),
        );
      }
      const answer = PAGE_PATHS.has(pathname) ? files.page : files.assets.get(pathname.slice(ASSET_PREFIX.length));
      endResponse(answer ? await answer(request) : notFound());
    },
  };
}

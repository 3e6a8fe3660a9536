/**
 * The compliance console's files over a real socket (src/server/console.ts): the page revalidated
 * on every visit, the content-hashed assets cached for good, both compressed as the caller accepts,
 * no key needed, an unknown asset 404; the page's weight within its budget (the figure is printed);
 * and the build (scripts/build-console.mjs) does nothing when nothing changed.
 * In the browser: test/browser/console.test.ts.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { request } from "node:http";
import path from "node:path";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./helpers/app.js";

const root = path.resolve(import.meta.dirname, "..");
const BUILD = path.join(root, "scripts", "build-console.mjs");
const MANIFEST = path.join(root, "dist", "console", "manifest.json");
/** the issue's budget for a page of the queue, compressed */
const BUDGET = 300 * 1024;

type Raw = { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer };

/** A GET whose body comes as sent, still compressed (fetch would decode it). */
function get(port: number, pathname: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: pathname, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

const decode = (raw: Raw) =>
  raw.headers["content-encoding"] === "br"
    ? zlib.brotliDecompressSync(raw.body)
    : raw.headers["content-encoding"] === "gzip"
      ? zlib.gunzipSync(raw.body)
      : raw.body;

/** what the page loads: its stylesheet and its script */
const assetsOf = (html: string) => [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);

describe("the compliance console's files", () => {
  let t: TestApp;
  let port: number;
  let html: string;
  let assets: string[];

  beforeAll(async () => {
    execFileSync(process.execPath, [BUILD], { stdio: "inherit" });
    t = await startTestApp();
    port = await t.app.start(0, "127.0.0.1");
    html = (await get(port, "/console")).body.toString("utf8");
    assets = assetsOf(html);
  }, 60_000);
  afterAll(async () => {
    await t?.stop();
  });

  it("serves the page without a key: HTML, revalidated on every visit, under a policy that allows this origin only", async () => {
    const page = await get(port, "/console", { "accept-encoding": "br, gzip" });
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.headers["cache-control"]).toBe("no-cache");
    const policy = String(page.headers["content-security-policy"]);
    for (const directive of ["default-src 'self'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"])
      expect(policy).toContain(directive);
    expect(policy).not.toMatch(/unsafe-inline|unsafe-eval|https?:|\*/);
    expect(page.headers["x-content-type-options"]).toBe("nosniff");
    expect(decode(page).toString("utf8")).toContain('<div id="console">');
    // a page and its assets, all from here: nothing from a CDN
    expect(assets).toHaveLength(2);
    for (const asset of assets) expect(asset).toMatch(/^\/console\/assets\/main-[A-Z0-9]+\.(mjs|css)$/);
    expect((await get(port, "/console/")).status).toBe(200);
  });

  it("answers a visit that holds the page already with 304", async () => {
    const page = await get(port, "/console");
    const again = await get(port, "/console", { "if-none-match": String(page.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
  });

  it("serves each asset compressed as accepted (br, then gzip, else as it is), cached for good", async () => {
    for (const asset of assets) {
      const file = readFileSync(path.join(root, "dist", "console", "assets", path.basename(asset)));
      const br = await get(port, asset, { "accept-encoding": "gzip, deflate, br" });
      expect(br.status).toBe(200);
      expect(br.headers["content-type"]).toBe(asset.endsWith(".mjs") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8");
      expect(br.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
      expect(br.headers["content-encoding"]).toBe("br");
      expect(br.headers.vary).toBe("accept-encoding");
      expect(br.body.length).toBeLessThan(file.length / 2);
      expect(decode(br).equals(file)).toBe(true);
      const gzip = await get(port, asset, { "accept-encoding": "gzip" });
      expect(gzip.headers["content-encoding"]).toBe("gzip");
      expect(decode(gzip).equals(file)).toBe(true);
      const plain = await get(port, asset, { "accept-encoding": "identity" });
      expect(plain.headers["content-encoding"]).toBeUndefined();
      expect(plain.body.equals(file)).toBe(true);
      expect((await get(port, asset, { "if-none-match": String(br.headers.etag) })).status).toBe(304);
    }
  });

  it("answers 404 for an asset it does not have, and leaves other paths alone", async () => {
    for (const unknown of ["/console/assets/main-NOPE.mjs", "/console/assets/", "/console/assets/%2e%2e%2fmanifest.json", "/console/assets/index.html"])
      expect((await get(port, unknown)).status, unknown).toBe(404);
    // a path out of the assets is another path (/console/manifest.json): not the console's, so the API's (a key is needed)
    for (const other of ["/console/assets/../manifest.json", "/console/manifest.json", "/consoles"]) expect((await get(port, other)).status, other).toBe(401);
  });

  it("weighs less than 300 KB compressed, page and assets", async () => {
    const sizes = await Promise.all(
      ["/console", ...assets].map(async (p) => ({ path: p, bytes: (await get(port, p, { "accept-encoding": "br, gzip" })).body.length })),
    );
    const gzipped = await Promise.all(["/console", ...assets].map(async (p) => (await get(port, p, { "accept-encoding": "gzip" })).body.length));
    const total = sizes.reduce((sum, s) => sum + s.bytes, 0);
    const totalGzip = gzipped.reduce((sum, n) => sum + n, 0);
    console.info(
      `console page weight: ${(total / 1024).toFixed(1)} KB brotli, ${(totalGzip / 1024).toFixed(1)} KB gzip (${sizes.map((s) => `${s.path} ${s.bytes} B`).join(", ")})`,
    );
    expect(total).toBeLessThan(BUDGET);
    expect(totalGzip).toBeLessThan(BUDGET);
  });

  it("builds nothing again when nothing changed", () => {
    const before = statSync(MANIFEST).mtimeMs;
    execFileSync(process.execPath, [BUILD]);
    expect(statSync(MANIFEST).mtimeMs).toBe(before);
  });
});

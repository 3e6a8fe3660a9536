#!/usr/bin/env node
/**
 * Bundles the compliance console (console/, Preact + urql + graphql-ws) with esbuild into
 * dist/console/: `index.html` and `assets/<name>-<hash>.{mjs,css}`, the names changing with the
 * content so the assets may be cached for good (src/server/console.ts serves them). Run by
 * `postinstall` and `prestart`; the tests run it too. Nothing changed (console/'s files, the
 * bundled packages' versions, this script): it reads a few files, compares a fingerprint and
 * stops, in a few ms.
 * Plain JS, like scripts/build.mjs: it runs before anything is compiled.
 */
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const SOURCE = path.join(root, "console");
const OUT = path.join(root, "dist", "console");
const ASSETS = path.join(OUT, "assets");
const MANIFEST = path.join(OUT, "manifest.json");
/** what is bundled from node_modules: a new version of one is a new bundle */
const BUNDLED = ["preact", "@urql/preact", "@urql/core", "wonka", "graphql-ws", "@0no-co/graphql.web", "esbuild"];

/** every file under `dir`, sorted (the fingerprint must not depend on the directory's order) */
async function walk(dir) {
  const entries = await readdir(dir, { withFileTypes: true });
  const found = await Promise.all(entries.map((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)])));
  return found.flat().sort();
}

const versionOf = (name) =>
  readFile(path.join(root, "node_modules", name, "package.json"), "utf8").then(
    (text) => JSON.parse(text).version,
    () => "absent",
  );

async function fingerprint() {
  const hash = createHash("sha256");
  hash.update(await readFile(import.meta.filename));
  for (const file of await walk(SOURCE))
    hash
      .update(path.relative(root, file))
      .update("\0")
      .update(await readFile(file));
  for (const name of BUNDLED) hash.update(`${name}@${await versionOf(name)}\0`);
  return hash.digest("hex");
}

const page = ({ script, style }) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Compliance console · Onboarding Gateway</title>
<link rel="stylesheet" href="/console/assets/${style}">
<script type="module" src="/console/assets/${script}"></script>
</head>
<body>
<div id="console"><noscript>The compliance console needs JavaScript.</noscript></div>
</body>
</html>
`;

const started = performance.now();
const wanted = await fingerprint();
const built = await readFile(MANIFEST, "utf8").then(JSON.parse, () => null);
const present = built ? await readdir(ASSETS).catch(() => []) : [];
if (built?.fingerprint === wanted && built.assets.every((name) => present.includes(name))) process.exit(0);

const { build } = await import("esbuild");
const result = await build({
  entryPoints: [path.join(SOURCE, "main.tsx")],
  tsconfig: path.join(SOURCE, "tsconfig.json"),
  bundle: true,
  minify: true,
  format: "esm",
  platform: "browser",
  target: ["es2022"],
  jsx: "automatic",
  jsxImportSource: "preact",
  // urql's development warnings go
  define: { "process.env.NODE_ENV": '"production"' },
  legalComments: "none",
  entryNames: "[name]-[hash]",
  // .mjs, not .js: scripts/build.mjs deletes every .js under dist/ that no source of src/ compiles to
  outExtension: { ".js": ".mjs" },
  outdir: ASSETS,
  metafile: true,
  write: false,
  logLevel: "warning",
});
const files = result.outputFiles.map((file) => ({ name: path.basename(file.path), contents: file.contents }));
const script = files.find((f) => f.name.endsWith(".mjs"))?.name;
const style = files.find((f) => f.name.endsWith(".css"))?.name;
if (!script || !style) throw new Error(`build-console: expected one script and one stylesheet, got ${files.map((f) => f.name).join(", ")}`);

await rm(OUT, { recursive: true, force: true });
await mkdir(ASSETS, { recursive: true });
await Promise.all(files.map((f) => writeFile(path.join(ASSETS, f.name), f.contents)));
await writeFile(path.join(OUT, "index.html"), page({ script, style }));
// last: a build cut short leaves no manifest, and the next run builds again
await writeFile(MANIFEST, `${JSON.stringify({ fingerprint: wanted, html: "index.html", assets: files.map((f) => f.name) }, null, 2)}\n`);
const bytes = files.reduce((sum, f) => sum + f.contents.length, 0);
console.error(`build-console: ${files.map((f) => f.name).join(", ")} (${Math.round(bytes / 1024)} KB) in ${Math.round(performance.now() - started)} ms`);

#!/usr/bin/env node
/**
 * Compiles src/ and generated/ to dist/ with TypeScript's own emitter, file by file and only what
 * changed since the last build (`npm start` runs it first; a build with nothing to do takes a few
 * ms). The server then runs plain JS: the tsx loader would add its memory to every process
 * (docs/performance.md, "Figures behind the code").
 * Types are checked by `npm test` (`tsc --noEmit`), not here: every file transpiles on its own
 * (`isolatedModules`), so a stale or half-typed tree still starts and is reported by the tests.
 * Plain JS on purpose: it must run before anything is compiled.
 */
import { mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const OUT = path.join(root, "dist");
const SOURCES = ["src", "generated"];
const isSource = (name) => name.endsWith(".ts") && !name.endsWith(".test.ts") && !name.endsWith(".d.ts");

/** every file under `dir` whose name passes `keep` */
async function walk(dir, keep) {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const found = await Promise.all(entries.map((e) => (e.isDirectory() ? walk(path.join(dir, e.name), keep) : keep(e.name) ? [path.join(dir, e.name)] : [])));
  return found.flat();
}

const mtime = (file) =>
  stat(file).then(
    (s) => s.mtimeMs,
    () => -1,
  );
const outputOf = (file) => path.join(OUT, path.relative(root, file)).replace(/\.ts$/, ".js");

const started = performance.now();
const sources = (await Promise.all(SOURCES.map((d) => walk(path.join(root, d), isSource)))).flat();
const stale = [];
for (const file of sources) if ((await mtime(file)) > (await mtime(outputOf(file)))) stale.push(file);

// outputs whose source is gone would still be importable: remove them
const wanted = new Set(sources.map(outputOf));
const orphans = (await walk(OUT, (name) => name.endsWith(".js"))).filter((file) => !wanted.has(file));
await Promise.all(orphans.map((file) => rm(file)));

if (stale.length) {
  const { default: ts } = await import("typescript");
  const compilerOptions = {
    target: ts.ScriptTarget.ES2024,
    module: ts.ModuleKind.ESNext,
    esModuleInterop: true,
    // generated/ (Prisma) imports with `.ts`; Node wants the `.js` it becomes
    rewriteRelativeImportExtensions: true,
    isolatedModules: true,
    sourceMap: false,
  };
  for (const file of stale) {
    const { outputText } = ts.transpileModule(await readFile(file, "utf8"), { fileName: file, compilerOptions });
    await mkdir(path.dirname(outputOf(file)), { recursive: true });
    await writeFile(outputOf(file), outputText);
  }
  console.error(`build: compiled ${stale.length} of ${sources.length} files to dist/ in ${Math.round(performance.now() - started)} ms`);
}

#!/usr/bin/env node
/**
 * Edits to @prisma/client's runtime (runtime/client.js, the file Node loads), applied at install.
 * That file is minified into lines of 10–100 KB, so a patch-package diff of it could be neither read
 * nor reviewed: each edit here is an exact replacement of a short text, and the install stops unless
 * the file is byte for byte the pinned version's published one (SHA-256 `published`) or already
 * edited (`edited`). Any other version fails here, loudly: an upgrade of Prisma must re-derive and
 * re-measure these edits (docs/performance.md) and record the new checksums.
 *
 * What each edit is for, measured and explained for Prisma's maintainers: docs/upstream/prisma-client.md.
 */
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

export const PRISMA_VERSION = "7.10.0";
export const CHECKSUMS = {
  published: "c444040cf5d0a8bb0edde2d482e2865360671d1609349ce626506ae198bcee29",
  edited: "89271c622ef2ee8dab0925cb478e48fd3527836faf46a9f96bd42832a069d78f",
};

export const EDITS = [
  // a query's promise keeps its query spec as a data property: a getter is an AccessorPair in old space,
  // which kept every query's closure (and its memoised result) alive until the next mark-compact
  { from: "return{get spec(){return n},then(s,a)", to: "return{spec:n,then(s,a)" },
  // a composite client (each interactive transaction's `tx`) no longer writes a fresh inspect function
  // through its Proxy onto the long-lived base client
  { from: "Object.prototype});return i[ms]=function(){let o={...this};return delete o[ms],o},i}", to: "Object.prototype});return i}" },
  // the query interpreter's `let` scopes are copies of their parent, not objects with it as prototype:
  // a prototype gets maps of its own in old space that point back at it, keeping each query's rows
  { from: 'case"let":{let n=Object.create(r.scope);', to: 'case"let":{let n={...r.scope};' },
  { from: 'case"let":{let i=Object.create(r);', to: 'case"let":{let i={...r};' },
  // a relation's parents by join key, and the batch loader's open batches (one key per transaction,
  // added then deleted): dictionaries from the start
  { from: "a={},u=Array.isArray(e)?e:[e];for(let P of u)", to: "a=Object.create(null),u=Array.isArray(e)?e:[e];for(let P of u)" },
  { from: "this.batches={}}batches;", to: "this.batches=Object.create(null)}batches;" },
  // the query plan cache (an LRU of up to 1,000 plans) moved every hit to the end of its Map; order only
  // decides eviction, so a hit moves its plan only once the cache is half full
  ...[
    ["getSingle", "e"],
    ["getBatch", "t"],
  ].map(([method, map]) => ({
    from: `${method}(t){let r=this.#${map}.get(t);return r&&(this.#${map}.delete(t),this.#${map}.set(t,r)),r}`,
    to: `${method}(t){let r=this.#${map}.get(t);return r&&this.#${map}.size>=this.#r/2&&(this.#${map}.delete(t),this.#${map}.set(t,r)),r}`,
  })),
  // the runtime's bundled copy of @prisma/debug keeps its history of debug calls only while debugging
  // (patches/@prisma+debug+*.patch does the same to the package; docs/upstream/prisma-debug.md)
  {
    from: "if(n.length!==0&&Lt.push([o,...n]),Lt.length>Mu&&Lt.shift(),Vt.enabled(o)||i)",
    to: "if(n.length!==0&&(i||Vt.enabled(o))&&Lt.push([o,...n]),Lt.length>Mu&&Lt.shift(),Vt.enabled(o)||i)",
  },
];

const sha256 = (text) => createHash("sha256").update(text).digest("hex");

/** the runtime file Node loads (`exports["./runtime/client"].node`) */
export const runtimeFile = () => path.join(path.dirname(createRequire(import.meta.url).resolve("@prisma/client/package.json")), "runtime", "client.js");

/** Applies the edits to the published text; throws unless the result is exactly the recorded edited file. */
export function edit(text) {
  let edited = text;
  for (const { from, to } of EDITS) {
    if (edited.split(from).length !== 2) throw new Error(`prisma-runtime: "${from.slice(0, 40)}…" does not occur exactly once`);
    edited = edited.replace(from, to);
  }
  return edited;
}

export function applyPrismaRuntimeEdits(file = runtimeFile()) {
  const text = readFileSync(file, "utf8");
  const sum = sha256(text);
  if (sum === CHECKSUMS.edited) return "already edited";
  if (sum !== CHECKSUMS.published)
    throw new Error(
      `prisma-runtime: ${file} is not @prisma/client ${PRISMA_VERSION}'s published runtime (sha256 ${sum}); re-derive the edits for this version (docs/performance.md)`,
    );
  const edited = edit(text);
  if (sha256(edited) !== CHECKSUMS.edited)
    throw new Error(`prisma-runtime: the edited runtime's sha256 is ${sha256(edited)}, not the recorded ${CHECKSUMS.edited}`);
  writeFileSync(file, edited);
  return "edited";
}

/** The published runtime back (bench/adaptations.ts measures the server without the edits). */
export function revertPrismaRuntimeEdits(file = runtimeFile()) {
  let text = readFileSync(file, "utf8");
  if (sha256(text) !== CHECKSUMS.edited) throw new Error(`prisma-runtime: ${file} is not the edited runtime`);
  for (const { from, to } of [...EDITS].reverse()) text = text.replace(to, from);
  if (sha256(text) !== CHECKSUMS.published) throw new Error("prisma-runtime: the reverted runtime is not the published one");
  writeFileSync(file, text);
}

if (process.argv[1] === import.meta.filename) {
  try {
    applyPrismaRuntimeEdits();
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}

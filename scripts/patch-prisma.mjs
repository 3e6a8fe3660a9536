/**
 * Edits to Prisma's client runtime (@prisma/client 7.10, runtime/client.js, which Node loads, and client.mjs), applied at
 * install (postinstall). Each made every query's result outlive minor GCs until the next
 * mark-compact, so the server's old space filled with dead results and mark-compacts came every
 * 1–3 s under load (issue #17, bench/RESULTS.md "eighth session"; bench/db-promotion.ts measures it):
 *
 * 1. Every query's PrismaPromise is an object literal with a getter, `get spec(){return n}`. V8 keeps
 *    a getter in an AccessorPair allocated in old space, so each promise's getter closure and its
 *    context (which memoises the query's result promise) stay reachable from old space until a
 *    mark-compact. As a data property (`spec:n`) the value and behaviour are the same and nothing is
 *    allocated old. A raw read loop: 1,880 → 75 KiB promoted per scavenge.
 * 2. Each composite client (every interactive transaction's `tx`) set a fresh `util.inspect.custom`
 *    function through its Proxy, which writes it onto the long-lived base client. Dropped: `tx` then
 *    prints as its target does. An empty interactive transaction loop: 1,471 → 365 KiB.
 * 3. The query interpreter made each `let` scope with `Object.create(parentScope)`. An object used
 *    as a prototype gets maps of its own, in old space, that point back at it: every query's
 *    placeholder values and the rows bound in its scopes (a relation's parents) stayed reachable
 *    from old space. A scope is now a copy of its parent (`{...parent}`): lookups are own properties
 *    instead of inherited ones, and a scope is filled only before its children are made, so they
 *    see the same names. users.findMany of 100 with two relations: 1,952 → 186 KiB.
 *
 * Idempotent: an edit is in when its `to` text is there and its `from` is not (each `to` occurs once
 * in the runtime, src/db/prisma-runtime.test.ts checks it). A Prisma version whose runtime has neither the original nor the edited text only gets
 * a warning (the install must not fail on it); src/db/prisma-runtime.test.ts then fails, so an upgrade
 * cannot silently lose the edits.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

export const EDITS = [
  { name: "PrismaPromise.spec as a data property", from: "return{get spec(){return n},then(s,a)", to: "return{spec:n,then(s,a)" },
  // with the Proxy handler's end before it (`return i}` alone occurs elsewhere too, so it could not say
  // the edit is in); the inspect symbol's minified name differs between client.js (`ms`) and .mjs (`ns`)
  {
    name: "no inspect function written through each composite client",
    from: /Object\.prototype\}\);return i\[(\w+)\]=function\(\)\{let o=\{\.\.\.this\};return delete o\[\1\],o\},i\}/,
    example: "Object.prototype});return i[ms]=function(){let o={...this};return delete o[ms],o},i}",
    to: "Object.prototype});return i}",
  },
  { name: "the interpreter's let scope a copy, not a prototype", from: 'case"let":{let n=Object.create(r.scope);', to: 'case"let":{let n={...r.scope};' },
  { name: "the synchronous interpreter's let scope a copy, not a prototype", from: 'case"let":{let i=Object.create(r);', to: 'case"let":{let i={...r};' },
];

/** How often `pattern` (text or a regular expression) occurs in `text`. */
export const occurrences = (text, pattern) => (typeof pattern === "string" ? text.split(pattern).length - 1 : (text.match(new RegExp(pattern.source, "g")) ?? []).length);

const runtimeDir = () => path.join(path.dirname(createRequire(import.meta.url).resolve("@prisma/client/package.json")), "runtime");

export function patchPrismaRuntime(dir = runtimeDir()) {
  const missing = [];
  for (const file of ["client.js", "client.mjs"].map((f) => path.join(dir, f)).filter(existsSync)) {
    const original = readFileSync(file, "utf8");
    let text = original;
    for (const edit of EDITS) {
      if (text.includes(edit.to) && !occurrences(text, edit.from)) continue;
      if (occurrences(text, edit.from) !== 1) { missing.push(`${path.basename(file)}: ${edit.name}`); continue; }
      text = text.replace(edit.from, edit.to);
    }
    if (text !== original) writeFileSync(file, text);
  }
  return missing;
}

if (process.argv[1] === import.meta.filename) {
  const missing = patchPrismaRuntime();
  if (missing.length) console.warn(`scripts/patch-prisma.mjs: not found in this Prisma runtime, left as it is: ${missing.join("; ")}`);
}

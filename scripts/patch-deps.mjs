/**
 * Edits to seven dependencies, applied at install (postinstall), each measured under the bench's load
 * (issue #17, bench/RESULTS.md). Why not patch-package: Prisma's runtime is one minified 100 KB line,
 * so its diff would be the whole file; exact replacements say what they change.
 *
 * Several are one edit (SPREAD): V8 11 (Node 20) gives every object made by a literal that opens with
 * a spread of a non-empty object and then adds properties (`{ ...a, b: 1 }`, `{ ...a, ...b }`, or
 * `{ ...a }` assigned to afterwards) a hidden class of its own: a new map in old space each time, its
 * descriptors promoted, and every property access that sees such objects megamorphic. Opening the
 * literal with an empty spread (`{ ...{}, ...a, b: 1 }`) keeps the usual shared classes and means the
 * same. The app's own code follows the rule (test/hidden-classes.test.ts); the edits below bring it to
 * the dependencies' literals that are made per request, found with `node --log-maps` under the bench's
 * load (bench/RESULTS.md, tenth session).
 *
 * Prisma's client runtime (@prisma/client 7.10, runtime/client.js, which Node loads, and client.mjs). Each made every query's result outlive minor GCs until the next
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
 * in its file, test/dependency-edits.test.ts checks it). A version whose runtime has neither the original nor the edited text only gets
 * a warning (the install must not fail on it); test/dependency-edits.test.ts then fails, so an upgrade
 * cannot silently lose the edits.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

export const PRISMA_EDITS = [
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
  // 4. SPREAD (above): literals made per query, per argument of a query, per parameter of a statement
  ...[
    "{...this.params,modelName:n", "{...this.params,argumentPath:", "e._request({...T,...a", "S={...n,...T", "i={...r,generators:n",
    "this.interpretNode(i.expr,{...r,scope:n})", "this.interpretNode(t.args.expr,{...r,scope:n})", "parameterizedQuery:{...e,query:",
    "n.push({...o,query:", 'emit("query",{...n,params:', "r({...t,queryable:o,transactionManager:", "o.startTransaction({...s,isolationLevel:",
    "return{...t,timeout:t.timeout", "yield{...i,value:t[n],argType:r?.[n]}", "yield{...i,value:Array.isArray(o)?o:[o],argType:r?.[n]}",
    "yield{...i,value:o,argType:r?.[n]}", "return{...await this.#r.startTransaction(t),payload:void 0}",
  ].map((from) => ({ name: `one hidden class for ${from}`, from, to: from.replace("{...", "{...{},...") })),
  // 5. a relation's parents by join key, in an object made a dictionary from the start
  { name: "parents by join key in a dictionary", from: "a={},u=Array.isArray(e)?e:[e];for(let P of u)", to: "a=Object.create(null),u=Array.isArray(e)?e:[e];for(let P of u)" },
  // 6. the batch loader's table of open batches, one key per transaction (added, then deleted): a dictionary
  { name: "open batches in a dictionary", from: "this.batches={}}batches;", to: "this.batches=Object.create(null)}batches;" },
  // 7. the query plan cache (an LRU of up to 1,000 plans) moved every hit to the end of its Map (delete,
  //    set with the statement's fresh key text): a query with an \`in\` list through it promoted 564 KiB per
  //    scavenge in bench/db-promotion.ts, 26 without the move. Order only decides what is evicted, so a
  //    hit moves its plan only once the cache is half full.
  ...[["getSingle", "e"], ["getBatch", "t"]].map(([method, map]) => ({
    name: `the plan cache's ${method} reorders only a cache half full`,
    from: `${method}(t){let r=this.#${map}.get(t);return r&&(this.#${map}.delete(t),this.#${map}.set(t,r)),r}`,
    to: `${method}(t){let r=this.#${map}.get(t);return r&&this.#${map}.size>=this.#r/2&&(this.#${map}.delete(t),this.#${map}.set(t,r)),r}`,
  })),
];

/**
 * @pothos/plugin-prisma 4 (lib/ and esm/util/adapter.js): `toQuery` builds each relation's query as
 * `{ ...node.args, select }` / `{ ...node.args, include }`, per relation per request (see
 * SPREAD_NOTE below).
 */
export const POTHOS_PRISMA_EDITS = [
  { key: "select", indent: "                " }, { key: "include", indent: "            " },
].map(({ key, indent }) => ({
  name: `one hidden class for a relation's ${key}`,
  from: `{\n${indent}...node.args,\n${indent}${key}: nested`,
  to: `{\n${indent}...{},\n${indent}...node.args,\n${indent}${key}: nested`,
}));

/**
 * pg-boss 10.4 (src/attorney.js): `checkSendArgs`, on every job sent, copies the caller's options
 * with `{ ...options }` and then adds the defaults to the copy (see SPREAD_NOTE below).
 */
export const PG_BOSS_EDITS = [{
  name: "one hidden class for a job's options",
  from: "'options should be an object')\n\n  options = { ...options }",
  to: "'options should be an object')\n\n  options = { ...{}, ...options }",
}];

/**
 * @pothos/selection-mapper 0.1.0 (lib/ and esm/loader-map.js): `responsePath` memoised each graphql
 * response-path link's key in one module-wide WeakMap. Every field of every row wrote an entry into
 * that long-lived table, so each scavenge walked a growing ephemeron table and the table itself was
 * rebuilt in old space. The key now lives on the link (a symbol property; a link is a plain object
 * made once per field per row and never changed), and goes with it. Users page at half rate (bench
 * list row): CPU 1,878–2,049 → 1,705–1,736 µs a page, scavenge time 294–346 → 175–197 ms in 8 s.
 */
export const SELECTION_MAPPER_EDITS = [
  { name: "responsePath's memo a symbol", from: "const pathKeys = new WeakMap();", to: 'const PATH_KEY = Symbol("responsePath");' },
  { name: "responsePath reads the link's own key", from: "let key = pathKeys.get(path);", to: "let key = path[PATH_KEY];" },
  { name: "responsePath writes the key onto the link", from: "pathKeys.set(path, key);", to: "if (Object.isExtensible(path)) path[PATH_KEY] = key;" },
];

/**
 * @pothos/core 4.15 (lib/ and esm/utils/context-cache.js): every per-request cache (each plugin's
 * request data, the prisma plugin's loaders, scope-auth's, the loader map) kept its entry in a
 * module-wide WeakMap keyed by the context's cache key, so each request wrote several entries into
 * long-lived ephemeron tables that every scavenge had to walk. A context made by `initContextCache`
 * (all of ours: src/context.ts) now carries the entries on its key object, under a symbol per
 * cache, and they go with it; any other context still uses the WeakMap. GraphQL `user(id)` at half
 * rate: scavenge time 177–195 → 98–111 ms in 8 s.
 */
export const CONTEXT_CACHE_EDITS = [
  {
    name: "a context cache's entry on the context's key object",
    from: `    const getOrCreate = (context, ...args)=>{
        const cacheKey = context[contextCacheSymbol] || context;`,
    to: `    const own = Symbol("Pothos.contextCacheEntry");
    const getOrCreate = (context, ...args)=>{
        const key = context[contextCacheSymbol];
        if (key && Object.isExtensible(key)) {
            if (own in key) return key[own];
            return key[own] = create(context, ...args);
        }
        const cacheKey = key || context;`,
  },
  {
    name: "a context cache's delete on the context's key object",
    from: `    getOrCreate.delete = (context)=>{
        const cacheKey = context[contextCacheSymbol] || context;
        cache.delete(cacheKey);`,
    to: `    getOrCreate.delete = (context)=>{
        const key = context[contextCacheSymbol];
        if (key && Object.isExtensible(key)) delete key[own];
        else cache.delete(key || context);`,
  },
];

/**
 * graphql 16.15, execution/execute.js and .mjs: `executeFields` made each object of a result (every
 * row) a null-prototype object, which V8 keeps as a dictionary, slow to fill and to serialise. It is
 * a plain object now, unless a response name is `__proto__` (which would set a plain object's
 * prototype). Users page at half rate: CPU 1,635–1,743 → 1,513–1,580 µs a page, full-speed rate up
 * 10–30 %.
 */
export const GRAPHQL_EXECUTE_EDITS = [{
  name: "a plain object for each object's fields",
  from: "function executeFields(exeContext, parentType, sourceValue, path, fields) {\n  const results = Object.create(null);",
  to: "function executeFields(exeContext, parentType, sourceValue, path, fields) {\n  const results = fields.has('__proto__') ? Object.create(null) : {}; // scripts/patch-deps.mjs",
}];
/**
 * graphql 16.15, execution/values.js and .mjs: `getArgumentValues`, which graphql-js calls for every
 * field of every row, made two null-prototype objects even for a field that takes no arguments: a
 * fifth of everything a users page allocated. With no argument defined it now returns the empty
 * result at once (what it returned anyway: it only ever reads the arguments the field defines).
 * Users page at half rate: ~6 % more pages between scavenges, CPU 2,015–2,123 → 1,951–1,967 µs a page.
 */
export const GRAPHQL_VALUES_EDITS = [{
  name: "no argument map for a field without arguments",
  from: "graphql-js/issues/2203\n\n  /* c8 ignore next */",
  to: "graphql-js/issues/2203\n  if (def.args.length === 0) return coercedValues; // scripts/patch-deps.mjs\n\n  /* c8 ignore next */",
}];

/**
 * @prisma/debug 7.10 (dist/index.js and .mjs), and its copy bundled in Prisma's runtime: every debug
 * call, enabled or not, pushed its arguments into a module-wide history of the last 100 calls (kept
 * for bug reports). adapter-pg logs each statement with its arguments, the runtime each request and
 * plan, so each query's arguments (and what they hold) stayed reachable from that old-space array
 * for the next hundred calls, past two scavenges: `bench/db-promotion.ts` prisma-relation 157–174 →
 * 7 KiB promoted per scavenge, the users page at 200/s 345 → 18. The history is kept now only while
 * that namespace is being debugged (DEBUG=prisma:…), when the bug reports that read it are wanted.
 */
export const PRISMA_DEBUG_EDITS = [{
  name: "debug history only while debugging",
  from: "    if (args.length !== 0) {\n      argsHistory.push([namespace2, ...args]);",
  to: "    if (args.length !== 0 && (enabled || topProps.enabled(namespace2))) { // scripts/patch-deps.mjs\n      argsHistory.push([namespace2, ...args]);",
}];
/** the same in the runtime's bundled copy, whose minified names differ between client.js and .mjs */
const runtimeDebugEdit = (history, limit, top) => ({
  name: "the runtime's debug history only while debugging",
  from: `if(n.length!==0&&${history}.push([o,...n]),${history}.length>${limit}&&${history}.shift(),${top}.enabled(o)||i)`,
  to: `if(n.length!==0&&(i||${top}.enabled(o))&&${history}.push([o,...n]),${history}.length>${limit}&&${history}.shift(),${top}.enabled(o)||i)`,
});

/** How often `pattern` (text or a regular expression) occurs in `text`. */
export const occurrences = (text, pattern) => (typeof pattern === "string" ? text.split(pattern).length - 1 : (text.match(new RegExp(pattern.source, "g")) ?? []).length);

/** the installed package's folder (not through `exports`, which need not list package.json) */
export function packageDir(name) {
  const found = (createRequire(import.meta.url).resolve.paths(name) ?? []).map((dir) => path.join(dir, name)).find((dir) => existsSync(path.join(dir, "package.json")));
  if (!found) throw new Error(`${name} is not installed`);
  return found;
}

/** What is edited where: a package, its files (relative to the package), the edits. */
export const PATCHES = [
  { package: "@prisma/client", files: ["runtime/client.js", "runtime/client.mjs"], edits: PRISMA_EDITS },
  { package: "@pothos/selection-mapper", files: ["lib/loader-map.js", "esm/loader-map.js"], edits: SELECTION_MAPPER_EDITS },
  { package: "@pothos/core", files: ["lib/utils/context-cache.js", "esm/utils/context-cache.js"], edits: CONTEXT_CACHE_EDITS },
  { package: "graphql", files: ["execution/values.js", "execution/values.mjs"], edits: GRAPHQL_VALUES_EDITS },
  { package: "graphql", files: ["execution/execute.js", "execution/execute.mjs"], edits: GRAPHQL_EXECUTE_EDITS },
  { package: "@pothos/plugin-prisma", files: ["lib/util/adapter.js", "esm/util/adapter.js"], edits: POTHOS_PRISMA_EDITS },
  { package: "pg-boss", files: ["src/attorney.js"], edits: PG_BOSS_EDITS },
  { package: "@prisma/debug", files: ["dist/index.js", "dist/index.mjs"], edits: PRISMA_DEBUG_EDITS },
  // the embedded default's adapter debugs every statement through its own copy (7.2, beside its driver-adapter-utils)
  { package: "pglite-prisma-adapter", files: ["node_modules/@prisma/debug/dist/index.js", "node_modules/@prisma/debug/dist/index.mjs"], edits: PRISMA_DEBUG_EDITS },
  { package: "@prisma/client", files: ["runtime/client.js"], edits: [runtimeDebugEdit("Lt", "Mu", "Vt")] },
  { package: "@prisma/client", files: ["runtime/client.mjs"], edits: [runtimeDebugEdit("Ft", "fu", "_t")] },
];

/** Applies `edits` to those of `files` that exist; returns the edits it could not find ("file: name"). */
export function patchFiles(files, edits) {
  const missing = [];
  for (const file of files.filter(existsSync)) {
    const original = readFileSync(file, "utf8");
    let text = original;
    for (const edit of edits) {
      if (text.includes(edit.to) && !occurrences(text, edit.from)) continue;
      if (occurrences(text, edit.from) !== 1) { missing.push(`${path.basename(file)}: ${edit.name}`); continue; }
      text = text.replace(edit.from, edit.to);
    }
    if (text !== original) writeFileSync(file, text);
  }
  return missing;
}

/** Every patch on the installed packages. */
export const patchDependencies = () => PATCHES.flatMap((p) => patchFiles(p.files.map((f) => path.join(packageDir(p.package), f)), p.edits).map((m) => `${p.package} ${m}`));

if (process.argv[1] === import.meta.filename) {
  let missing;
  try { missing = patchDependencies(); } catch (error) { missing = [error.message]; }
  if (missing.length) console.warn(`scripts/patch-deps.mjs: not found in the installed packages, left as they are: ${missing.join("; ")}`);
}

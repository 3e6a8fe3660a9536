/**
 * The install-time edits to Prisma's runtime, @prisma/debug (its own copy and the embedded adapter's), @pothos/selection-mapper, @pothos/core, graphql,
 * @pothos/plugin-prisma and pg-boss (scripts/patch-deps.mjs) are in place and change nothing a caller
 * sees: an upgrade that drops them fails here instead of silently bringing back the garbage they
 * removed (bench/RESULTS.md). test/hidden-classes.test.ts checks what the spread edits are for.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain script, no types
import { occurrences, packageDir, PATCHES, patchFiles, PRISMA_EDITS } from "../scripts/patch-deps.mjs";
import { contextCacheSymbol, createContextCache, initContextCache } from "@pothos/core";
import { cacheKey } from "@pothos/selection-mapper";
import { buildSchema, execute, type ExecutionResult, type FieldNode, getArgumentValues, type OperationDefinitionNode, parse } from "graphql";
import { createDb, type Database } from "../src/db/client.js";
import { clearLogs, Debug, getLogs } from "@prisma/debug";

const INSPECT = Symbol.for("nodejs.util.inspect.custom");
type Edit = { name: string; from: string | RegExp; example?: string; to: string };

describe("Prisma's runtime as installed", () => {
  let database: Database;
  beforeAll(async () => {
    database = await createDb({ dataDir: "memory://" });
    await database.migrate();
  });
  afterAll(async () => { await database.close(); });

  it("answers with a PrismaPromise whose spec is a plain value, not a getter (no old-space accessor per query)", async () => {
    const pending = database.prisma.user.findMany({ take: 1 });
    const spec = Object.getOwnPropertyDescriptor(pending, "spec");
    expect(spec && "value" in spec && !spec.get).toBe(true);
    expect(await pending).toEqual([]);
  });

  it("makes no per-query prototypes: the interpreter's scopes are copies, not Object.create(parent)", async () => {
    const protos = async () => {
      const seen: unknown[] = [];
      const create = Object.create;
      Object.create = function (proto: object | null, props?: PropertyDescriptorMap) { seen.push(proto); return create(proto, props!); } as typeof Object.create;
      try {
        expect(await database.prisma.user.findMany({ take: 5, select: { id: true, documents: { select: { id: true } }, checks: { select: { id: true } } } })).toEqual([]);
      } finally { Object.create = create; }
      return seen;
    };
    const [first, second] = [await protos(), await protos()];
    // the same long-lived prototypes each time (the id generators'), never one made for the query
    expect(second.length).toBe(first.length);
    expect(second.every((proto, i) => proto === first[i])).toBe(true);
  });

  it("runs an interactive transaction without writing an inspect function onto the base client", async () => {
    const client = database.prisma as unknown as Record<symbol, unknown>;
    delete client[INSPECT];
    const count = await database.prisma.$transaction(async (tx) => tx.user.count());
    expect(count).toBe(0);
    expect(Object.getOwnPropertySymbols(client)).not.toContain(INSPECT);
  });
});

describe("@prisma/debug as installed", () => {
  it("keeps no history of debug calls while their namespace is not being debugged, and keeps it while it is", () => {
    clearLogs();
    Debug("prisma:bench-quiet")("a statement", { args: ["kept?"] });
    expect(getLogs()).not.toContain("kept?");
    Debug.enable("prisma:bench-loud");
    try { Debug("prisma:bench-loud")("a statement", { args: ["kept!"] }); } finally { Debug.enable(""); }
    expect(getLogs()).toContain("kept!");
    clearLogs();
  });

  it("the copy the embedded adapter debugs its statements through (pglite-prisma-adapter's own) keeps none either", async () => {
    // the adapter imports Debug from its driver-adapter-utils, which resolves @prisma/debug beside itself (ESM build)
    const utils = createRequire(path.join(packageDir("pglite-prisma-adapter"), "package.json")).resolve("@prisma/driver-adapter-utils");
    const cjs = createRequire(utils).resolve("@prisma/debug");
    const copy = await import(pathToFileURL(cjs.replace(/index\.js$/, "index.mjs")).href) as typeof import("@prisma/debug");
    copy.clearLogs();
    copy.Debug("prisma:driver-adapter:pglite")("[js::query_raw] %O", { sql: "SELECT 1", args: ["kept?"] });
    expect(copy.getLogs()).not.toContain("kept?");
  });
});

describe("@pothos/selection-mapper as installed", () => {
  it("keeps a response path's key on the link itself (no module-wide WeakMap entry per field per row)", () => {
    const root = { prev: undefined, key: "users", typename: "Query" };
    const row = { prev: root, key: 0, typename: undefined };
    const documents = { prev: row, key: "documents", typename: "User" };
    expect(cacheKey("User", documents as never)).toBe("User@users.documents");
    expect(Object.getOwnPropertySymbols(documents).map((s) => s.description)).toEqual(["responsePath"]);
    expect(cacheKey("User", documents as never)).toBe("User@users.documents"); // from the link now
    const frozen = Object.freeze({ prev: row, key: "checks", typename: "User" });
    expect(cacheKey("User", frozen as never)).toBe("User@users.checks"); // a link it cannot write to still answers
  });
});

describe("@pothos/core as installed", () => {
  it("keeps a request's cache entries on the context's key object, and starts afresh once the key is dropped", () => {
    let made = 0;
    const cache = createContextCache(() => ({ n: ++made }));
    const ctx: Record<symbol, unknown> = initContextCache();
    const key = ctx[contextCacheSymbol] as object;
    expect(cache(ctx)).toBe(cache(ctx));
    expect(Object.getOwnPropertySymbols(key).map((s) => s.description)).toEqual(["Pothos.contextCacheEntry"]);
    cache.delete(ctx);
    expect(cache(ctx)).toEqual({ n: 2 });
    ctx[contextCacheSymbol] = undefined; // releaseRequestCaches (src/context.ts)
    expect(cache(ctx)).toEqual({ n: 3 });
    const plain = {}; // a context without a key of its own still has one entry
    expect(cache(plain)).toBe(cache(plain));
    const frozen = { [contextCacheSymbol]: Object.freeze({}) };
    expect(cache(frozen)).toBe(cache(frozen));
  });
});

describe("graphql as installed", () => {
  it("answers a field without arguments with an empty null-prototype argument object, and a field with them as before", () => {
    const fields = buildSchema("type Query { a: Int, b(x: Int = 2, y: String): Int }").getQueryType()!.getFields();
    const [a, b] = (parse('{ a b(y: "z") }').definitions[0] as OperationDefinitionNode).selectionSet.selections as FieldNode[];
    const none = getArgumentValues(fields.a, a, {});
    expect(Object.getPrototypeOf(none)).toBe(null);
    expect(Object.keys(none)).toEqual([]);
    expect({ ...getArgumentValues(fields.b, b, {}) }).toEqual({ x: 2, y: "z" });
  });

  it("builds each object of a result as a plain object, and still answers a field aliased __proto__", async () => {
    const schema = buildSchema("type Query { a: Int, o: O } type O { b: Int }");
    const rootValue = { a: 1, o: { b: 2 } };
    const plain = (await execute({ schema, document: parse("{ a o { b } }"), rootValue })) as ExecutionResult<{ o: object }>;
    expect(Object.getPrototypeOf(plain.data)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(plain.data!.o)).toBe(Object.prototype);
    expect(JSON.stringify(plain)).toBe('{"data":{"a":1,"o":{"b":2}}}');
    const aliased = await execute({ schema, document: parse("{ __proto__: o { b } a }"), rootValue });
    expect(JSON.stringify(aliased)).toBe('{"data":{"__proto__":{"b":2},"a":1}}');
  });
});

describe("scripts/patch-deps.mjs", () => {
  it("finds every edit in every file it edits, by text that occurs there once", () => {
    for (const patch of PATCHES as { package: string; files: string[]; edits: Edit[] }[]) {
      for (const file of patch.files) {
        const text = readFileSync(path.join(packageDir(patch.package), file), "utf8");
        for (const edit of patch.edits) {
          expect(occurrences(text, edit.to), `${patch.package}/${file}: ${edit.name}`).toBe(1);
          expect(occurrences(text, edit.from), `${patch.package}/${file}: ${edit.name}`).toBe(0);
        }
      }
    }
  });

  it("edits a runtime once, leaves an edited one alone, and names what a changed runtime lacks", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "dependency-edits-"));
    const original = (PRISMA_EDITS as Edit[]).map((e) => `x;${e.example ?? e.from};y`).join("\n");
    writeFileSync(path.join(dir, "client.js"), original);
    writeFileSync(path.join(dir, "client.mjs"), "nothing of the kind");
    const runtime = ["client.js", "client.mjs"].map((f) => path.join(dir, f));
    expect(patchFiles(runtime, PRISMA_EDITS)).toEqual((PRISMA_EDITS as Edit[]).map((e) => `client.mjs: ${e.name}`));
    const edited = readFileSync(path.join(dir, "client.js"), "utf8");
    expect(edited).toBe((PRISMA_EDITS as Edit[]).map((e) => `x;${e.to};y`).join("\n"));
    patchFiles(runtime, PRISMA_EDITS);
    expect(readFileSync(path.join(dir, "client.js"), "utf8")).toBe(edited);
  });
});

/**
 * The patches to dependencies (patches/, applied by patch-package at install) and the checksum-gated
 * edits to Prisma's minified runtime (scripts/prisma-runtime.mjs) are in place, each at the exact
 * version it was made for, and change nothing a caller sees; a patch that stops applying fails the
 * install and this suite. Why each is kept, with its figures: docs/performance.md, docs/upstream/.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain script, no types
import { applyPrismaRuntimeEdits, CHECKSUMS, PRISMA_VERSION, runtimeFile } from "../scripts/prisma-runtime.mjs";
import { contextCacheSymbol, createContextCache, initContextCache } from "@pothos/core";
import { cacheKey } from "@pothos/selection-mapper";
import { buildSchema, execute, type ExecutionResult, type FieldNode, getArgumentValues, type OperationDefinitionNode, parse } from "graphql";
import { createDb, type Database } from "../src/db/client.js";
import { clearLogs, Debug, getLogs } from "@prisma/debug";

const INSPECT = Symbol.for("nodejs.util.inspect.custom");
const root = path.resolve(import.meta.dirname, "..");
const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { dependencies: Record<string, string> };
/** `pglite-prisma-adapter/@prisma/debug` → node_modules/pglite-prisma-adapter/node_modules/@prisma/debug */
function packageDir(name: string) {
  const parts = name.split("/");
  const names: string[] = [];
  for (let i = 0; i < parts.length; i++) names.push(parts[i].startsWith("@") ? `${parts[i]}/${parts[++i]}` : parts[i]);
  return path.join(root, ...names.flatMap((n) => ["node_modules", n]));
}
const sha256 = (file: string) => execFileSync("sha256sum", [file], { encoding: "utf8" }).split(" ")[0];

describe("Prisma's runtime as installed", () => {
  let database: Database;
  beforeAll(async () => {
    database = await createDb({ dataDir: "memory://" });
    await database.migrate();
  });
  afterAll(async () => {
    await database.close();
  });

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
      Object.create = ((proto: object | null, props?: PropertyDescriptorMap) => {
        seen.push(proto);
        return create(proto, props!);
      }) as typeof Object.create;
      try {
        expect(
          await database.prisma.user.findMany({ take: 5, select: { id: true, documents: { select: { id: true } }, checks: { select: { id: true } } } }),
        ).toEqual([]);
      } finally {
        Object.create = create;
      }
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
    try {
      Debug("prisma:bench-loud")("a statement", { args: ["kept!"] });
    } finally {
      Debug.enable("");
    }
    expect(getLogs()).toContain("kept!");
    clearLogs();
  });

  it("the copy the embedded adapter debugs its statements through (pglite-prisma-adapter's own) keeps none either", async () => {
    // the adapter imports Debug from its driver-adapter-utils, which resolves @prisma/debug beside itself (ESM build)
    const utils = createRequire(path.join(packageDir("pglite-prisma-adapter"), "package.json")).resolve("@prisma/driver-adapter-utils");
    const cjs = createRequire(utils).resolve("@prisma/debug");
    const copy = (await import(pathToFileURL(cjs.replace(/index\.js$/, "index.mjs")).href)) as typeof import("@prisma/debug");
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
  it("answers a field without arguments with one shared, frozen, empty null-prototype argument object, and a field with them as before", () => {
    const fields = buildSchema("type Query { a: Int, b(x: Int = 2, y: String): Int }").getQueryType()!.getFields();
    const [a, b] = (parse('{ a b(y: "z") }').definitions[0] as OperationDefinitionNode).selectionSet.selections as FieldNode[];
    const none = getArgumentValues(fields.a, a, {});
    expect(Object.getPrototypeOf(none)).toBe(null);
    expect(Object.keys(none)).toEqual([]);
    expect(Object.isFrozen(none)).toBe(true);
    expect(getArgumentValues(fields.a, a, {})).toBe(none); // no object per field per row
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

describe("the patches", () => {
  // `pglite-prisma-adapter++@prisma+debug+7.2.0.patch`: the nested package pglite-prisma-adapter/@prisma/debug at 7.2.0
  const patches = readdirSync(path.join(root, "patches"))
    .filter((f) => f.endsWith(".patch"))
    .map((file) => {
      const [, name, version] = /^(.+)\+(\d[^+]*)\.patch$/.exec(file)!;
      return { file, name: name.replaceAll("++", "/").replaceAll("+", "/"), version };
    });

  it("each is made for the version installed, and a direct dependency it patches is pinned to that version", () => {
    expect(patches.length).toBeGreaterThan(0);
    for (const { file, name, version } of patches) {
      const installed = JSON.parse(readFileSync(path.join(packageDir(name), "package.json"), "utf8")) as { version: string };
      expect(installed.version, file).toBe(version);
      if (name in manifest.dependencies) expect(manifest.dependencies[name], file).toBe(version);
    }
  });

  it("each is applied to the installed files (it reverses cleanly)", () => {
    for (const { file } of patches) {
      const check = spawnSync("git", ["apply", "--check", "--reverse", path.join("patches", file)], { cwd: root, encoding: "utf8" });
      expect(check.stderr, file).toBe("");
      expect(check.status, file).toBe(0);
    }
  });

  it("a patch that no longer applies fails the install (patch-package --error-on-fail)", () => {
    const app = mkdtempSync(path.join(tmpdir(), "patches-"));
    writeFileSync(path.join(app, "package.json"), JSON.stringify({ name: "probe", version: "1.0.0", dependencies: { graphql: "16.15.0" } }));
    const patch = patches.find((p) => p.name === "graphql")!;
    mkdirSync(path.join(app, "patches"));
    cpSync(path.join(root, "patches", patch.file), path.join(app, "patches", patch.file));
    // graphql at the patch's version, but with an execute.js the patch does not fit (as after an upstream change)
    mkdirSync(path.join(app, "node_modules/graphql/execution"), { recursive: true });
    writeFileSync(path.join(app, "node_modules/graphql/package.json"), JSON.stringify({ name: "graphql", version: patch.version }));
    for (const f of ["execute.js", "execute.mjs", "values.js", "values.mjs"])
      writeFileSync(path.join(app, "node_modules/graphql/execution", f), "export {};\n");
    const run = spawnSync(process.execPath, [path.join(root, "node_modules/patch-package/index.js"), "--error-on-fail", "--error-on-warn"], {
      cwd: app,
      encoding: "utf8",
    });
    expect(run.status).not.toBe(0);
    expect(run.stdout + run.stderr).toMatch(/failed to apply/i);
  });
});

describe("scripts/prisma-runtime.mjs", () => {
  it("left Prisma's runtime exactly as its edits make it (checksum of the edited file)", () => {
    expect(JSON.parse(readFileSync(path.join(packageDir("@prisma/client"), "package.json"), "utf8")).version).toBe(PRISMA_VERSION);
    expect(manifest.dependencies["@prisma/client"]).toBe(PRISMA_VERSION);
    expect(sha256(runtimeFile())).toBe(CHECKSUMS.edited);
    expect(applyPrismaRuntimeEdits()).toBe("already edited");
  });

  it("refuses a runtime that is neither the published nor the edited file of the pinned version, and changes nothing", () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), "prisma-runtime-")), "client.js");
    writeFileSync(file, "module.exports = {};\n");
    expect(() => applyPrismaRuntimeEdits(file)).toThrow(/not @prisma\/client .*published runtime/);
    expect(readFileSync(file, "utf8")).toBe("module.exports = {};\n");
    expect(existsSync(file)).toBe(true);
  });
});

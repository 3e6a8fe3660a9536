/**
 * The install-time edits to Prisma's runtime (scripts/patch-prisma.mjs) are in place and change
 * nothing a caller sees: a Prisma upgrade that drops them fails here instead of silently bringing
 * back a mark-compact every second or two under load.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain script, no types
import { EDITS, occurrences, patchPrismaRuntime } from "../../scripts/patch-prisma.mjs";
import { createDb, type Database } from "./client.js";

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

describe("scripts/patch-prisma.mjs", () => {
  it("finds every edit in both installed runtimes, by text that occurs there once", () => {
    const runtimes = path.dirname(createRequire(import.meta.url).resolve("@prisma/client/runtime/client.js"));
    for (const file of ["client.js", "client.mjs"]) {
      const runtime = readFileSync(path.join(runtimes, file), "utf8");
      for (const edit of EDITS as Edit[]) {
        expect(occurrences(runtime, edit.to), `${file}: ${edit.name}`).toBe(1);
        expect(occurrences(runtime, edit.from), `${file}: ${edit.name}`).toBe(0);
      }
    }
  });

  it("edits a runtime once, leaves an edited one alone, and names what a changed runtime lacks", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "prisma-runtime-"));
    const original = (EDITS as Edit[]).map((e) => `x;${e.example ?? e.from};y`).join("\n");
    writeFileSync(path.join(dir, "client.js"), original);
    writeFileSync(path.join(dir, "client.mjs"), "nothing of the kind");
    expect(patchPrismaRuntime(dir)).toEqual((EDITS as Edit[]).map((e) => `client.mjs: ${e.name}`));
    const edited = readFileSync(path.join(dir, "client.js"), "utf8");
    expect(edited).toBe((EDITS as Edit[]).map((e) => `x;${e.to};y`).join("\n"));
    patchPrismaRuntime(dir);
    expect(readFileSync(path.join(dir, "client.js"), "utf8")).toBe(edited);
  });
});

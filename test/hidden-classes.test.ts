/**
 * V8 11 (Node 20) gives every object made by a literal that opens with a spread of a non-empty
 * object and then adds properties (`{ ...a, b }`, `{ ...a, ...b }`) a hidden class of its own: a new
 * map in old space per object, its descriptors promoted by the next scavenges, and each property
 * access that meets such objects megamorphic. One such literal per request (the lane's response
 * headers) promoted ~440 KiB a scavenge on the lookup row and brought a mark-compact every few
 * seconds (bench/RESULTS.md, tenth session). Opening with an empty spread, `{ ...{}, ...a, b }`,
 * means the same and keeps the shared classes: the app's code always does, and
 * scripts/patch-deps.mjs does it for the dependencies' literals made per request.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(file);
    return file.endsWith(".ts") && !file.endsWith(".test.ts") && !file.endsWith(".d.ts") ? [file] : [];
  });
}

/** `file:line` of each object literal that opens with a non-empty spread and has more members */
function ownClassLiterals(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isObjectLiteralExpression(node) && node.properties.length > 1) {
      const first = node.properties[0];
      const empty = ts.isSpreadAssignment(first) && ts.isObjectLiteralExpression(first.expression) && first.expression.properties.length === 0;
      if (ts.isSpreadAssignment(first) && !empty)
        found.push(`${path.relative(root, file)}:${source.getLineAndCharacterOfPosition(first.getStart(source)).line + 1}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** runs `script` in a node with V8's natives syntax (%HaveSameMap); returns what it printed */
const withNatives = (script: string) => execFileSync(process.execPath, ["--allow-natives-syntax", "-e", script], { cwd: root, encoding: "utf8" }).trim();

describe("hidden classes of objects made per request", () => {
  it("no literal in src/ opens with a non-empty spread and adds properties (open it with `...{},`)", () => {
    expect(sourceFiles(path.join(root, "src")).flatMap(ownClassLiterals)).toEqual([]);
  });

  it("the rule's form keeps one hidden class for all the objects a literal makes", () => {
    const printed = withNatives(`
      const base = { a: 1, b: "x" };
      const made = (n) => ({ ...{}, ...base, n });
      const copied = (n) => { const o = { ...{}, ...base }; o.n = n; return o; };
      for (let i = 0; i < 1000; i++) { made(i); copied(i); }
      console.log(%HaveSameMap(made(1), made(2)), %HaveSameMap(copied(1), copied(2)));`);
    expect(printed).toBe("true true");
  });

  it("pg-boss as installed copies a job's options into one hidden class (scripts/patch-deps.mjs)", () => {
    const attorney = createRequire(import.meta.url).resolve("pg-boss/src/attorney.js");
    const printed = withNatives(`
      const { checkSendArgs } = require(${JSON.stringify(attorney)});
      const send = () => checkSendArgs(["q", {}, { retryLimit: 2 }], {}).options;
      for (let i = 0; i < 100; i++) send();
      console.log(%HaveSameMap(send(), send()));`);
    expect(printed).toBe("true");
  });
});

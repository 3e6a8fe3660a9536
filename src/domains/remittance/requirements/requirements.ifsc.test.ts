/**
 * Our IFSC lookup, over the shipped data/remittance/ifsc-codes.txt, gives the answers of the `ifsc`
 * package's own validate() (a dev dependency), over real codes and near misses; and the file is the
 * installed package's whole list, so upgrading the package without rebuilding the file fails here.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { fromRoot } from "../../../lib/paths.js";
import { isListedIfsc, loadIfscList } from "./requirements.ifsc.js";

const require = createRequire(import.meta.url);
// the package's entry point (it loads `request`, which is why the app does not use it)
const ifsc = require("ifsc") as { validate(code: string): boolean };
const list = require("ifsc/src/IFSC.json") as Record<string, (string | number)[]>;
const codeOf = (prefix: string, branch: string | number) => `${prefix}0${typeof branch === "number" ? String(branch).padStart(6, "0") : branch}`;

describe("the IFSC list", () => {
  it("agrees with ifsc.validate on every 50th code of every bank and on near misses", () => {
    const codes: string[] = [];
    for (const [prefix, branches] of Object.entries(list))
      branches.forEach((b, i) => {
        if (i % 50) return;
        const code = codeOf(prefix, b);
        codes.push(code, `${code.slice(0, 10)}${code[10] === "9" ? "8" : "9"}`, `${code.slice(0, 4)}1${code.slice(5)}`, `${code.slice(0, 3)}Q${code.slice(4)}`);
      });
    expect(codes.length).toBeGreaterThan(10000);
    let listed = 0;
    for (const code of codes) {
      expect(isListedIfsc(code), code).toBe(ifsc.validate(code));
      if (ifsc.validate(code)) listed++;
    }
    expect(listed).toBeGreaterThan(3000);
  });

  it("is the installed package's whole list, and names its version", () => {
    const header = readFileSync(fromRoot("data", "remittance", "ifsc-codes.txt"), "utf8").split("\n", 1)[0];
    expect(header).toContain(`ifsc@${(require("ifsc/package.json") as { version: string }).version} npm package`);
    const loaded = loadIfscList();
    expect([...loaded.keys()].sort()).toEqual(Object.keys(list).sort());
    for (const [prefix, branches] of Object.entries(list)) {
      const bank = loaded.get(prefix)!;
      expect(bank.numbers.length + bank.texts.length / 6, prefix).toBe(branches.length);
      const missing = branches.map((b) => codeOf(prefix, b)).filter((code) => !isListedIfsc(code));
      expect(missing, prefix).toEqual([]);
    }
  });

  it("is loaded once", () => {
    expect(loadIfscList()).toBe(loadIfscList());
    expect(isListedIfsc("SBIN0000001")).toBe(true);
    expect(isListedIfsc("SBIN0999999")).toBe(false);
    expect(isListedIfsc("SBIN000001")).toBe(false);
  });
});

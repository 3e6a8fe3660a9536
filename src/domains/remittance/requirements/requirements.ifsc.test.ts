/** Our IFSC lookup gives the answers of the `ifsc` package's own validate(), over real codes and near misses. */
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { isListedIfsc, loadIfscList } from "./requirements.ifsc.js";

const require = createRequire(import.meta.url);
// the package's entry point (it loads `request`, which is why the app does not use it)
const ifsc = require("ifsc") as { validate(code: string): boolean };
const list = require("ifsc/src/IFSC.json") as Record<string, (string | number)[]>;

describe("the IFSC list", () => {
  it("agrees with ifsc.validate on every 50th code of every bank and on near misses", () => {
    const codes: string[] = [];
    for (const [prefix, branches] of Object.entries(list))
      branches.forEach((b, i) => {
        if (i % 50) return;
        const code = `${prefix}0${typeof b === "number" ? String(b).padStart(6, "0") : b}`;
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

  it("is loaded once", () => {
    expect(loadIfscList()).toBe(loadIfscList());
    expect(isListedIfsc("SBIN0000001")).toBe(true);
    expect(isListedIfsc("SBIN0999999")).toBe(false);
    expect(isListedIfsc("SBIN000001")).toBe(false);
  });
});

/**
 * Is an IFSC a real branch code? Answered from data/remittance/ifsc-codes.txt, read once per
 * process: every code of the list the `ifsc` package (Razorpay) ships as src/IFSC.json, written by
 * scripts/build-remittance-data.ts (the file's first line names the package version). The package
 * itself is only a dev dependency: its entry point loads the deprecated `request` HTTP client, and
 * its `validate()` searches each bank's array linearly (SBIN has over 20,000 branches). The lookup
 * below gives the same answers (requirements.ifsc.test.ts compares them): bank prefix, a `0`, then
 * the 6-character branch part, compared as a number when it is all digits (as the package's list
 * holds those) and as text otherwise.
 *
 * Memory: the file's text (about 1 MB) is dropped once compacted into one sorted Int32Array and
 * one string of 6-character codes per bank: 0.4 MB of heap and 0.6 MB of array buffers stay
 * (ifsc 2.0.50, 176,918 codes; measured after gc with `node --expose-gc`).
 */
import { readFileSync } from "node:fs";
import { fromRoot } from "../../../lib/paths.js";

type Bank = { numbers: Int32Array; texts: string };
let banks: Map<string, Bank> | undefined;

const FILE = fromRoot("data", "remittance", "ifsc-codes.txt");
/** a bank's line: its prefix, a space, its branch parts joined (data/remittance/README.md) */
const LINE = /^[A-Z]{4} (?:[A-Z0-9]{6})*$/;

/** Loads the list (about 40 ms); later calls return the same one. Throws on a malformed file: the binary search needs it sorted. */
export function loadIfscList(): Map<string, Bank> {
  if (banks) return banks;
  const out = new Map<string, Bank>();
  for (const [i, line] of readFileSync(FILE, "utf8").split("\n").entries()) {
    if (line === "" || line.startsWith("#")) continue;
    const prefix = line.slice(0, 4);
    if (!LINE.test(line) || out.has(prefix)) throw new Error(`${FILE}:${i + 1}: not a bank's line of IFSC codes`);
    const numbers: number[] = [];
    const texts: string[] = [];
    let previous = "";
    for (let at = 5; at < line.length; at += 6) {
      const part = line.slice(at, at + 6);
      if (part <= previous) throw new Error(`${FILE}:${i + 1}: ${prefix}0${part} is out of order`);
      previous = part;
      if (/^\d{6}$/.test(part)) numbers.push(Number(part));
      else texts.push(part);
    }
    // equal-width digit strings sort as their numbers do, so both stay sorted
    out.set(prefix, { numbers: Int32Array.from(numbers), texts: texts.join("") });
  }
  banks = out;
  return out;
}

/** `code` upper-case, 11 characters: AAAA0XXXXXX. */
export function isListedIfsc(code: string): boolean {
  if (code.length !== 11 || code[4] !== "0") return false;
  const bank = loadIfscList().get(code.slice(0, 4));
  if (!bank) return false;
  const branch = code.slice(5);
  return /^\d+$/.test(branch) ? hasNumber(bank.numbers, Number(branch)) : hasText(bank.texts, branch);
}

function hasNumber(sorted: Int32Array, n: number) {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] === n) return true;
    if (sorted[mid] < n) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/** binary search over fixed-width 6-character records */
function hasText(joined: string, code: string) {
  let lo = 0;
  let hi = joined.length / 6 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const at = joined.slice(mid * 6, mid * 6 + 6);
    if (at === code) return true;
    if (at < code) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/**
 * Is an IFSC a real branch code? Answered from the list the `ifsc` package (Razorpay) ships,
 * src/IFSC.json, read once per process. Not through the package's `validate()`: its entry point
 * loads the deprecated `request` HTTP client, and it searches each bank's array linearly (SBIN has
 * over 20,000 branches). The lookup below gives the same answers (requirements.ifsc.test.ts
 * compares them): bank prefix, a `0`, then the 6-character branch part, which the list holds as a
 * number when it is all digits and as text otherwise.
 *
 * Memory: the parsed JSON (about 3 MB of heap) is dropped once compacted into one sorted
 * Int32Array and one string of 6-character codes per bank: 0.35 MB of heap and 0.6 MB of array
 * buffers stay (ifsc 2.0.50, 176,918 codes; measured after gc with `node --expose-gc`).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

type Bank = { numbers: Int32Array; texts: string };
let banks: Map<string, Bank> | undefined;

/** Loads the list (about 50 ms); later calls return the same one. */
export function loadIfscList(): Map<string, Bank> {
  if (banks) return banks;
  const file = createRequire(import.meta.url).resolve("ifsc/src/IFSC.json");
  const raw = JSON.parse(readFileSync(file, "utf8")) as Record<string, (string | number)[]>;
  const out = new Map<string, Bank>();
  for (const [prefix, codes] of Object.entries(raw)) {
    const numbers = Int32Array.from(codes.filter((c): c is number => typeof c === "number")).sort();
    const texts = [...new Set(codes.filter((c): c is string => typeof c === "string" && c.length === 6))].sort().join("");
    out.set(prefix, { numbers, texts });
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

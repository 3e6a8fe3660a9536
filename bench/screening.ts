/**
 * Sanctions screening against the full shipped OFAC SDN list: `npx tsx bench/screening.ts`.
 * Prints the list's load time (read + parse + index), the memory it holds (JS heap, and the typed
 * arrays of the index), and the time of one
 * screening (median, p99, max) over the project's test set (listed variants, unlisted names and
 * names sharing a word with a listed one), after one warm-up pass. Single process, one core.
 */
import { readFileSync } from "node:fs";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { parseSdnCsv } from "../src/domains/checks/screening/sdn-parse.js";
import { screenPerson } from "../src/domains/checks/screening/screen-person.js";
import { loadWatchlist, SHIPPED_WATCHLIST } from "../src/domains/checks/screening/watchlist.js";
import type { TestCase } from "../src/domains/checks/screening/testset/test-case.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
/** JS heap and typed arrays' backing stores (the index lives in the latter), after two full collections */
const heldMb = () => {
  gc();
  gc();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return { heap: heapUsed / 2 ** 20, arrayBuffers: arrayBuffers / 2 ** 20 };
};
const ROUNDS = 5;

const cases = ["listed.json", "unlisted.json", "token-sharing.json"].flatMap((f): TestCase[] =>
  JSON.parse(readFileSync(new URL(`../src/domains/checks/screening/testset/${f}`, import.meta.url), "utf8")),
);

const before = heldMb();
let t = performance.now();
const text = readFileSync(SHIPPED_WATCHLIST, "utf8");
const readMs = performance.now() - t;
t = performance.now();
parseSdnCsv(text);
const parseMs = performance.now() - t;
t = performance.now();
const watchlist = await loadWatchlist();
const loadMs = performance.now() - t;
const held = heldMb();

for (const c of cases) screenPerson(c.person, watchlist);
const times: number[] = [];
const cpu: number[] = [];
const byKind: Record<"listed" | "unlisted", number[]> = { listed: [], unlisted: [] };
const perCase = new Map<TestCase, number[]>();
for (let round = 0; round < ROUNDS; round++)
  for (const c of cases) {
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    screenPerson(c.person, watchlist);
    const ms = performance.now() - start;
    const used = process.cpuUsage(cpuStart);
    times.push(ms);
    // CPU time of this thread's process: leaves out time the (shared, busy) machine gave to others
    cpu.push((used.user + used.system) / 1000);
    byKind[c.entryId ? "listed" : "unlisted"].push(ms);
    perCase.set(c, [...(perCase.get(c) ?? []), ms]);
  }
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const f = (n: number) => n.toFixed(3);

console.log(
  JSON.stringify(
    {
      version: watchlist.version.id,
      stats: watchlist.stats,
      readMs: Math.round(readMs),
      parseMs: Math.round(parseMs),
      loadMs: Math.round(loadMs),
      heapHeldMb: Math.round(held.heap - before.heap),
      arrayBuffersHeldMb: Math.round(held.arrayBuffers - before.arrayBuffers),
    },
    null,
    1,
  ),
);
console.log(`\n| screenings (${cases.length} people × ${ROUNDS}) | median ms | p99 ms | max ms |\n|---|---|---|---|`);
for (const [label, xs] of [
  ["all (wall clock)", times],
  ["all (process CPU time)", cpu],
  ["listed variants", byKind.listed],
  ["unlisted names", byKind.unlisted],
] as const)
  console.log(`| ${label} | ${f(pct(xs, 50))} | ${f(pct(xs, 99))} | ${f(Math.max(...xs))} |`);
const slowest = [...perCase]
  .map(([c, xs]) => [pct(xs, 50), c] as const)
  .sort((a, b) => b[0] - a[0])
  .slice(0, 5);
console.log(
  `\nslowest people (median of ${ROUNDS}):\n${slowest.map(([ms, c]) => `${f(ms)} ms ${[c.person.firstName, c.person.middleName, c.person.lastName].filter(Boolean).join(" ")}`).join("\n")}`,
);

/**
 * `BENCH_PROFILE=maps` of bench/profile-read.ts: the hidden classes (V8 maps) the server made during
 * the measured run, by the function and source position that made them, from its `--log-maps
 * --log-code` log. A server in its steady state makes none per request; a site that shows up once
 * per request is making objects that each get a class of their own, or growing a dictionary
 * through fast properties (docs/performance.md).
 */
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";

/** node flags that make the server write the log `file` */
export const mapLogFlags = (file: string) => ["--log-maps", "--log-code", "--no-logfile-per-isolate", `--logfile=${file}`];

/** prints the map events logged after `fromMs` (the server's performance.now()), grouped by site */
export async function summariseMapLog(file: string, fromMs: number, top = 25) {
  const code = new Map<number, { size: number; name: string }>();
  const sites = new Map<string, number>();
  const events: { pc: number; key: string }[] = [];
  for await (const line of createInterface({ input: createReadStream(file) })) {
    if (line.startsWith("code-creation,")) {
      const [, , , , addr, size, name] = line.split(","); // V8 writes a comma inside a name as \x2c
      code.set(Number(addr), { size: Number(size), name: name.replaceAll("\\x2c", ",") });
    } else if (line.startsWith("code-move,")) {
      const [, from, to] = line.split(",");
      const moved = code.get(Number(from));
      if (moved) {
        code.delete(Number(from));
        code.set(Number(to), moved);
      }
    } else if (line.startsWith("map,")) {
      const [, kind, time, , , pc, row, column, reason, ...name] = line.split(",");
      const why = [reason, name.join(",")].filter(Boolean).join("; ");
      if (Number(time) / 1000 >= fromMs) events.push({ pc: Number(pc), key: `${kind} at ${row}:${column}${why ? ` (${why})` : ""}` });
    }
  }
  const starts = [...code.keys()].sort((a, b) => a - b);
  const functionAt = (pc: number) => {
    let lo = 0,
      hi = starts.length - 1,
      found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid] <= pc) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    const entry = found < 0 ? undefined : code.get(starts[found]);
    return entry && pc < starts[found] + entry.size ? entry.name.replace(/file:\/\/|[^ ]*\/node_modules\/|[^ ]*\/dist\/src\//g, "") : "(builtin)";
  };
  for (const { pc, key } of events) {
    const site = `${functionAt(pc)}: ${key}`;
    sites.set(site, (sites.get(site) ?? 0) + 1);
  }
  console.log(`-- hidden classes made in the measured run: ${events.length}, by site --`);
  for (const [site, n] of [...sites].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${String(n).padStart(7)}  ${site}`);
}

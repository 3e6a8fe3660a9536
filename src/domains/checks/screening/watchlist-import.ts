/**
 * Newer lists: `cli watchlist import FILE` validates an SDN file by loading it whole (parse + index,
 * the same code screening uses), compares it with the list in use (watchlist-diff.ts), then copies it
 * to `DATA_DIR/sanctions/ofac-sdn-YYYY-MM-DD.csv` and records the import (checks.rescreen.ts queues the
 * re-screen of whoever the changes could concern). `currentWatchlistFile` picks the newest of those
 * files and the shipped list; a process that loads it (and reloads when the name changes) screens with it.
 *
 * A file in DATA_DIR rather than a table: the list is the provider's own input, read whole into
 * memory at start, and the embedded default has no shared database to gain from; several instances
 * on one PostgreSQL need the import run on each (or a shared DATA_DIR) until the check-run engine
 * stores lists in a table of its own.
 */
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { invalid } from "../../../lib/errors.js";
import { WatchlistFormatError } from "./sdn-parse.js";
import { buildWatchlistYielding, SHIPPED_WATCHLIST, type Watchlist } from "./watchlist.js";
import { diffWatchlists, type WatchlistDiff } from "./watchlist-diff.js";

const LIST_NAME = /^ofac-sdn-(\d{4}-\d{2}-\d{2})\.csv$/;
/** a new list with fewer than this share of the current one's individuals is more likely truncated than newer */
const MIN_SHARE_OF_CURRENT = 0.8;

const fileError = (message: string) => invalid([{ field: "file", code: "invalid", message }]);
const dateOf = (file: string) => LIST_NAME.exec(path.basename(file))?.[1] ?? null;

/** The newest list: imported ones in `DATA_DIR/sanctions/`, else the shipped one. */
export async function currentWatchlistFile(dataDir: string): Promise<string> {
  const dir = path.join(dataDir, "sanctions");
  const imported = (await readdir(dir).catch(() => [] as string[])).filter((f) => LIST_NAME.test(f)).sort();
  const newest = imported.at(-1);
  return newest && dateOf(newest)! > dateOf(SHIPPED_WATCHLIST)! ? path.join(dir, newest) : SHIPPED_WATCHLIST;
}

export interface WatchlistImport {
  version: Watchlist["version"];
  stats: Watchlist["stats"];
  file: string;
  replaced: string;
  /** the version of the list replaced, and what changed from it */
  previous: Watchlist["version"];
  diff: WatchlistDiff;
}

/**
 * Validates and installs a newer SDN file. Its publication date comes from its name
 * (`…YYYY-MM-DD….csv`) or, failing that, `publishedOn`. Refuses a file that is not an SDN list,
 * is not newer than the current one, or lists far fewer individuals; writes nothing then.
 * `record`: what else the import is (its row and re-screen job), run once the file is in place; when
 * it fails the file goes again, so an import is either installed and recorded or neither. Both lists
 * are loaded a slice at a time (a serving process keeps answering: the control socket runs this in the server).
 */
export async function importWatchlistFile(
  file: string,
  dataDir: string,
  publishedOn?: string,
  record: (imported: WatchlistImport) => Promise<void> = async () => {},
): Promise<WatchlistImport> {
  const text = await readFile(file, "utf8").catch(() => {
    throw fileError(`Cannot read ${path.basename(file)}.`);
  });
  const date = publishedOn ?? /(\d{4}-\d{2}-\d{2})/.exec(path.basename(file))?.[1];
  if (!date || Number.isNaN(Date.parse(date))) throw fileError("Name the file with its publication date (ofac-sdn-YYYY-MM-DD.csv) or pass --date YYYY-MM-DD.");
  const target = path.join(dataDir, "sanctions", `ofac-sdn-${date}.csv`);
  let list: Watchlist;
  try {
    list = await buildWatchlistYielding(text, target);
  } catch (error) {
    if (error instanceof WatchlistFormatError) throw fileError(`Not an OFAC SDN list (sdn.csv): ${error.message}.`);
    throw error;
  }
  const replaced = await currentWatchlistFile(dataDir);
  if (date <= dateOf(replaced)!) throw fileError(`The list in use is from ${dateOf(replaced)}; import a newer one.`);
  const current = await buildWatchlistYielding(await readFile(replaced, "utf8"), replaced);
  if (list.stats.individuals < current.stats.individuals * MIN_SHARE_OF_CURRENT)
    throw fileError(`The file lists ${list.stats.individuals} individuals against ${current.stats.individuals} in the list in use: it looks truncated.`);
  const imported = { version: list.version, stats: list.stats, file: target, replaced, previous: current.version, diff: diffWatchlists(current, list) };
  await mkdir(path.dirname(target), { recursive: true });
  // written whole, then renamed: a process choosing the newest file never sees half of one
  await writeFile(`${target}.part`, text);
  await rename(`${target}.part`, target);
  try {
    await record(imported);
  } catch (error) {
    await rm(target, { force: true });
    throw error;
  }
  return imported;
}

/**
 * Newer lists: `cli watchlist import FILE` validates an SDN file by loading it whole (parse + index,
 * the same code screening uses), then copies it to `DATA_DIR/sanctions/ofac-sdn-YYYY-MM-DD.csv`.
 * `currentWatchlistFile` picks the newest of those and the shipped list; a process that loads it
 * (and reloads when the name changes) screens with it.
 *
 * A file in DATA_DIR rather than a table: the list is the provider's own input, read whole into
 * memory at start, and the embedded default has no shared database to gain from; several instances
 * on one PostgreSQL need the import run on each (or a shared DATA_DIR) until the check-run engine
 * stores lists in a table of its own.
 */
import { mkdir, readdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { invalid } from "../../../lib/errors.js";
import { WatchlistFormatError } from "./sdn-parse.js";
import { buildWatchlist, SHIPPED_WATCHLIST, type Watchlist } from "./watchlist.js";

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
}

/**
 * Validates and installs a newer SDN file. Its publication date comes from its name
 * (`…YYYY-MM-DD….csv`) or, failing that, `publishedOn`. Refuses a file that is not an SDN list,
 * is not newer than the current one, or lists far fewer individuals; writes nothing then.
 */
export async function importWatchlistFile(file: string, dataDir: string, publishedOn?: string): Promise<WatchlistImport> {
  const text = await readFile(file, "utf8").catch(() => {
    throw fileError(`Cannot read ${path.basename(file)}.`);
  });
  const date = publishedOn ?? /(\d{4}-\d{2}-\d{2})/.exec(path.basename(file))?.[1];
  if (!date || Number.isNaN(Date.parse(date))) throw fileError("Name the file with its publication date (ofac-sdn-YYYY-MM-DD.csv) or pass --date YYYY-MM-DD.");
  const target = path.join(dataDir, "sanctions", `ofac-sdn-${date}.csv`);
  let list: Watchlist;
  try {
    list = buildWatchlist(text, target);
  } catch (error) {
    if (error instanceof WatchlistFormatError) throw fileError(`Not an OFAC SDN list (sdn.csv): ${error.message}.`);
    throw error;
  }
  const replaced = await currentWatchlistFile(dataDir);
  if (date <= dateOf(replaced)!) throw fileError(`The list in use is from ${dateOf(replaced)}; import a newer one.`);
  const current = buildWatchlist(await readFile(replaced, "utf8"), replaced);
  if (list.stats.individuals < current.stats.individuals * MIN_SHARE_OF_CURRENT)
    throw fileError(`The file lists ${list.stats.individuals} individuals against ${current.stats.individuals} in the list in use: it looks truncated.`);
  await mkdir(path.dirname(target), { recursive: true });
  // written whole, then renamed: a process choosing the newest file never sees half of one
  await writeFile(`${target}.part`, text);
  await rename(`${target}.part`, target);
  return { version: list.version, stats: list.stats, file: target, replaced };
}

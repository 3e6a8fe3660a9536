import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { screenPerson } from "./screen-person.js";
import { loadWatchlist, SHIPPED_WATCHLIST } from "./watchlist.js";
import { currentWatchlistFile, importWatchlistFile } from "./watchlist-import.js";

const root = path.resolve(import.meta.dirname, "../../../..");
const NEW_ENTRY = `99999,"ZEBEDEE-QUANTRILL, Ottoline Marisol","individual","SDGT",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,"DOB 02 Feb 1982; nationality Malta."\r\n`;

let dir: string;
let shipped: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "og-watchlist-"));
  shipped = await readFile(SHIPPED_WATCHLIST, "utf8");
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const write = async (name: string, text: string) => {
  const file = path.join(dir, name);
  await writeFile(file, text);
  return file;
};

describe("watchlist import", () => {
  it("cli watchlist import validates a newer list, copies it into DATA_DIR and screening uses it", async () => {
    const dataDir = path.join(dir, "cli-data");
    const file = await write("sdn-2024-06-01.csv", shipped.replace(/\x1a\s*$/, "") + NEW_ENTRY);
    const { stdout } = await promisify(execFile)("node", ["--import", "tsx", "src/cli/main.ts", "watchlist", "import", file], {
      cwd: root,
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "", REDIS_URL: "", NODE_ENV: "test" },
    });
    const out = JSON.parse(stdout);
    expect(out).toMatchObject({
      version: expect.stringMatching(/^ofac-sdn-2024-06-01\+[0-9a-f]{12}$/),
      published_on: "2024-06-01",
      individuals: 6_855,
      replaced: SHIPPED_WATCHLIST,
    });
    expect(await currentWatchlistFile(dataDir)).toBe(path.join(dataDir, "sanctions", "ofac-sdn-2024-06-01.csv"));
    // the CLI's umask: what it writes under DATA_DIR is the service account's alone
    for (const made of [dataDir, path.join(dataDir, "sanctions"), path.join(dataDir, "sanctions", "ofac-sdn-2024-06-01.csv")])
      expect((await stat(made)).mode & 0o077, made).toBe(0);

    const person = { firstName: "Ottoline", lastName: "Zebedee Quantrill", dateOfBirth: "1982-02-02" };
    expect(screenPerson(person, await loadWatchlist(SHIPPED_WATCHLIST)).status).toBe("CLEAR");
    const newer = await loadWatchlist(await currentWatchlistFile(dataDir));
    expect(newer.version.id).toBe(out.version);
    expect(screenPerson(person, newer)).toMatchObject({ status: "REJECTED", matches: [{ entryId: "99999" }] });
  }, 60_000);

  it("refuses a file that is not an SDN list, an older list and a truncated one, writing nothing", async () => {
    const dataDir = path.join(dir, "refused");
    const refusal = (file: string, date?: string) =>
      importWatchlistFile(file, dataDir, date).then(
        () => null,
        (e) => e.fields?.[0]?.message as string,
      );
    expect(await refusal(await write("users-2024-07-01.csv", "id,name\n1,Ann\n"))).toMatch(/^Not an OFAC SDN list/);
    expect(await refusal(await write("sdn-2023-01-01.csv", shipped))).toMatch(/from 2024-05-03; import a newer one/);
    expect(await refusal(await write("sdn-undated.csv", shipped))).toMatch(/publication date/);
    const half = shipped.split("\r\n").slice(0, 7_000).join("\r\n"); // records end in CRLF; remarks may hold a bare LF
    expect(await refusal(await write("sdn-2024-07-01.csv", half))).toMatch(/looks truncated/);
    expect(await readdir(dataDir).catch(() => [])).toEqual([]);
    expect(await currentWatchlistFile(dataDir)).toBe(SHIPPED_WATCHLIST);
  }, 60_000);
});

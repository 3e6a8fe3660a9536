/**
 * DATA_DIR on disk: the embedded database (personal data in its tables and WAL), the generated
 * encryption key, document files. Only the service's account may read it, and PGlite is one
 * process: a second one writing the same files corrupts them, so the process that opens the
 * embedded database holds DATA_DIR/lock.pid (its pid) until it stops. A lock whose process is gone
 * (killed) is taken over. The CLI hands its commands to the holder (cli/control-socket.ts).
 */
import { chmod, link, lstat, mkdir, open, readdir, readFile, rename, rm } from "node:fs/promises";
import path from "node:path";

/** DATA_DIR is held by another process (or by another app of this one). */
export class DataDirInUse extends Error {}

/**
 * Creates DATA_DIR as 0700. One left readable by others (made before this rule: PGlite wrote its
 * files 0666 under a 0755 directory) has the group and other bits taken off everything beneath it.
 */
export async function secureDataDir(dataDir: string) {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  if (((await lstat(dataDir)).mode & 0o077) === 0) return;
  await ownerOnly(dataDir);
  await chmod(dataDir, 0o700);
}

/**
 * Takes the group and other bits off everything under `dir`. PGlite sets some modes itself,
 * whatever the process's umask: the database it unpacks on first open comes out 0666, and the
 * catalog cache files it rewrites at each open 0644. What Postgres creates as it runs is 0600.
 */
export async function ownerOnly(dir: string) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isSymbolicLink()) continue; // chmod would follow it out of DATA_DIR
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) await ownerOnly(file);
    const { mode } = await lstat(file);
    if (mode & 0o077) await chmod(file, mode & 0o700);
  }
}

/** lock files this process holds: a second app of the same process is refused too */
const held = new Set<string>();

/**
 * Takes DATA_DIR's lock; resolves to its release. `parentHolds`: the process that forked this one
 * to work for it (the migration child) holds it; nothing is taken.
 */
export async function lockDataDir(dataDir: string, { parentHolds = false } = {}): Promise<() => Promise<void>> {
  const file = path.join(dataDir, "lock.pid");
  if (parentHolds) {
    if ((await holderOf(file)) === process.ppid) return async () => {};
    throw new DataDirInUse(`DATA_DIR ${dataDir} is not held by the process that started this one`);
  }
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await create(file)) {
      held.add(file);
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        held.delete(file);
        await rm(file, { force: true });
      };
    }
    const holder = await holderOf(file);
    if (held.has(file)) throw new DataDirInUse(`DATA_DIR ${dataDir} is already open in this process`);
    // our own pid in a file we do not hold: left by an earlier process that had the same pid
    if (holder !== null && holder !== process.pid && alive(holder))
      throw new DataDirInUse(`DATA_DIR ${dataDir} is in use by process ${holder}: the embedded database takes one process at a time`);
    await takeOver(file, holder);
  }
  throw new DataDirInUse(`DATA_DIR ${dataDir}: its lock keeps changing hands; is another process starting on it?`);
}

/** true when this process made the file (O_EXCL), false when it exists */
async function create(file: string) {
  try {
    const handle = await open(file, "wx", 0o600);
    try {
      await handle.writeFile(`${process.pid}\n`);
    } finally {
      await handle.close();
    }
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

async function holderOf(file: string): Promise<number | null> {
  const text = await readFile(file, "utf8").catch(() => "");
  const pid = Number(text.trim());
  return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
}

/** signal 0 tests for the process without touching it; EPERM: it exists, as another user's */
function alive(pid: number) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes a lock left by a dead process. Renamed first, then read again: a starter that took the
 * lock over between our read and our rename would be renamed away too, so a lock that turns out
 * not to be the dead one is put back (link: only where no lock is) for the next round to see.
 */
async function takeOver(file: string, deadHolder: number | null) {
  const aside = `${file}.stale-${process.pid}`;
  try {
    await rename(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return; // gone meanwhile: create again
    throw error;
  }
  if ((await holderOf(aside)) !== deadHolder) await link(aside, file).catch(() => {});
  await rm(aside, { force: true });
}

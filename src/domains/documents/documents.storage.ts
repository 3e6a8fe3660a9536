/**
 * Where document bytes live, behind one interface: files under DATA_DIR/documents on the
 * embedded default, the `document_blobs` table when DOCUMENT_STORE=database (the default with
 * DATABASE_URL). Either way a row never points at missing bytes and a rollback leaves none behind:
 * - database: the bytes are written and erased inside the row's own transaction;
 * - file: the bytes are made durable (temp file, fsync, rename, fsync of the folder) before the
 *   transaction, unlinked if it fails; erased bytes are unlinked after the commit. A crash between
 *   the two leaves an unreferenced file, which `sweep` (run at start) removes.
 * DATA_DIR=memory:// (tests) keeps the files in a temporary folder removed on close.
 */
import { randomUUID } from "node:crypto";
import { mkdir, mkdtemp, open, readdir, readFile, rename, rm, stat, unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Config } from "../../config.js";
import type { Actor } from "../../principal.js";
import type { Write, WriteDeps } from "../../platform/write.js";
import { isMemoryDir } from "../../db/client.js";
import type { Logger } from "../../lib/logger.js";

/** Byte changes that go with one database write. */
export type ByteChanges = { put?: { key: string; bytes: Uint8Array }; erase?: string | null };

export type DocumentStore = {
  readonly kind: "file" | "database";
  /** the bytes under `key`, or null when there are none (erased) */
  read(key: string): Promise<Buffer | null>;
  /** runs `fn` in one transaction (audit and events included) together with the byte changes */
  transact<T>(writer: Actor, changes: ByteChanges, fn: (write: Write) => Promise<T>): Promise<T>;
  /** removes bytes no row refers to (left by a crash); returns how many */
  sweep(): Promise<number>;
  close(): Promise<void>;
};

export const newStorageKey = () => randomUUID();

export async function createDocumentStore(config: Pick<Config, "dataDir" | "documentStore">, deps: WriteDeps, logger: Logger): Promise<DocumentStore> {
  if (config.documentStore === "database") return databaseStore(deps);
  const memory = isMemoryDir(config.dataDir);
  const dir = memory ? await mkdtemp(path.join(tmpdir(), "og-documents-")) : path.join(config.dataDir, "documents");
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const store = fileStore(dir, deps, logger, memory);
  const sweeping = store
    .sweep()
    .then((n) => {
      if (n) logger.info({ removed: n }, "document store: unreferenced files removed");
    })
    .catch((error) => logger.warn({ err: error }, "document store sweep failed"));
  return {
    ...store,
    close: async () => {
      await sweeping;
      await store.close();
    },
  };
}

function databaseStore({ db, transact }: WriteDeps): DocumentStore {
  return {
    kind: "database",
    async read(key) {
      const row = await db.documentBlob.findUnique({ where: { key }, select: { content: true } });
      return row ? Buffer.from(row.content) : null;
    },
    transact: (writer, changes, fn) =>
      transact(
        writer,
        async (write) => {
          // select only the key: by default Prisma would send the bytes back (RETURNING), a large share of the write's cost
          if (changes.put)
            await write.tx.documentBlob.create({
              data: { key: changes.put.key, content: changes.put.bytes as Uint8Array<ArrayBuffer> },
              select: { key: true },
            });
          if (changes.erase) await write.tx.documentBlob.deleteMany({ where: { key: changes.erase } });
          return fn(write);
        },
        { timeout: 30_000 },
      ),
    sweep: async () => 0, // blobs are written and erased with their rows: nothing can be orphaned
    close: async () => {},
  };
}

/** Files not referenced by any row and older than this are left over from a crash, not an upload in flight. */
const SWEEP_GRACE_MS = 15 * 60 * 1000;
const KEY = /^[0-9a-f-]{36}$/;

/** Exported for the sweep test; the app reaches it through createDocumentStore. */
export function fileStore(dir: string, { db, transact }: WriteDeps, logger: Logger, temporary = false) {
  const fileOf = (key: string) => {
    if (!KEY.test(key)) throw new Error("invalid storage key");
    return path.join(dir, key.slice(0, 2), key);
  };
  const erase = (key: string) =>
    unlink(fileOf(key)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT") logger.warn({ err: error }, "document bytes not erased; the start-up sweep will retry");
    });
  return {
    kind: "file" as const,
    dir,
    fileOf,
    async read(key: string) {
      return readFile(fileOf(key)).catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") return null;
        throw error;
      });
    },
    async transact<T>(writer: Actor, changes: ByteChanges, fn: (write: Write) => Promise<T>) {
      if (changes.put) await writeDurably(fileOf(changes.put.key), changes.put.bytes);
      let result: T;
      try {
        result = await transact(writer, fn);
      } catch (error) {
        if (changes.put) await erase(changes.put.key);
        throw error;
      }
      if (changes.erase) await erase(changes.erase);
      return result;
    },
    async sweep() {
      const cutoff = Date.now() - SWEEP_GRACE_MS;
      let removed = 0;
      for (const shard of await readdir(dir).catch(() => [] as string[])) {
        const folder = path.join(dir, shard);
        const names = await readdir(folder).catch(() => [] as string[]);
        const old: string[] = [];
        for (const name of names) {
          const info = await stat(path.join(folder, name)).catch(() => null);
          if (info?.isFile() && info.mtimeMs < cutoff) old.push(name);
        }
        const keys = old.filter((n) => KEY.test(n));
        const kept = new Set(
          keys.length ? (await db.document.findMany({ where: { storageKey: { in: keys } }, select: { storageKey: true } })).map((r) => r.storageKey) : [],
        );
        // temp files of interrupted writes and files whose row is gone, erased or never committed
        for (const name of old.filter((n) => !kept.has(n))) {
          await unlink(path.join(folder, name)).catch(() => {});
          removed++;
        }
      }
      return removed;
    },
    close: async () => {
      if (temporary) await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Temp file in the same folder, written and fsynced, renamed over the target, folder fsynced: all or nothing. */
async function writeDurably(file: string, bytes: Uint8Array) {
  const folder = path.dirname(file);
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  const handle = await open(temp, "wx", 0o600);
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await unlink(temp).catch(() => {});
    throw error;
  }
  await handle.close();
  await rename(temp, file);
  const dirHandle = await open(folder, "r");
  try {
    await dirHandle.sync();
  } finally {
    await dirHandle.close();
  }
}

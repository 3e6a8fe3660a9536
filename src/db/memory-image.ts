/**
 * In-memory embedded databases (DATA_DIR=memory://: each test suite's app, a throwaway run) start
 * from an image of a migrated one: the image a test run made once for all its processes
 * (useMigratedImage), else the first one this process migrated. initdb and the migrations then run
 * once, not once per database. The image is taken right after the migrations, before
 * anything else is written, so every database starts as empty as a fresh one would.
 */
import type { PGlite } from "@electric-sql/pglite";

let image: Blob | null = null;

/** The options a new in-memory PGlite opens with: the migrated image once there is one. */
export const memoryStart = () => (image ? { loadDataDir: image } : undefined);

/** An image made elsewhere (by keepMigratedImage, then dumpDataDir) for this process's databases. */
export function useMigratedImage(made: Blob) {
  image ??= made;
}

/**
 * Keeps `pglite`'s data directory as the image, if none is kept yet (call it straight after
 * migrating). Without the deployment id its migration drew: each database draws its own on first
 * look (deployment.ts), so two of them never share a Redis prefix.
 */
export async function keepMigratedImage(pglite: PGlite) {
  if (image) return;
  await pglite.exec('delete from "deployment"');
  image = await pglite.dumpDataDir("none");
}

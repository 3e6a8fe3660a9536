/**
 * In-memory embedded databases (DATA_DIR=memory://: each test suite's app, a throwaway run) start
 * from an image of the first one this process migrated, so initdb and the migrations run once per
 * process rather than once per database. The image is taken right after the migrations, before
 * anything else is written, so every database starts as empty as a fresh one would.
 */
import type { PGlite } from "@electric-sql/pglite";

let image: Blob | null = null;

/** The options a new in-memory PGlite opens with: the migrated image once there is one. */
export const memoryStart = () => (image ? { loadDataDir: image } : undefined);

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

/**
 * Once per test run: one in-memory database migrated and dumped to a file that every test process
 * starts its in-memory databases from (src/db/memory-image.ts), instead of each process running
 * initdb and the migrations for its first one.
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    migratedImage: string;
  }
}

export default async function setup(project: TestProject) {
  const dir = await mkdtemp(path.join(tmpdir(), "og-migrated-image-"));
  const file = path.join(dir, "pglite.tar");
  const made = spawnSync(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "migrated-image.ts"), file], { encoding: "utf8" });
  if (made.status !== 0) throw new Error(`the migrated image was not made: ${made.stderr}`);
  project.provide("migratedImage", file);
  return () => rm(dir, { recursive: true, force: true });
}

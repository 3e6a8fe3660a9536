/**
 * The project's folder (the one holding package.json), for the files shipped beside the code
 * (prisma/, data/). Found by walking up, because the code runs from src/ under tsx and from
 * dist/src/ once compiled (scripts/build.mjs): a fixed `../..` would point into dist/ there.
 */
import { existsSync } from "node:fs";
import path from "node:path";

function projectRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "package.json"))) return dir;
    if (dir === path.dirname(dir)) throw new Error(`no package.json above ${from}`);
  }
}

const PROJECT_ROOT = projectRoot(import.meta.dirname);

/** A path under the project's folder: `fromRoot("data", "remittance")`. */
export const fromRoot = (...segments: string[]) => path.join(PROJECT_ROOT, ...segments);

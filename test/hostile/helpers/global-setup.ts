/**
 * Once per run: compile as `npm start` does, then start the service once on an empty data directory
 * (migrations, reference data, the sandbox demo client) and stop it. Each test's service starts on
 * its own copy of that directory: a restart takes under a second where a first start takes several.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { build, launch, serviceEnv } from "./process.js";

declare module "vitest" {
  export interface ProvidedContext {
    hostileDataTemplate: string;
  }
}

export default async function setup(project: TestProject) {
  build();
  const dir = await mkdtemp(path.join(tmpdir(), "og-hostile-template-"));
  const first = await launch(serviceEnv(dir));
  const exit = await first.stop();
  if (exit.code !== 0) throw new Error(`the template service did not stop cleanly (${exit.signal ?? exit.code}); ${first.state()}`);
  project.provide("hostileDataTemplate", dir);
  return () => rm(dir, { recursive: true, force: true });
}

/** `npm install` on Node 20 stays quiet: no engine warnings but the one explained, every install script decided. */
import { readFileSync } from "node:fs";
import path from "node:path";
import semver from "semver";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..");
const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
const lock = JSON.parse(readFileSync(path.join(root, "package-lock.json"), "utf8")) as { packages: Record<string, { version?: string; engines?: { node?: string }; hasInstallScript?: boolean; optional?: boolean }> };
const installed = Object.entries(lock.packages).filter(([p]) => p.startsWith("node_modules/"));
const nameOf = (p: string) => p.slice(p.lastIndexOf("node_modules/") + "node_modules/".length);

describe("npm install on the Node the project supports", () => {
  it("installs no package whose engines exclude Node 20.19 (EBADENGINE), but prisma dev's streams-local", () => {
    const node = semver.minVersion(manifest.engines.node)!.version;
    const misfits = installed.filter(([, p]) => p.engines?.node && !semver.satisfies(node, p.engines.node)).map(([p, v]) => `${nameOf(p)}@${v.version}`);
    // every release of @prisma/streams-local wants Node 22; only `prisma dev` loads it, which this project does not
    // use, and prisma stays at 7.10.0 because its WASM schema engine is published for that engine hash only
    expect(misfits.filter((m) => !m.startsWith("@prisma/streams-local@"))).toEqual([]);
  });

  it("records in allowScripts a decision for every dependency's install script (npm 11 otherwise warns)", () => {
    const withScripts = [...new Set(installed.filter(([, p]) => p.hasInstallScript).map(([p]) => nameOf(p)))].sort();
    expect(withScripts.filter((name) => !(name in manifest.allowScripts))).toEqual([]);
    // denied: Prisma runs through driver adapters and its WASM engine, esbuild's binary comes as an optional dependency
    expect(Object.values(manifest.allowScripts).every((allowed) => allowed === false)).toBe(true);
  });
});

/** `npm install` on the oldest Node `engines` allows stays quiet: no engine warnings, every install script decided. */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import semver from "semver";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..");
const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
const lock = JSON.parse(readFileSync(path.join(root, "package-lock.json"), "utf8")) as {
  packages: Record<string, { version?: string; engines?: { node?: string }; hasInstallScript?: boolean; optional?: boolean }>;
};
// an optional package npm skipped here (another CPU's binding and what only it needs) is not checked: npm does not install it
const installed = Object.entries(lock.packages).filter(([p, v]) => p.startsWith("node_modules/") && (!v.optional || existsSync(path.join(root, p))));
const nameOf = (p: string) => p.slice(p.lastIndexOf("node_modules/") + "node_modules/".length);

describe("npm install on the Node the project supports", () => {
  it("installs no package whose engines exclude the oldest Node the project supports (EBADENGINE)", () => {
    const node = semver.minVersion(manifest.engines.node)!.version;
    const misfits = installed.filter(([, p]) => p.engines?.node && !semver.satisfies(node, p.engines.node)).map(([p, v]) => `${nameOf(p)}@${v.version}`);
    expect(misfits).toEqual([]);
  });

  it("records in allowScripts a decision for every dependency's install script (npm 11 otherwise warns)", () => {
    const withScripts = [...new Set(installed.filter(([, p]) => p.hasInstallScript).map(([p]) => nameOf(p)))].sort();
    expect(withScripts.filter((name) => !(name in manifest.allowScripts))).toEqual([]);
    // denied: Prisma runs through driver adapters and its WASM engine, esbuild's binary comes as an optional dependency
    expect(Object.values(manifest.allowScripts).every((allowed) => allowed === false)).toBe(true);
  });
});

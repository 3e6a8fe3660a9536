/** The README and docs/ are true from a clone: their links resolve inside the repository, and the REST paths they name exist. */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ERROR_CODES } from "../src/lib/errors.js";
import { routes } from "../src/rest/routes.js";

const root = path.resolve(import.meta.dirname, "..");
const pages = [
  "README.md",
  ...readdirSync(path.join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];
const read = (page: string) => readFileSync(path.join(root, page), "utf8");

describe("documentation", () => {
  it.each(pages)("%s links only to files the repository has", (page) => {
    const links = [...read(page).matchAll(/\]\(([^)#\s]+)[^)]*\)/g)].map((m) => m[1]).filter((l) => !/^[a-z]+:/.test(l));
    for (const link of links) {
      const target = path.resolve(root, path.dirname(page), link);
      expect(target.startsWith(root + path.sep), `${page} → ${link} leaves the repository`).toBe(true);
      expect(existsSync(target), `${page} → ${link}`).toBe(true);
    }
    expect(read(page)).not.toContain("../shared");
  });

  it("names only REST paths that are served, and says /v1 is not", () => {
    const served = new Set(routes.map((r) => `${r.method} ${r.path}`));
    const api = read("docs/api.md");
    const named = [...api.matchAll(/`(GET|POST|PUT|DELETE) (\/[^`?\s]*)/g)]
      .map((m) => `${m[1]} ${m[2]}`)
      .filter((r) => !/^(GET|POST) \/(graphql|healthz|readyz|metrics|openapi\.json|docs|docs\/events)?$/.test(r));
    expect(named.length).toBeGreaterThan(10);
    for (const route of named) expect(served, route).toContain(route);
    // once /v1 routes land, docs/api.md lists them instead of saying they are missing
    if (routes.some((r) => r.path.startsWith("/v1"))) expect(named.some((r) => r.includes(" /v1/"))).toBe(true);
    else expect(api).toMatch(/Not there yet: the `\/v1` legacy shim/);
  });

  it("names every error code with its status in docs/api.md", () => {
    const api = read("docs/api.md");
    for (const [code, { status }] of Object.entries(ERROR_CODES)) {
      expect(api, code).toContain(`\`${code}\``);
      // "409 `CONFLICT`, `IDEMPOTENCY_KEY_IN_USE`; …": a code is named after its status, within that status's list
      expect(api, `${status} before ${code}`).toMatch(new RegExp(`${status}\\s+(\`[A-Z_]+\`[^;]*)?\`${code}\``));
    }
  });

  it("gives the README's calls a base address to change, not a fixed port", () => {
    expect(read("README.md")).not.toMatch(/curl[^\n]*localhost:4000/);
  });

  it("ships the example import files the docs name", () => {
    for (const file of ["docs/examples/catalogue.csv", "docs/examples/catalogue.json"]) {
      expect(existsSync(path.join(root, file)), file).toBe(true);
      expect(read("docs/reference-import.md")).toContain(file.replace("docs/", ""));
    }
  });
});

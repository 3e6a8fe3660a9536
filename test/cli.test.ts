import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { multiInstance, startTestApp } from "./helpers/app.js";

const root = path.resolve(import.meta.dirname, "..");
/** Runs the CLI as a user does; `{ env }` before the arguments adds variables (e.g. a PostgreSQL server). */
const cli = async (dataDir: string, ...args: (string | { env: Record<string, string> })[]) => {
  const extra = args.flatMap((a) => (typeof a === "string" ? [] : [a.env]))[0] ?? {};
  const argv = args.filter((a): a is string => typeof a === "string");
  const { stdout } = await promisify(execFile)("node", ["--import", "tsx", "src/cli/main.ts", ...argv], {
    cwd: root,
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "", REDIS_URL: "", NODE_ENV: "test", ...extra },
  });
  return JSON.parse(stdout);
};

describe("cli", () => {
  it("migrates a new embedded database once, then lists, rotates and revokes", async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), "og-cli-"));
    const first = await cli(dataDir, "migrate");
    expect(first.applied.length).toBeGreaterThanOrEqual(2);
    expect(first.applied[0]).toMatch(/_init$/);
    expect((await cli(dataDir, "migrate")).applied).toEqual([]);

    const created = await cli(dataDir, "clients", "create", "--name", "Ops", "--live", "--scopes", "users:read lookups:read");
    expect(created).toMatchObject({ mode: "LIVE", scopes: ["users:read", "lookups:read"], api_key: expect.stringMatching(/^ogk_live_/) });
    const rotated = await cli(dataDir, "keys", "rotate", "--client", created.client_id);
    expect(rotated.api_key).not.toBe(created.api_key);
    await cli(dataDir, "keys", "revoke", "--key", rotated.key_id);
    const [listed] = await cli(dataDir, "clients", "list");
    // REST's snake_case names, as `GET`/`DELETE /admin/...` answer
    expect(Object.keys(listed)).toEqual(["client_id", "name", "mode", "scopes", "created_at", "keys"]);
    expect(Object.keys(listed.keys[0])).toEqual(["key_id", "prefix", "created_at", "revoked_at"]);
    expect(listed.keys.map((k: { revoked_at: string | null }) => k.revoked_at !== null)).toEqual([true, true]);
    expect(Object.keys(rotated)).toEqual(["client_id", "name", "mode", "scopes", "api_key", "key_id"]);
    expect(JSON.stringify(listed)).not.toContain(created.api_key);
    // a pass by hand on the stopped embedded database: no users, none due (checks.periodic.test.ts has the rest)
    expect(await cli(dataDir, "checks", "run-periodic")).toEqual({ due: 0 });
  }, 150_000);
});

const thaiCorridors = "/users/wallet/payouts/remittances/corridors?receiving_country=THA";

describe("cli while the server runs", () => {
  it("hands the command to the server owning the embedded data dir, which serves the import at once (no stale cache)", async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), "og-cli-live-"));
    const t = await startTestApp("pglite", { DATA_DIR: dataDir, DATABASE_URL: "", REDIS_URL: "" });
    try {
      await t.app.start(0);
      const key = (await t.createClient("Reader", ["lookups:read"])).key;
      expect((await t.rest("GET", thaiCorridors, { key })).body.data).toEqual([]); // now cached for 60 s
      expect(await cli(dataDir, "reference", "import", "docs/examples/catalogue.csv")).toEqual({
        imported: { institutions: 1, branches: 2, corridors: 1, requirements: 0 },
      });
      expect((await t.rest("GET", thaiCorridors, { key })).body.data.map((c: { id: string }) => c.id)).toEqual(["th-thb-bank"]);
      // the shipped files themselves, each a bare list named by its file
      for (const [file, count] of [
        ["institutions", 268],
        ["branches", 710],
        ["corridors", 28],
        ["requirements", 28],
      ] as const)
        expect((await cli(dataDir, "reference", "import", `data/remittance/${file}.json`)).imported[file]).toBe(count);
      expect((await cli(dataDir, "reference", "import", "docs/examples/catalogue.json")).imported).toEqual({
        institutions: 1,
        branches: 2,
        corridors: 1,
        requirements: 0,
      });
      const listed = await cli(dataDir, "clients", "list");
      expect(listed.map((c: { name: string }) => c.name)).toContain("Reader");
    } finally {
      await t.stop();
    }
  }, 120_000);

  it.runIf(multiInstance)(
    "on PostgreSQL tells every running instance through Redis, which clears its lookup cache",
    async () => {
      const t = await startTestApp("postgres");
      try {
        const key = (await t.createClient("Reader", ["lookups:read"])).key;
        expect((await t.rest("GET", thaiCorridors, { key })).body.data).toEqual([]);
        const env = {
          DATABASE_URL: process.env.DATABASE_URL!,
          DATABASE_SCHEMA: t.schemaName!,
          REDIS_URL: process.env.REDIS_URL!,
          ENCRYPTION_KEY: randomBytes(32).toString("hex"),
        };
        expect((await cli("memory://", { env }, "reference", "import", "docs/examples/catalogue.csv")).imported.corridors).toBe(1);
        let ids: string[] = [];
        for (let i = 0; i < 50 && !ids.length; i++, await new Promise((r) => setTimeout(r, 20)))
          ids = (await t.rest("GET", thaiCorridors, { key })).body.data.map((c: { id: string }) => c.id);
        expect(ids).toEqual(["th-thb-bank"]);
      } finally {
        await t.stop();
      }
    },
    120_000,
  );
});

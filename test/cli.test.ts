import { execFile } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..");
const cli = async (dataDir: string, ...args: string[]) => {
  const { stdout } = await promisify(execFile)("node", ["--import", "tsx", "src/cli/main.ts", ...args], {
    cwd: root, env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "", REDIS_URL: "", NODE_ENV: "test" },
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
  }, 90_000);
});

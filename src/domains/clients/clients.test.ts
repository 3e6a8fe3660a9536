import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../config.js";
import { within } from "../../../test/helpers/eventually.js";
import { ADMIN_KEY, multiInstance, startTestApp, startTwoInstances, type TestApp } from "../../../test/helpers/app.js";

describe("API clients and keys", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.stop());
  /** one data migration's SQL run again on rows written as before it */
  const runMigration = async (suffix: string) => {
    const migrations = path.resolve(import.meta.dirname, "../../../prisma/migrations");
    const folder = (await readdir(migrations)).find((name) => name.endsWith(suffix))!;
    await t.db.$executeRawUnsafe(await readFile(path.join(migrations, folder, "migration.sql"), "utf8"));
  };

  it("creates a client over REST with every scope but admin by default, and shows the key once", async () => {
    const res = await t.rest("POST", "/admin/clients", { key: ADMIN_KEY, body: { name: "Fintech A", mode: "LIVE" } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ client_id: expect.any(String), name: "Fintech A", mode: "LIVE", api_key: expect.stringMatching(/^ogk_live_/) });
    expect(res.body.scopes).not.toContain("admin");
    const stored = await t.db.apiKey.findFirst({ where: { clientId: res.body.client_id } });
    expect(stored!.hash).not.toContain(res.body.api_key);
    expect(stored!.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("creates a client through GraphQL createApiClient", async () => {
    const res = await t.gql(ADMIN_KEY, `mutation { createApiClient(input: { name: "G", mode: SANDBOX, scopes: ["users:read"] }) { clientId apiKey scopes } }`);
    expect(res.data.createApiClient).toMatchObject({ scopes: ["users:read"], apiKey: expect.stringMatching(/^ogk_sandbox_/) });
  });

  it("refuses client creation to a client key (403) and bad input (400)", async () => {
    const { key } = await t.createClient();
    expect((await t.rest("POST", "/admin/clients", { key, body: { name: "X", mode: "LIVE" } })).status).toBe(403);
    const bad = await t.rest("POST", "/admin/clients", { key: ADMIN_KEY, body: { name: "X", mode: "LIVE", scopes: ["root"] } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe("scopes");
    expect((await t.rest("POST", "/admin/clients", { key: ADMIN_KEY, body: { name: "X", mode: "PROD" } })).body.errors[0].field).toBe("mode");
  });

  it("gives no client operator power: admin is refused as a scope, naming the field, on REST, GraphQL and the CLI's shared check", async () => {
    for (const scopes of [["admin"], ["users:read", "admin"], ["operator"]]) {
      const res = await t.rest("POST", "/admin/clients", { key: ADMIN_KEY, body: { name: "Escalating", mode: "LIVE", scopes } });
      expect(res.status, scopes.join()).toBe(400);
      expect(res.body).toMatchObject({ code: "VALIDATION_FAILED", errors: [{ field: "scopes", message: expect.stringMatching(/operator key/) }] });
    }
    const gql = await t.gql(ADMIN_KEY, `mutation { createApiClient(input: { name: "G admin", mode: LIVE, scopes: ["admin"] }) { clientId } }`);
    expect(gql.errors?.[0].extensions).toMatchObject({ code: "VALIDATION_FAILED", fields: [{ field: "scopes" }] });
    expect(await t.db.apiClient.count({ where: { name: { in: ["Escalating", "G admin"] } } })).toBe(0);
  });

  it("keeps operator operations to the operator key: a client key whose row holds admin is refused every one of them", async () => {
    const victim = await t.createClient("Victim");
    const userId = (await t.rest("POST", "/v2/users", { key: victim.key, body: { first_name: "Vic", last_name: "Tim", email: "vic@example.com" } })).body
      .user_id;
    // the run settled first: a result the background job writes later is not the tenant's doing
    const check = (await within(
      "a settled check run",
      () => t.db.checkRun.findFirst({ where: { userId, status: { notIn: ["QUEUED", "RUNNING"] } } }),
      Boolean,
    ))!;
    const tenant = await t.createClient("Tenant");
    // a row written before operator power stopped being a scope (or by hand): the scope is inert
    await t.db.apiClient.update({ where: { id: tenant.clientId }, data: { scopes: ["users:read", "users:write", "lookups:read", "admin", "operator"] } });
    t.app.services.auth.forget();
    const calls: [string, string, unknown][] = [
      ["POST", "/admin/clients", { name: "Minted", mode: "LIVE" }],
      ["POST", `/admin/clients/${victim.clientId}/keys/rotate`, undefined],
      ["DELETE", `/admin/keys/${(await t.db.apiKey.findFirstOrThrow({ where: { clientId: victim.clientId } })).id}`, undefined],
      ["POST", `/v2/checks/${check.id}/result`, { status: "CLEAR" }],
    ];
    for (const [method, path, body] of calls) {
      const res = await t.rest(method, path, { key: tenant.key, body });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.detail).toMatch(/Only the operator key/);
    }
    for (const mutation of [
      `createApiClient(input: { name: "Minted", mode: LIVE }) { clientId }`,
      `rotateApiKey(input: { clientId: "${victim.clientId}" }) { apiKey }`,
      `recordCheckResult(input: { checkId: "${check.id}", status: CLEAR }) { id }`,
      `upsertBranch(input: { id: "x", institutionId: "y", name: "Branch", code: "B1" }) { id }`,
    ]) {
      const res = await t.gql(tenant.key, `mutation { ${mutation} }`);
      expect(res.errors?.[0].extensions.code, mutation).toBe("FORBIDDEN");
    }
    expect((await t.gql(tenant.key, "{ apiClients { id } }")).errors?.[0].extensions.code).toBe("FORBIDDEN");
    expect(await t.db.apiClient.count({ where: { name: "Minted" } })).toBe(0);
    expect((await t.rest("GET", "/v2/users", { key: victim.key })).status).toBe(200); // the victim's key was neither rotated nor revoked
    expect((await t.db.checkRun.findUniqueOrThrow({ where: { id: check.id } })).result).toEqual(check.result);
  });

  it("takes admin off every stored client in its migration", async () => {
    const { clientId } = await t.createClient("Old admin");
    await t.db.apiClient.update({ where: { id: clientId }, data: { scopes: ["users:read", "admin"] } });
    await runMigration("_operator_power_not_a_scope");
    expect((await t.db.apiClient.findUniqueOrThrow({ where: { id: clientId } })).scopes).toEqual(["users:read"]);
  });

  it("keeps none of a key's secret in its listed prefix: the mode tag and 8 hex digits of its SHA-256, also for keys stored before", async () => {
    const { clientId, key } = await t.createClient("Labelled", undefined, "LIVE");
    const label = `ogk_live_…${createHash("sha256").update(key).digest("hex").slice(0, 8)}`;
    const row = await t.db.apiKey.findFirstOrThrow({ where: { clientId } });
    expect(row.prefix).toBe(label);
    const secret = key.slice("ogk_live_".length);
    for (let i = 0; i + 4 <= secret.length; i++) expect(row.prefix).not.toContain(secret.slice(i, i + 4));
    expect((await t.rest("GET", "/v2/users", { key })).status).toBe(200); // found by its hash, as before
    // a row written before: the key's first 16 characters; its migration rewrites it
    await t.db.apiKey.update({ where: { id: row.id }, data: { prefix: key.slice(0, 16) } });
    await runMigration("_api_key_label_without_secret");
    expect((await t.db.apiKey.findUniqueOrThrow({ where: { id: row.id } })).prefix).toBe(label);
    const revoked = await t.rest("DELETE", `/admin/keys/${row.id}`, { key: ADMIN_KEY });
    expect(revoked.body.prefix).toBe(label);
  });

  it("rotates a key (the old one stops working) and revokes a key", async () => {
    const { clientId, key } = await t.createClient();
    expect((await t.rest("GET", "/v2/users", { key })).status).toBe(200);
    const rotated = await t.rest("POST", `/admin/clients/${clientId}/keys/rotate`, { key: ADMIN_KEY });
    expect(rotated.status).toBe(201);
    expect((await t.rest("GET", "/v2/users", { key })).status).toBe(401);
    expect((await t.rest("GET", "/v2/users", { key: rotated.body.api_key })).status).toBe(200);
    const revoked = await t.rest("DELETE", `/admin/keys/${rotated.body.key_id}`, { key: ADMIN_KEY });
    expect(revoked.status).toBe(200);
    expect((await t.rest("GET", "/v2/users", { key: rotated.body.api_key })).status).toBe(401);
  });

  it("keeps no key look-up that a revocation overtook: the next request reads the key again", async () => {
    const { key } = await t.createClient("Looked up");
    const auth = t.app.services.auth;
    const keyReads = async (fn: () => Promise<unknown>) => (await t.app.database.countQueries(fn)).queries.filter((q) => q.includes("api_keys")).length;
    auth.forget();
    const once = await keyReads(() => auth.authenticate(key));
    expect(once).toBeGreaterThan(0);
    expect(await keyReads(() => auth.authenticate(key))).toBe(0); // kept
    // a look-up under way when this instance forgets (a revocation, a rotation) may have read the key
    // before the change: it answers its own request, and is not kept
    auth.forget();
    const overtaken = auth.authenticate(key);
    auth.forget();
    expect(await overtaken).toMatchObject({ kind: "client" });
    expect(await keyReads(() => auth.authenticate(key))).toBe(once);
  });

  it("accepts the key as Bearer, X-Api-Key and HTTP Basic user name", async () => {
    const { key } = await t.createClient();
    expect((await t.rest("GET", "/v2/users", { headers: { "x-api-key": key } })).status).toBe(200);
    const basic = Buffer.from(`${key}:`).toString("base64");
    expect((await t.rest("GET", "/v2/users", { headers: { authorization: `Basic ${basic}` } })).status).toBe(200);
  });

  it("creates a client from the CLI and prints JSON", async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), "og-cli-"));
    const { stdout } = await promisify(execFile)("npx", ["tsx", "src/cli/main.ts", "clients", "create", "--name", "CLI", "--sandbox"], {
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "", NODE_ENV: "test" },
      cwd: path.resolve(import.meta.dirname, "../../.."),
    });
    expect(JSON.parse(stdout)).toMatchObject({ name: "CLI", mode: "SANDBOX", api_key: expect.stringMatching(/^ogk_sandbox_/) });
    const admin = await promisify(execFile)(
      "npx",
      ["tsx", "src/cli/main.ts", "clients", "create", "--name", "CLI admin", "--live", "--scopes", "users:read admin"],
      {
        env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "", NODE_ENV: "test" },
        cwd: path.resolve(import.meta.dirname, "../../.."),
      },
    ).then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(admin?.code).toBe(2);
    expect(JSON.parse(admin!.stderr)).toMatchObject({ code: "VALIDATION_FAILED", errors: [{ field: "scopes" }] });
  }, 150_000);
});

describe("the operator key (ADMIN_API_KEY)", () => {
  it("takes random text of 32 characters or more, and refuses a short, spaced or repetitive one naming the variable", () => {
    for (const [bytes, encoding] of [
      [16, "hex"],
      [24, "hex"],
      [32, "hex"],
      [24, "base64"],
      [32, "base64url"],
    ] as const) {
      for (let i = 0; i < 300; i++) {
        const key = randomBytes(bytes).toString(encoding);
        expect(loadConfig({ ADMIN_API_KEY: key }).adminApiKey, key).toBe(key);
      }
    }
    expect(loadConfig({ ADMIN_API_KEY: ADMIN_KEY }).adminApiKey).toBe(ADMIN_KEY);
    for (const weak of [
      "test-admin-key-0123456789abcdef", // 31 characters
      "a".repeat(64),
      "ab".repeat(20),
      "passwordpasswordpasswordpassword",
      "changeme-changeme-changeme-changeme",
      "0123456789abcdef0123456789abcdef",
      "abcabcabcabcabcabcXYZXYZXYZXYZXYZ",
      "correct horse battery staple 2024!",
    ])
      expect(() => loadConfig({ ADMIN_API_KEY: weak }), weak).toThrow(/^ADMIN_API_KEY .*openssl rand -hex 24/);
  });
});

describe.runIf(multiInstance)("key revocation across instances (Redis)", () => {
  let a: TestApp;
  let b: TestApp;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ a, b, stop } = await startTwoInstances());
  });
  afterAll(() => stop?.());

  it("stops a revoked key on another instance within a second, not after the cache TTL", async () => {
    const { key, clientId } = await a.createClient();
    expect((await b.rest("GET", "/v2/users", { key })).status).toBe(200); // b now caches the principal
    const keyId = (await a.db.apiKey.findFirstOrThrow({ where: { clientId } })).id;
    expect((await a.rest("DELETE", `/admin/keys/${keyId}`, { key: ADMIN_KEY })).status).toBe(200);
    const revoked = Date.now();
    let status = 200;
    while (status === 200 && Date.now() - revoked < 1000) status = (await b.rest("GET", "/v2/users", { key })).status;
    expect(status).toBe(401);
  });
});

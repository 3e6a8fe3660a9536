/** startTestApp(): the real app on a fresh in-memory PGlite, or on its own PostgreSQL schema. */
import { randomBytes } from "node:crypto";
import { buildApp, type App } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";

export const ADMIN_KEY = "test-admin-key-0123456789abcdef";
/** Every suite runs on PGlite; with DATABASE_URL set (CI) the same suite runs on PostgreSQL too. */
export const backends: ("pglite" | "postgres")[] = ["pglite", ...(process.env.DATABASE_URL ? ["postgres" as const] : [])];

export type TestApp = Awaited<ReturnType<typeof startTestApp>>;
type Call = { key?: string | null; body?: unknown; headers?: Record<string, string> };

export async function startTestApp(backend: "pglite" | "postgres" = "pglite", env: Record<string, string> = {}) {
  const schemaName = `test_${randomBytes(6).toString("hex")}`;
  const config = loadConfig({
    NODE_ENV: "test", DATA_DIR: "memory://", ADMIN_API_KEY: ADMIN_KEY, ENCRYPTION_KEY: randomBytes(32).toString("hex"),
    ...(backend === "postgres" ? { DATABASE_URL: process.env.DATABASE_URL!, DATABASE_SCHEMA: schemaName } : {}),
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    ...env,
  });
  const app: App = await buildApp(config);

  async function rest(method: string, path: string, { key, body, headers = {} }: Call = {}) {
    const res = await app.fetch(path, {
      method,
      headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(body !== undefined && typeof body !== "string" ? { "content-type": "application/json" } : {}), ...headers },
      ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    let json: any = null;
    try { json = text ? JSON.parse(text) : null; } catch { json = text; }
    return { status: res.status, headers: res.headers, body: json };
  }

  async function gql(key: string | null, query: string, variables?: Record<string, unknown>, headers: Record<string, string> = {}) {
    const res = await rest("POST", "/graphql", { key, body: { query, variables }, headers });
    return { ...res, data: res.body?.data, errors: res.body?.errors as { message: string; extensions: Record<string, any> }[] | undefined };
  }

  /** A new API client through the operator REST route; returns its id and key. */
  async function createClient(name = "Test client", scopes?: string[], mode = "SANDBOX") {
    const res = await rest("POST", "/admin/clients", { key: ADMIN_KEY, body: { name, mode, ...(scopes ? { scopes } : {}) } });
    if (res.status !== 201) throw new Error(`createClient: ${res.status} ${JSON.stringify(res.body)}`);
    return { clientId: res.body.client_id as string, key: res.body.api_key as string };
  }

  async function stop() {
    await app.stop();
    if (backend === "postgres") {
      const { default: pg } = await import("pg");
      const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await client.connect();
      await client.query(`drop schema if exists "${schemaName}" cascade`);
      await client.query(`drop schema if exists "${schemaName}_boss" cascade`); // the job engine's (src/jobs)
      await client.end();
    }
  }

  return { app, db: app.services.db, rest, gql, createClient, stop, backend, schemaName: config.databaseSchema };
}

/** Tests of what crosses instances need both a PostgreSQL server and Redis. */
export const multiInstance = !!(process.env.REDIS_URL && process.env.DATABASE_URL);

/** Two app instances on one PostgreSQL schema and one Redis, as behind a load balancer. */
export async function startTwoInstances(env: Record<string, string> = {}) {
  const a = await startTestApp("postgres", env);
  const b = await startTestApp("postgres", { ...env, DATABASE_SCHEMA: a.schemaName! });
  return { a, b, stop: async () => { await b.app.stop(); await a.stop(); } };
}

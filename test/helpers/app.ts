/** startTestApp(): the real app on a fresh in-memory PGlite, or on its own PostgreSQL schema. */
import { randomBytes, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Kind, parse, type OperationDefinitionNode } from "graphql";
import { expect, inject } from "vitest";
import { buildApp, type App } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { useMigratedImage } from "../../src/db/memory-image.js";

// this process's in-memory databases start from the run's migrated image (global-setup.ts), when the run made one
const migratedImage = inject("migratedImage");
if (migratedImage) useMigratedImage(new Blob([readFileSync(migratedImage)]));

export const ADMIN_KEY = "test-operator-key-0123456789abcdefghij";
/** A 1×1 PNG, base64: the smallest identity-document upload the documents routes accept. */
export const PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg==";
/** A PDF of `size` bytes, any size the documents routes take (the padding is a PDF comment). */
export const pdf = (size = 400) => {
  const head = "%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n%";
  const tail = "\ntrailer << /Root 1 0 R >>\n%%EOF\n";
  return Buffer.concat([Buffer.from(head), Buffer.alloc(Math.max(0, size - head.length - tail.length), "x"), Buffer.from(tail)]);
};
/** Every suite runs on PGlite; with DATABASE_URL set (CI) the same suite runs on PostgreSQL too. */
export const backends: ("pglite" | "postgres")[] = ["pglite", ...(process.env.DATABASE_URL ? ["postgres" as const] : [])];

export type TestApp = Awaited<ReturnType<typeof startTestApp>>;

/**
 * How `rest` and `gql` reach the app. `fetch` (default): yoga.fetch, no socket (the lanes of
 * src/server/lanes.ts live in the node handler and are bypassed). `http`: real HTTP through the node
 * handler, lanes included. `compare`: every read (GET, GraphQL query) is sent over HTTP both through
 * the lanes and through yoga alone, and the two answers must be the same (status, headers, body, up
 * to the date and the remaining rate-limit budget); the lane's answer is returned.
 */
const transport = (process.env.TEST_TRANSPORT ?? "fetch") as "fetch" | "http" | "compare";
type Call = { key?: string | null; body?: unknown; headers?: Record<string, string> };

export async function startTestApp(backend: "pglite" | "postgres" = "pglite", env: Record<string, string> = {}) {
  const schemaName = `test_${randomBytes(6).toString("hex")}`;
  const config = loadConfig({
    NODE_ENV: "test",
    DATA_DIR: "memory://",
    ADMIN_API_KEY: ADMIN_KEY,
    ENCRYPTION_KEY: randomBytes(32).toString("hex"),
    ...(backend === "postgres" ? { DATABASE_URL: process.env.DATABASE_URL!, DATABASE_SCHEMA: schemaName } : {}),
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    // over sockets every suite's requests come from one address, the keyless ones of each route's 401 too
    ...(transport !== "fetch" ? { UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: "0" } : {}),
    ...env,
  });
  const app: App = await buildApp(config);
  const servers = transport === "fetch" ? null : await listen(app);

  async function rest(method: string, path: string, { key, body, headers = {} }: Call = {}) {
    const init: { method: string; headers: Record<string, string>; body?: string } = {
      method,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(body !== undefined && typeof body !== "string" ? { "content-type": "application/json" } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
    };
    if (!servers) return answerOf(await app.fetch(path, init));
    if (transport === "compare" && isRead(method, path, init.body) && !init.headers["idempotency-key"]) {
      init.headers["x-request-id"] ??= randomUUID(); // both answers then carry the same id
      const yogaOnly = await answerOf(await fetch(`${servers.yoga}${path}`, init));
      const served = await laneCount(app);
      const lane = await answerOf(await fetch(`${servers.lanes}${path}`, init));
      expect(comparable(lane), `${method} ${path}: the lane and yoga answer alike`).toEqual(comparable(yogaOnly));
      compared.push({ method, path, status: lane.status, byLane: (await laneCount(app)) > served });
      return lane;
    }
    return answerOf(await fetch(`${servers.lanes}${path}`, init));
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
    await servers?.close();
    await app.stop();
    if (backend === "postgres") {
      const { default: pg } = await import("pg");
      const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await client.connect();
      // a drop can meet a lock of a connection the stopped app is still closing (PostgreSQL then
      // picks one side as a deadlock victim): tried again rather than failing the suite
      const drop = async (name: string, tries = 3): Promise<void> => {
        try {
          await client.query(`drop schema if exists "${name}" cascade`);
        } catch (error) {
          if ((error as { code?: string }).code !== "40P01" || tries <= 1) throw error;
          await new Promise((resolve) => setTimeout(resolve, 200));
          return drop(name, tries - 1);
        }
      };
      await drop(schemaName!);
      await drop(`${schemaName}_boss`); // the job engine's (src/platform/jobs.ts)
      await client.end();
    }
  }

  /** Waits until the background checks have nothing queued or running (tests that count queries or rows). */
  async function checksSettled(ms = 30_000) {
    const busy = async () =>
      (await app.services.db.checkRun.count({ where: { status: { in: ["QUEUED", "RUNNING"] } } }))
      + (await app.services.db.event.count({ where: { publishedAt: null } })); // the last run's events are published after its commit
    for (const until = Date.now() + ms; await busy(); ) {
      if (Date.now() > until) throw new Error("background checks still running");
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 200)); // what the last commit set off (its publish) has finished
  }

  return { app, db: app.services.db, rest, gql, createClient, stop, backend, schemaName: config.databaseSchema, checksSettled, servers };
}

/** Tests of what crosses instances need both a PostgreSQL server and Redis. */
export const multiInstance = !!(process.env.REDIS_URL && process.env.DATABASE_URL);

/** Two app instances on one PostgreSQL schema and one Redis, as behind a load balancer. */
export async function startTwoInstances(env: Record<string, string> = {}) {
  // one encryption key, as for every instance of one service: what one encrypts (a webhook secret) the other reads
  const shared = { ENCRYPTION_KEY: randomBytes(32).toString("hex"), ...env };
  const a = await startTestApp("postgres", shared);
  const b = await startTestApp("postgres", { ...shared, DATABASE_SCHEMA: a.schemaName! });
  return {
    a,
    b,
    stop: async () => {
      await b.app.stop();
      await a.stop();
    },
  };
}

type Answer = { status: number; headers: Headers; body: any };

async function answerOf(res: Response): Promise<Answer> {
  const text = await res.text();
  let json: any = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = text;
  }
  return { status: res.status, headers: res.headers, body: json };
}

/** The app's own node handler (lanes, then yoga), and beside it a server that hands everything to yoga. */
async function listen(app: App) {
  const port = await app.start(0, "127.0.0.1");
  const yogaOnly = createServer((req, res) => void app.yoga(req, res));
  await new Promise<void>((resolve) => yogaOnly.listen(0, "127.0.0.1", resolve));
  return {
    lanes: `http://127.0.0.1:${port}`,
    yoga: `http://127.0.0.1:${(yogaOnly.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        yogaOnly.close(() => resolve());
        yogaOnly.closeAllConnections();
      }),
  };
}

/** A GET, or a GraphQL POST whose operations are all queries: sending it twice changes nothing. */
function isRead(method: string, path: string, body: unknown) {
  if (method === "GET") return true;
  if (method !== "POST" || !path.startsWith("/graphql") || typeof body !== "string") return false;
  try {
    const { query } = JSON.parse(body) as { query?: string };
    const operations = parse(query ?? "").definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
    return operations.length > 0 && operations.every((o) => o.operation === "query");
  } catch {
    return true;
  } // a document that does not parse is refused alike by both, and changes nothing
}

const VOLATILE_HEADERS = new Set(["date", "connection", "keep-alive", "ratelimit-remaining", "ratelimit-reset", "retry-after"]);

/** An answer without what differs between any two requests: the date, the budget left, a timestamp, an errorId. */
function comparable({ status, headers, body }: Answer) {
  const kept = [...headers].filter(([name]) => !VOLATILE_HEADERS.has(name));
  const text = JSON.stringify(body)
    .replace(/"timestamp":"[^"]*"/g, '"timestamp":"…"')
    .replace(/"now":"[^"]*"/g, '"now":"…"') // a clock read twice
    .replace(/(errorId[" :]+)[0-9a-f-]{36}/gi, "$1…")
    .replace(/("error_id":")[0-9a-f-]{36}/g, "$1…")
    .replace(/retry in \d+ s/g, "retry in … s");
  return { status, headers: Object.fromEntries(kept), body: JSON.parse(text) };
}

/** Every read compared in this worker (TEST_TRANSPORT=compare), and whether a lane answered it. */
export const compared: { method: string; path: string; status: number; byLane: boolean }[] = [];

async function laneCount(app: App) {
  const metric = await app.metrics.registry.getSingleMetric("http_lane_requests_total")?.get();
  return (metric?.values ?? []).reduce((sum, v) => sum + v.value, 0);
}

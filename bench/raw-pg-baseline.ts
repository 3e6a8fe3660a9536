/**
 * The ceiling for bench/users-read.ts: node:http + pg doing, for each bench row, the least work the
 * same answer needs (key hash looked up once and kept, tenant check, JSON body), no framework, no
 * audit or events. Same DATABASE_URL/DATABASE_SCHEMA as the app; answers `{port}` over IPC.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import pg from "pg";

const schema = process.env.DATABASE_SCHEMA!;
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10, options: `-c search_path="${schema}"` });
const keys = new Map<string, string | null>();

async function clientOf(key: string) {
  const hash = createHash("sha256").update(key).digest("hex");
  if (!keys.has(hash))
    keys.set(hash, (await pool.query("select client_id from api_keys where hash = $1 and revoked_at is null", [hash])).rows[0]?.client_id ?? null);
  return keys.get(hash);
}

const json = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
const withoutSecret = ({ tax_id_encrypted: _t, ...user }: Record<string, unknown>) => user;

async function readJson(req: IncomingMessage) {
  let text = "";
  for await (const chunk of req) text += chunk;
  return JSON.parse(text) as Record<string, string>;
}

/** `users(first: 100) { … documents … checks }` without GraphQL: the page, its count, the two relations */
async function listUsers(clientId: string) {
  const [page, count] = await Promise.all([
    pool.query("select * from users where client_id = $1 order by created_at desc, id desc limit 100", [clientId]),
    pool.query("select count(*)::int as n from users where client_id = $1", [clientId]),
  ]);
  const ids = page.rows.map((u) => u.id);
  const [documents, checks] = await Promise.all([
    pool.query(
      "select id, user_id, document_type, status, issuing_country, created_at from documents where user_id = any($1) and status <> 'DELETED' order by created_at desc",
      [ids],
    ),
    pool.query("select id, user_id, type, status, trigger, created_at from check_runs where user_id = any($1) order by created_at desc", [ids]),
  ]);
  const of = (rows: Record<string, unknown>[], id: unknown) => rows.filter((r) => r.user_id === id);
  return { total: count.rows[0].n, data: page.rows.map((u) => ({ ...withoutSecret(u), documents: of(documents.rows, u.id), checks: of(checks.rows, u.id) })) };
}

const server = createServer((req, res) => {
  handle(req, res).catch((error: Error) => {
    if (!res.headersSent) json(res, 500, { error: error.message });
  });
});

async function handle(req: IncomingMessage, res: ServerResponse) {
  const clientId = await clientOf((req.headers.authorization ?? "").slice(7));
  if (!clientId) return json(res, 401, {});
  const url = new URL(req.url!, "http://raw");
  if (req.method === "POST" && url.pathname === "/v2/users") {
    const body = await readJson(req);
    const { rows } = await pool.query(
      "insert into users (id, client_id, first_name, last_name, email, email_key, updated_at) values (gen_random_uuid(), $1, $2, $3, $4, lower($4), now()) returning *",
      [clientId, body.first_name, body.last_name, body.email],
    );
    return json(res, 201, withoutSecret(rows[0]));
  }
  if (req.method === "PUT" && url.pathname.startsWith("/v2/users/")) {
    // the bench's update: the names given, a new version (the app's ETag) and updated_at; no checks
    const body = await readJson(req);
    const { rows } = await pool.query(
      "update users set first_name = coalesce($3, first_name), last_name = coalesce($4, last_name), version = version + 1, updated_at = now() where id = $1 and client_id = $2 returning *",
      [url.pathname.split("/")[3], clientId, body.first_name ?? null, body.last_name ?? null],
    );
    return rows[0] ? json(res, 200, withoutSecret(rows[0])) : json(res, 404, {});
  }
  if (url.pathname === "/v2/users") return json(res, 200, await listUsers(clientId));
  if (url.pathname.startsWith("/v2/users/")) {
    const { rows } = await pool.query("select * from users where id = $1 and client_id = $2", [url.pathname.split("/")[3], clientId]);
    return rows[0] ? json(res, 200, withoutSecret(rows[0])) : json(res, 404, {});
  }
  if (url.pathname === "/payouts/remittances/utilities/currencies") {
    const [page, count] = await Promise.all([
      pool.query("select code, name, minor_units, symbol, status from currencies where status = 'ACTIVE' order by code limit 50"),
      pool.query("select count(*)::int as n from currencies where status = 'ACTIVE'"),
    ]);
    return json(res, 200, { total_records: count.rows[0].n, data: page.rows });
  }
  json(res, 404, {});
}

server.listen(0, "127.0.0.1", () => process.send?.({ port: (server.address() as { port: number }).port }));
process.on("SIGTERM", () => {
  server.close();
  void pool.end();
  process.exit(0);
});

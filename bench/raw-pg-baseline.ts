/**
 * The ceiling: node:http + pg reading the same user by id, with the same work a real read needs
 * (API key hash lookup cached in memory, tenant check, JSON body). No framework.
 */
import { createHash } from "node:crypto";
import { createServer } from "node:http";
import pg from "pg";

const schema = process.env.DATABASE_SCHEMA!;
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10, options: `-c search_path="${schema}"` });
const keys = new Map<string, string | null>();

async function clientOf(key: string) {
  const hash = createHash("sha256").update(key).digest("hex");
  if (!keys.has(hash)) keys.set(hash, (await pool.query("select client_id from api_keys where hash = $1 and revoked_at is null", [hash])).rows[0]?.client_id ?? null);
  return keys.get(hash);
}

const server = createServer(async (req, res) => {
  const clientId = await clientOf((req.headers.authorization ?? "").slice(7));
  if (!clientId) { res.writeHead(401).end(); return; }
  const id = req.url!.split("/")[3];
  const { rows } = await pool.query("select * from users where id = $1 and client_id = $2", [id, clientId]);
  if (!rows[0]) { res.writeHead(404).end(); return; }
  const { tax_id_encrypted: _t, ...user } = rows[0];
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(user));
});
server.listen(0, "127.0.0.1", () => process.send?.({ port: (server.address() as { port: number }).port }));
process.on("SIGTERM", () => { server.close(); pool.end(); process.exit(0); });

/**
 * One 1 MB document upload under light load: `npx tsx bench/document-upload.ts`. For each store
 * (embedded PGlite + files under a temporary DATA_DIR; PostgreSQL + the blob table; PostgreSQL +
 * files) the real app runs in a child process (bench/serve-app.ts) while autocannon keeps a light
 * background load of user reads (BENCH_BACKGROUND connections, default 2); this process uploads a
 * 1 MB PDF BENCH_UPLOADS times (default 30) one after another through REST (base64 JSON) and
 * GraphQL (multipart), then downloads it. Prints one JSON row per case; figures go to
 * bench/RESULTS.md by hand. PostgreSQL cases need BENCH_DATABASE_URL (default the local server).
 */
import { fork, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import pg from "pg";

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const uploads = Number(process.env.BENCH_UPLOADS ?? 30);
const background = Number(process.env.BENCH_BACKGROUND ?? 2);
const SIZE = 1_000_000;

const head = "%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n%";
const tail = "\ntrailer << /Root 1 0 R >>\n%%EOF\n";
const PDF = Buffer.concat([Buffer.from(head), randomBytes(SIZE - head.length - tail.length).map((b) => 0x41 + (b % 26)), Buffer.from(tail)]);

function spawn(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; info: { port: number; apiKey: string; userId: string } }> {
  const child = fork(path.join(import.meta.dirname, "serve-app.ts"), { env, execArgv: ["--import", "tsx"] });
  return new Promise((resolve, reject) => {
    child.once("message", (info) => resolve({ child, info: info as never }));
    child.once("exit", reject);
  });
}

const stats = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => Math.round(s[Math.min(s.length - 1, Math.floor(q * s.length))] * 10) / 10;
  return { p50: at(0.5), p95: at(0.95), min: at(0) };
};

async function timed(n: number, fn: () => Promise<Response>) {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const res = await fn();
    await res.arrayBuffer();
    if (res.status >= 300) throw new Error(`status ${res.status}`);
    ms.push(performance.now() - t0);
  }
  return stats(ms);
}

async function measure(title: string, env: NodeJS.ProcessEnv) {
  const { child, info } = await spawn(env);
  const url = `http://127.0.0.1:${info.port}`;
  const auth = { authorization: `Bearer ${info.apiKey}` };
  const load = autocannon({ url: `${url}/v2/users/${info.userId}`, headers: auth, connections: background, duration: 3600 });
  const restBody = JSON.stringify({
    user_id: info.userId,
    document_type: "PROOF_OF_ADDRESS",
    file: { file_name: "bill.pdf", content_base64: PDF.toString("base64") },
  });
  const rest = await timed(uploads, () =>
    fetch(`${url}/v2/users/authentications/documents`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: restBody }),
  );
  const query = "mutation($input: UploadDocumentInput!) { uploadDocument(input: $input) { id } }";
  let lastId = "";
  const gql = await timed(uploads, async () => {
    const form = new FormData();
    form.set("operations", JSON.stringify({ query, variables: { input: { userId: info.userId, documentType: "PROOF_OF_ADDRESS", file: { upload: null } } } }));
    form.set("map", JSON.stringify({ 0: ["variables.input.file.upload"] }));
    form.set("0", new File([PDF], "bill.pdf", { type: "application/pdf" }));
    const res = await fetch(`${url}/graphql`, { method: "POST", headers: { ...auth, "x-graphql-yoga-csrf": "1" }, body: form });
    lastId = (await res.clone().json()).data.uploadDocument.id;
    return res;
  });
  const download = await timed(uploads, () => fetch(`${url}/v2/users/authentications/documents/${lastId}/file`, { headers: auth }));
  (load as unknown as { stop(): void }).stop(); // the instance is a promise that also stops
  const background_rps = Math.round((await load).requests.average);
  console.log(
    JSON.stringify({
      title,
      bytes: SIZE,
      uploads,
      rest_upload_ms: rest,
      graphql_multipart_upload_ms: gql,
      download_ms: download,
      background_connections: background,
      background_rps,
    }),
  );
  child.kill("SIGTERM");
  await new Promise((r) => child.once("exit", r));
}

const base = { ...process.env, NODE_ENV: "production", REDIS_URL: "", RATE_LIMIT_PER_MINUTE: "0", LOG_LEVEL: "warn" };
const dataDir = await mkdtemp(path.join(tmpdir(), "bench-docs-"));
await measure("PGlite, file store", { ...base, DATA_DIR: dataDir, DATABASE_URL: "" });
await rm(dataDir, { recursive: true, force: true });
for (const store of ["database", "file"]) {
  const schema = `bench_${randomBytes(4).toString("hex")}`;
  const dir = await mkdtemp(path.join(tmpdir(), "bench-docs-"));
  await measure(`PostgreSQL, ${store} store`, {
    ...base,
    DATA_DIR: dir,
    DATABASE_URL,
    DATABASE_SCHEMA: schema,
    ENCRYPTION_KEY: randomBytes(32).toString("hex"),
    DOCUMENT_STORE: store,
  });
  await rm(dir, { recursive: true, force: true });
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`drop schema "${schema}" cascade`);
  await admin.end();
}
process.exit(0);

import { createHash, randomUUID } from "node:crypto";
import { POLL_MARKER } from "../compliance/compliance.service.js";
import { existsSync } from "node:fs";
import { mkdir, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pdf, startTestApp, type TestApp } from "../../../test/helpers/app.js";
import { ConfigError, loadConfig } from "../../config.js";
import { MAX_DOCUMENT_BYTES } from "./documents.rules.js";
import { fileStore } from "./documents.storage.js";

/** A real 1×1 PNG. */
const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a2d6c9a90000000049454e44ae426082",
  "hex",
);
const sha = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");
const b64 = (bytes: Buffer) => bytes.toString("base64");

const passport = (userId: string, file: Buffer = PNG, extra: Record<string, unknown> = {}) => ({
  user_id: userId,
  document_type: "PASSPORT",
  document_number: "E1234567",
  issuing_country: "SGP",
  issue_date: "2020-01-15",
  expiry_date: "2030-01-14",
  file: { file_name: "passport.png", mime_type: "image/png", content_base64: b64(file) },
  ...extra,
});

const DOC_GQL = "id userId documentType status documentNumber issuingCountry issueDate expiryDate file { fileName mimeType sizeBytes sha256 } deletedAt";
const UPLOAD = `mutation($input: UploadDocumentInput!) { uploadDocument(input: $input) { ${DOC_GQL} } }`;

describe("DOCUMENT_STORE", () => {
  it("defaults to files on the embedded database and to the table with DATABASE_URL, and refuses anything else at start", () => {
    expect(loadConfig({}).documentStore).toBe("file");
    expect(loadConfig({ DATABASE_URL: "postgresql://db/x", ENCRYPTION_KEY: "a".repeat(64) }).documentStore).toBe("database");
    expect(loadConfig({ DOCUMENT_STORE: "database" }).documentStore).toBe("database");
    expect(() => loadConfig({ DOCUMENT_STORE: "s3" })).toThrow(ConfigError);
    expect(() => loadConfig({ DOCUMENT_STORE: "s3" })).toThrow(/DOCUMENT_STORE/);
  });
});

const setups: { backend: "pglite" | "postgres"; store: "file" | "database" }[] = [
  { backend: "pglite", store: "file" },
  { backend: "pglite", store: "database" },
  ...(process.env.DATABASE_URL
    ? [
        { backend: "postgres" as const, store: "database" as const },
        { backend: "postgres" as const, store: "file" as const },
      ]
    : []),
];

describe.each(setups)("documents on $backend with the $store store", ({ backend, store }) => {
  let t: TestApp;
  let key: string;
  let clientId: string;
  let other: string;
  let userId: string;
  const base = "/v2/users/authentications/documents";
  const newUser = async (k = key) =>
    (await t.rest("POST", "/v2/users", { key: k, body: { first_name: "Dee", last_name: "Oh", email: `${randomUUID()}@example.com` } })).body.user_id as string;
  const storageKeyOf = async (id: string) => (await t.db.document.findUniqueOrThrow({ where: { id } })).storageKey;

  /** A GraphQL multipart request (github.com/jaydenseric/graphql-multipart-request-spec) with one file at variables.input.file.upload. */
  async function gqlUpload(k: string, query: string, input: Record<string, unknown>, bytes: Buffer, name: string, type: string) {
    const form = new FormData();
    form.set("operations", JSON.stringify({ query, variables: { input: { ...input, file: { ...(input.file as object), upload: null } } } }));
    form.set("map", JSON.stringify({ 0: ["variables.input.file.upload"] }));
    form.set("0", new File([new Uint8Array(bytes)], name, { type }));
    const res = await t.app.fetch("/graphql", { method: "POST", headers: { authorization: `Bearer ${k}`, "x-graphql-yoga-csrf": "1" }, body: form });
    return { status: res.status, ...(await res.json()) } as { status: number; data: any; errors?: { message: string; extensions: Record<string, any> }[] };
  }

  beforeAll(async () => {
    t = await startTestApp(backend, { DOCUMENT_STORE: store });
    ({ key, clientId } = await t.createClient("Docs"));
    other = (await t.createClient("Other")).key;
    userId = await newUser();
  });
  afterAll(() => t?.stop());

  it("uses the store it was configured with", () => {
    expect(t.app.services.documentStore.kind).toBe(store);
  });

  it("uploads a PNG as base64 on REST: 201, number masked, type and SHA-256 from the bytes, and serves the bytes back", async () => {
    const res = await t.rest("POST", base, { key, body: passport(userId) });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      user_id: userId,
      document_type: "PASSPORT",
      status: "ACTIVE",
      document_number: "****4567",
      issuing_country: "SG",
      issue_date: "2020-01-15",
      expiry_date: "2030-01-14",
      deleted_at: null,
      file: { file_name: "passport.png", mime_type: "image/png", size_bytes: PNG.length, sha256: sha(PNG) },
    });
    expect(JSON.stringify(res.body)).not.toContain("E1234567");
    const row = await t.db.document.findUniqueOrThrow({ where: { id: res.body.document_id } });
    expect(row.documentNumberCiphertext).not.toContain("E1234567");
    expect(t.app.services.cipher.decrypt(row.documentNumberCiphertext!)).toBe("E1234567");

    const file = await t.app.fetch(`${base}/${res.body.document_id}/file`, { headers: { authorization: `Bearer ${key}` } });
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("image/png");
    expect(file.headers.get("content-disposition")).toContain('filename="passport.png"');
    expect(Buffer.from(await file.arrayBuffer()).equals(PNG)).toBe(true);
  });

  it("uploads a PDF through the GraphQL multipart request spec and reads it back through GraphQL", async () => {
    const bytes = pdf(5000);
    const res = await gqlUpload(key, UPLOAD, { userId, documentType: "PROOF_OF_ADDRESS", file: {} }, bytes, "bill.pdf", "application/pdf");
    expect(res.errors).toBeUndefined();
    const doc = res.data.uploadDocument;
    expect(doc).toMatchObject({
      userId,
      documentType: "PROOF_OF_ADDRESS",
      status: "ACTIVE",
      documentNumber: null,
      file: { fileName: "bill.pdf", mimeType: "application/pdf", sizeBytes: 5000, sha256: sha(bytes) },
    });
    const read = await t.gql(key, `query($id: ID!) { document(id: $id) { id file { contentBase64 } } documentFile(id: $id) { mimeType contentBase64 } }`, {
      id: doc.id,
    });
    expect(Buffer.from(read.data.document.file.contentBase64, "base64").equals(bytes)).toBe(true);
    expect(read.data.documentFile.mimeType).toBe("application/pdf");
  });

  it("uploads through GraphQL with base64 too, and REST and GraphQL show the same document", async () => {
    const res = await t.gql(key, UPLOAD, {
      input: { userId, documentType: "NATIONAL_ID", documentNumber: "S-8877-665A", issuingCountry: "MY", file: { contentBase64: b64(PNG) } },
    });
    expect(res.errors).toBeUndefined();
    expect(res.data.uploadDocument).toMatchObject({
      documentNumber: "****665A",
      issuingCountry: "MY",
      file: { fileName: "document.png", mimeType: "image/png" },
    });
    const rest = await t.rest("GET", `${base}/${res.data.uploadDocument.id}`, { key });
    expect(rest.body).toMatchObject({ document_id: res.data.uploadDocument.id, document_number: "****665A", file: { file_name: "document.png" } });
  });

  it("answers 415 to bytes that are not PDF, JPEG or PNG, whatever they claim, on both transports, and stores nothing", async () => {
    const before = await t.db.document.count();
    const gif = Buffer.from("47494638396101000100800000000000ffffff21f90401000000002c00000000010001000002024401003b", "hex");
    for (const bytes of [Buffer.from("just some text, not a scan"), gif]) {
      const rest = await t.rest("POST", base, { key, body: passport(userId, bytes) });
      expect(rest.status).toBe(415);
      expect(rest.body.code).toBe("UNSUPPORTED_MEDIA_TYPE");
      const gql = await gqlUpload(key, UPLOAD, { userId, documentType: "SELFIE", file: {} }, bytes, "me.png", "image/png");
      expect(gql.errors?.[0].extensions.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    }
    const lying = await t.rest("POST", base, {
      key,
      body: passport(userId, pdf(), { file: { file_name: "x.png", mime_type: "image/png", content_base64: b64(pdf()) } }),
    });
    expect(lying.status).toBe(415);
    expect(lying.body.detail).toContain("application/pdf");
    expect(await t.db.document.count()).toBe(before);
  });

  it("answers 413 to a file over 10 MiB on REST and on GraphQL multipart, while other routes keep the 1 MiB body limit", async () => {
    const big = pdf(MAX_DOCUMENT_BYTES + 1);
    const rest = await t.rest("POST", base, { key, body: passport(userId, big) });
    expect(rest.status).toBe(413);
    expect(rest.body.code).toBe("PAYLOAD_TOO_LARGE");
    const gql = await gqlUpload(key, UPLOAD, { userId, documentType: "OTHER", file: {} }, big, "big.pdf", "application/pdf");
    expect(gql.errors?.[0].extensions.code).toBe("PAYLOAD_TOO_LARGE");
    // exactly 10 MiB is accepted
    const max = await t.rest("POST", base, {
      key,
      body: { user_id: userId, document_type: "OTHER", file: { mime_type: "application/pdf", content_base64: b64(pdf(MAX_DOCUMENT_BYTES)) } },
    });
    expect(max.status).toBe(201);
    expect(max.body.file.size_bytes).toBe(MAX_DOCUMENT_BYTES);
    // the upload allowance is the documents routes' own: a user body of 2 MiB is still refused
    const user = await t.rest("POST", "/v2/users", { key, body: { first_name: "x".repeat(2 * 1024 * 1024) } });
    expect(user.status).toBe(413);
    const json = await t.rest("POST", "/graphql", { key, body: { query: "{ __typename }", variables: { pad: "x".repeat(2 * 1024 * 1024) } } });
    expect(json.status).toBe(413);
  }, 60_000);

  it("checks the fields: an identity document needs its number and issuing country, dates must be real and ordered", async () => {
    const res = await t.rest("POST", base, { key, body: passport(userId, PNG, { document_number: null, issuing_country: "XX", expiry_date: "2019-01-01" }) });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(["issuing_country"]);
    const missing = await t.rest("POST", base, { key, body: passport(userId, PNG, { document_number: null, expiry_date: "2019-01-01" }) });
    expect(missing.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(["document_number", "expiry_date"]);
    const bad64 = await t.rest("POST", base, { key, body: passport(userId, PNG, { file: { content_base64: "not base64!" } }) });
    expect(bad64.status).toBe(400);
    expect(bad64.body.errors[0].field).toBe("file.content_base64");
    expect(JSON.stringify([res.body, missing.body])).not.toContain("E1234567");
  });

  it("updates partially with PUT (document_id in the body), replacing the bytes and erasing the old ones", async () => {
    const created = (await t.rest("POST", base, { key, body: passport(userId) })).body;
    const oldKey = (await storageKeyOf(created.document_id))!;
    const bytes = pdf(1234);
    const res = await t.rest("PUT", base, {
      key,
      body: { document_id: created.document_id, document_number: "K99887766", file: { file_name: "scan.pdf", content_base64: b64(bytes) } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      document_id: created.document_id,
      document_number: "****7766",
      issuing_country: "SG",
      file: { file_name: "scan.pdf", mime_type: "application/pdf", sha256: sha(bytes) },
    });
    expect(await t.app.services.documentStore.read(oldKey)).toBeNull();
    expect((await t.app.services.documentStore.read((await storageKeyOf(created.document_id))!))!.equals(bytes)).toBe(true);
    const cleared = await t.gql(key, `mutation($input: UpdateDocumentInput!) { updateDocument(input: $input) { expiryDate documentNumber } }`, {
      input: { id: created.document_id, expiryDate: null },
    });
    expect(cleared.data.updateDocument).toEqual({ expiryDate: null, documentNumber: "****7766" });
    const unset = await t.rest("PUT", base, { key, body: { document_id: created.document_id, document_number: null } });
    expect(unset.status).toBe(400);
    expect(unset.body.errors[0].field).toBe("document_number");
  });

  it("lists in the envelope with masked numbers, filtered by user_id, and never with bytes", async () => {
    const u = await newUser();
    await t.rest("POST", base, { key, body: passport(u) });
    await t.rest("POST", base, {
      key,
      body: passport(u, pdf(), { document_type: "DRIVING_LICENSE", document_number: "DL-000-1234", file: { content_base64: b64(pdf()) } }),
    });
    const res = await t.rest("GET", `${base}?user_id=${u}&records_per_page=1`, { key });
    expect(res.status).toBe(200);
    expect(res.body.pagination).toMatchObject({ page: 1, records_per_page: 1, total_records: 2, total_pages: 2 });
    expect(res.body.pagination.links.next).toContain(`user_id=${u}`);
    expect(res.body.data[0]).toMatchObject({ user_id: u, document_type: "DRIVING_LICENSE", document_number: "****1234" });
    expect(res.body.data[0].file.content_base64).toBeUndefined();
    const all = await t.rest("GET", `${base}?user_id=${u}&document_type=PASSPORT`, { key });
    expect(all.body.data.map((d: { document_number: string }) => d.document_number)).toEqual(["****4567"]);
    const gql = await t.gql(
      key,
      `query($u: ID!) { documents(userId: $u) { totalCount edges { node { documentNumber } } } user(id: $u) { documents { documentNumber } } }`,
      { u },
    );
    expect(gql.data.documents.totalCount).toBe(2);
    expect(gql.data.user.documents.map((d: { documentNumber: string }) => d.documentNumber)).toEqual(["****1234", "****4567"]);
  });

  it("shows EXPIRED past the expiry date (derived on read) and filters by it", async () => {
    const u = await newUser();
    const res = await t.rest("POST", base, { key, body: passport(u, PNG, { issue_date: "2010-01-01", expiry_date: "2020-01-01" }) });
    expect(res.body.status).toBe("EXPIRED");
    await t.rest("POST", base, { key, body: passport(u) });
    const expired = await t.rest("GET", `${base}?user_id=${u}&status=EXPIRED`, { key });
    expect(expired.body.data.map((d: { document_id: string }) => d.document_id)).toEqual([res.body.document_id]);
    const active = await t.rest("GET", `${base}?user_id=${u}&status=ACTIVE`, { key });
    expect(active.body.data).toHaveLength(1);
    expect(active.body.data[0].status).toBe("ACTIVE");
  });

  it("DELETE erases the bytes and keeps the record DELETED with an audit entry; a second DELETE is 404", async () => {
    const created = (await t.rest("POST", base, { key, body: passport(userId) })).body;
    const id = created.document_id;
    const storageKey = (await storageKeyOf(id))!;
    expect(await t.app.services.documentStore.read(storageKey)).not.toBeNull();
    const first = await t.rest("DELETE", `${base}/${id}`, { key });
    expect(first.status).toBe(204);
    expect(first.body).toBeNull();
    const second = await t.rest("DELETE", `${base}/${id}`, { key });
    expect(second.status).toBe(404);
    expect(second.body.code).toBe("NOT_FOUND");

    // the bytes are gone from the store: no blob row, no file
    expect(await t.app.services.documentStore.read(storageKey)).toBeNull();
    expect(await t.db.documentBlob.count({ where: { key: storageKey } })).toBe(0);
    const dir = (t.app.services.documentStore as { dir?: string }).dir;
    if (store === "file") expect(existsSync(path.join(dir!, storageKey.slice(0, 2), storageKey))).toBe(false);

    expect((await t.rest("GET", `${base}/${id}/file`, { key })).status).toBe(404);
    const kept = await t.rest("GET", `${base}/${id}`, { key });
    expect(kept.body).toMatchObject({ status: "DELETED", document_number: "****4567", file: { sha256: sha(PNG) } });
    expect(kept.body.deleted_at).toBeTruthy();
    const audit = await t.db.auditEntry.findMany({ where: { targetType: "document", targetId: id }, orderBy: { createdAt: "asc" } });
    expect(audit.map((a) => a.action)).toEqual(["document.uploaded", "document.deleted"]);
    expect(audit[1].clientId).toBe(clientId);
    const listed = await t.rest("GET", `${base}?user_id=${userId}&records_per_page=100`, { key });
    expect(listed.body.data.map((d: { document_id: string }) => d.document_id)).not.toContain(id);
    const deleted = await t.rest("GET", `${base}?user_id=${userId}&status=DELETED`, { key });
    expect(deleted.body.data.map((d: { document_id: string }) => d.document_id)).toContain(id);
    expect((await t.rest("PUT", base, { key, body: { document_id: id, document_number: "X1" } })).status).toBe(404);

    const viaGql = await t.gql(key, `mutation($input: DeleteDocumentInput!) { deleteDocument(input: $input) { id } }`, { input: { id } });
    expect(viaGql.errors?.[0].extensions.code).toBe("NOT_FOUND");
  });

  it("deletes through GraphQL, returning the DELETED record", async () => {
    const created = (await t.rest("POST", base, { key, body: passport(userId) })).body;
    const res = await t.gql(key, `mutation($input: DeleteDocumentInput!) { deleteDocument(input: $input) { id status deletedAt file { contentBase64 } } }`, {
      input: { id: created.document_id },
    });
    expect(res.data.deleteDocument).toMatchObject({ id: created.document_id, status: "DELETED", file: { contentBase64: null } });
  });

  it("announces each change as a document.changed event after commit", async () => {
    const events = t.app.services.events.subscribe("document.changed", clientId);
    const next = events.next();
    const created = (await t.rest("POST", base, { key, body: passport(userId) })).body;
    expect((await next).value).toEqual({ documentId: created.document_id, userId, change: "uploaded" });
    await events.return?.();
  });

  it("answers 404 on every route for another client's user or document, and 403 without the documents scopes", async () => {
    const doc = (await t.rest("POST", base, { key, body: passport(userId) })).body.document_id;
    const calls = [
      await t.rest("POST", base, { key: other, body: passport(userId) }),
      await t.rest("PUT", base, { key: other, body: { document_id: doc, document_number: "X12345" } }),
      await t.rest("GET", `${base}?user_id=${userId}`, { key: other }),
      await t.rest("GET", `${base}/${doc}`, { key: other }),
      await t.rest("GET", `${base}/${doc}/file`, { key: other }),
      await t.rest("DELETE", `${base}/${doc}`, { key: other }),
    ];
    expect(calls.map((c) => c.status)).toEqual([404, 404, 404, 404, 404, 404]);
    const gql = await t.gql(other, `query($id: ID!) { document(id: $id) { id } }`, { id: doc });
    expect(gql.errors?.[0].extensions.code).toBe("NOT_FOUND");
    const upload = await gqlUpload(other, UPLOAD, { userId, documentType: "SELFIE", file: {} }, PNG, "me.png", "image/png");
    expect(upload.errors?.[0].extensions.code).toBe("NOT_FOUND");
    expect((await t.rest("GET", base, { key: other })).body.data).toEqual([]);
    // nothing of it changed
    expect((await t.rest("GET", `${base}/${doc}/file`, { key })).status).toBe(200);

    const usersOnly = (await t.createClient("Users only", ["users:read", "users:write"])).key;
    expect((await t.rest("GET", base, { key: usersOnly })).status).toBe(403);
    expect((await t.rest("POST", base, { key: usersOnly, body: passport(userId) })).status).toBe(403);
    const ownUser = await newUser(usersOnly);
    const noDocs = await t.gql(usersOnly, `query($id: ID!) { user(id: $id) { id documents { id } } }`, { id: ownUser });
    expect(noDocs.errors?.[0].extensions.code).toBe("FORBIDDEN");
    const docsOnly = (await t.createClient("Documents only", ["users:write", "documents:read", "documents:write"])).key;
    const ownDoc = (await t.rest("POST", base, { key: docsOnly, body: passport(await newUser(docsOnly)) })).body.document_id;
    const noUser = await t.gql(docsOnly, `query($id: ID!) { document(id: $id) { id user { email } } }`, { id: ownDoc });
    expect(noUser.errors?.[0].extensions.code).toBe("FORBIDDEN");
  });

  it("lists 100 users with their documents in a fixed number of SQL statements", async () => {
    // an instance that works no jobs: the ~300 check runs these users and uploads queue would add their statements to the count
    const q = await startTestApp(backend, { DOCUMENT_STORE: store, JOBS: "0" });
    try {
      const { key: k } = await q.createClient("Many");
      const ids: string[] = [];
      for (let i = 0; i < 100; i += 10)
        ids.push(
          ...(await Promise.all(
            Array.from(
              { length: 10 },
              async () =>
                (
                  await q.rest("POST", "/v2/users", { key: k, body: { first_name: "Dee", last_name: "Oh", email: `${randomUUID()}@example.com` } })
                ).body.user_id as string,
            ),
          )),
        );
      for (let i = 0; i < 100; i += 10) await Promise.all(ids.slice(i, i + 10).map((u) => q.rest("POST", base, { key: k, body: passport(u) })));
      const query = (n: number) => `{ users(first: ${n}) { edges { node { id documents { id status documentNumber } } } } }`;
      await q.gql(k, query(1)); // warm
      // the rule-set version check may ride along on any request (compliance.service.ts): not this list's own
      const own = async <T>(fn: () => Promise<T>) => {
        const r = await q.app.database.countQueries(fn);
        return { ...r, queries: r.queries.filter((x) => !x.includes(POLL_MARKER)) };
      };
      const small = await own(() => q.gql(k, query(2)));
      const large = await own(() => q.gql(k, query(100)));
      expect(large.result.errors).toBeUndefined();
      const nodes = large.result.data.users.edges.map((e: { node: { documents: unknown[] } }) => e.node);
      expect(nodes).toHaveLength(100);
      expect(nodes.every((n: { documents: unknown[] }) => n.documents.length === 1)).toBe(true);
      // users, their count, documents
      expect(large.queries.length).toBeLessThanOrEqual(3);
      expect(large.queries.length).toBe(small.queries.length);
      const list = await own(() => q.rest("GET", `${base}?records_per_page=100`, { key: k }));
      expect(list.result.body.data).toHaveLength(100);
      expect(list.queries.length).toBeLessThanOrEqual(2);
    } finally {
      await q.stop();
    }
  }, 120_000);

  it.runIf(store === "file")("leaves no file behind when the transaction fails, and the sweep removes unreferenced files", async () => {
    const docStore = t.app.services.documentStore as ReturnType<typeof fileStore>;
    const ctx = {
      ...t.app.services,
      principal: { kind: "client" as const, clientId, keyId: "test", mode: "SANDBOX" as const, scopes: new Set<string>() },
      requestId: "test",
    };
    const storageKey = "00000000-1111-4222-8333-444444444444";
    await expect(
      docStore.transact(ctx, { put: { key: storageKey, bytes: PNG } }, async () => {
        throw new Error("database write failed");
      }),
    ).rejects.toThrow("database write failed");
    expect(existsSync(docStore.fileOf(storageKey))).toBe(false);

    // a crash after the rename but before the commit, and one mid-write, leave files no row names
    const live = (await t.rest("POST", base, { key, body: passport(userId) })).body.document_id;
    const liveFile = docStore.fileOf((await storageKeyOf(live))!);
    const orphan = docStore.fileOf("00000000-1111-4222-8333-555555555555");
    await mkdir(path.dirname(orphan), { recursive: true });
    await writeFile(orphan, PNG);
    await writeFile(`${orphan}.123.456.tmp`, PNG.subarray(0, 10));
    const fresh = docStore.fileOf("00000000-1111-4222-8333-666666666666");
    await writeFile(fresh, PNG);
    const old = new Date(Date.now() - 3600_000);
    for (const f of [liveFile, orphan, `${orphan}.123.456.tmp`]) await utimes(f, old, old);
    const sweeper = fileStore(docStore.dir, t.app.services, t.app.services.logger);
    expect(await sweeper.sweep()).toBe(2);
    expect(existsSync(orphan)).toBe(false);
    expect(existsSync(`${orphan}.123.456.tmp`)).toBe(false);
    expect(existsSync(liveFile)).toBe(true); // referenced by its row
    expect(existsSync(fresh)).toBe(true); // young: may be an upload whose commit is in flight
  });
});

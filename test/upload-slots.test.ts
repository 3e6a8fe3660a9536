import { randomUUID } from "node:crypto";
import { request, type IncomingHttpHeaders } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.js";
import { MAX_DOCUMENT_BYTES } from "../src/domains/documents/documents.rules.js";
import { pdf, startTestApp, type TestApp } from "./helpers/app.js";
import { eventually } from "./helpers/eventually.js";

const DOCUMENTS = "/v2/users/authentications/documents";

type Answer = { status: number; headers: IncomingHttpHeaders; body: any };

/**
 * An upload over its own connection that sends its headers and the first 64 KiB of its body at
 * once, and the rest on `finish()`: until then the server holds it in flight.
 */
function openUpload(port: number, key: string, path: string, body: Buffer, contentType = "application/json") {
  const req = request({
    host: "127.0.0.1",
    port,
    path,
    method: "POST",
    agent: false,
    headers: { authorization: `Bearer ${key}`, "content-type": contentType, "content-length": body.length, "x-graphql-yoga-csrf": "1" },
  });
  req.on("error", () => {}); // a refused upload may be answered before all of it is sent
  const answer = new Promise<Answer>((resolve, reject) => {
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString();
        req.destroy(); // a refused upload's unsent rest is not needed
        resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : null });
      });
      res.on("error", reject);
    });
  });
  const first = Math.min(64 * 1024, body.length);
  req.write(body.subarray(0, first));
  return {
    answer,
    finish: () => {
      req.end(body.subarray(first));
      return answer;
    },
    abort: () => req.destroy(),
  };
}

/** A GraphQL multipart upload (github.com/jaydenseric/graphql-multipart-request-spec) of a 2 MiB PDF: larger than MAX_BODY_BYTES. */
function multipartBody(userId: string) {
  const boundary = `----slot${randomUUID()}`;
  const operations = JSON.stringify({
    query: "mutation($input: UploadDocumentInput!) { uploadDocument(input: $input) { id } }",
    variables: { input: { userId, documentType: "SELFIE", file: { upload: null } } },
  });
  const part = (name: string, value: string | Buffer, file = false) =>
    Buffer.concat([
      Buffer.from(
        `--${boundary}\r\ncontent-disposition: form-data; name="${name}"${file ? '; filename="f.pdf"\r\ncontent-type: application/pdf' : ""}\r\n\r\n`,
      ),
      Buffer.from(value),
      Buffer.from("\r\n"),
    ]);
  const body = Buffer.concat([
    part("operations", operations),
    part("map", JSON.stringify({ 0: ["variables.input.file.upload"] })),
    part("0", pdf(2 * 1024 * 1024), true),
    Buffer.from(`--${boundary}--\r\n`),
  ]);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

describe("upload slots", () => {
  let t: TestApp;
  let port: number;
  let a: { key: string; userId: string };
  let b: { key: string; userId: string };
  let largest: Buffer;
  let small: Buffer; // within MAX_BODY_BYTES
  let medium: Buffer; // over it, quick to send
  const smallUpload = (size: number) =>
    Buffer.from(JSON.stringify({ user_id: a.userId, document_type: "SELFIE", file: { content_base64: pdf(size).toString("base64") } }));
  beforeAll(async () => {
    // a process of three slots, two per key (the default)
    t = await startTestApp("pglite", { JOBS: "0", MAX_CONCURRENT_UPLOADS: "3" });
    port = await t.app.start(0, "127.0.0.1");
    const tenant = async (name: string) => {
      const { key } = await t.createClient(name);
      const user = await t.rest("POST", "/v2/users", { key, body: { first_name: "Ana", last_name: "Cruz", email: `${randomUUID()}@example.com` } });
      return { key, userId: user.body.user_id as string };
    };
    [a, b] = [await tenant("Uploads A"), await tenant("Uploads B")];
    // the largest upload the route takes: a 10 MiB file in base64 JSON
    largest = Buffer.from(
      JSON.stringify({ user_id: a.userId, document_type: "SELFIE", file: { file_name: "f.pdf", content_base64: pdf(MAX_DOCUMENT_BYTES).toString("base64") } }),
    );
    small = smallUpload(1000);
    medium = smallUpload(2 * 1024 * 1024);
  });
  afterAll(() => t.stop());

  const bodyFor = (userId: string) => (userId === a.userId ? largest : Buffer.from(largest.toString().replace(a.userId, userId)));
  /**
   * Uploads of `who` until one is answered while most of its body is still unsent, i.e. refused
   * without being read (one let through gets the rest of its body and completes), and that answer.
   */
  const refusedUpload = (who: { key: string; userId: string }) =>
    eventually(
      async () => {
        const probe = openUpload(port, who.key, DOCUMENTS, bodyFor(who.userId));
        const early = await Promise.race([probe.answer, new Promise<null>((resolve) => setTimeout(() => resolve(null), 1000))]);
        return early ?? { ...(await probe.finish()), read: true };
      },
      (answer) => !("read" in answer),
      20_000,
      0,
    );

  it("reads MAX_CONCURRENT_UPLOADS_PER_KEY (2) and MAX_CONCURRENT_UPLOADS (8), whole numbers from 1", () => {
    expect(loadConfig({})).toMatchObject({ maxConcurrentUploadsPerKey: 2, maxConcurrentUploads: 8 });
    for (const bad of ["0", "x", "1.5"]) {
      expect(() => loadConfig({ MAX_CONCURRENT_UPLOADS_PER_KEY: bad })).toThrow(ConfigError);
      expect(() => loadConfig({ MAX_CONCURRENT_UPLOADS: bad })).toThrow(ConfigError);
    }
  });

  it("lets two of a key's largest uploads run at once and refuses the third 429 with Retry-After before reading it; GraphQL multipart uploads share the slots, uploads within MAX_BODY_BYTES need none", async () => {
    const held = [openUpload(port, a.key, DOCUMENTS, largest), openUpload(port, a.key, DOCUMENTS, largest)];
    const { body, contentType } = multipartBody(a.userId);
    try {
      const third = await refusedUpload(a);
      expect(third.status).toBe(429);
      expect(third.headers["retry-after"]).toBe("1");
      expect(third.body).toMatchObject({ code: "RATE_LIMITED" });
      const multipart = await openUpload(port, a.key, "/graphql", body, contentType).finish();
      expect(multipart.status).toBe(429);
      expect(multipart.body.errors[0].extensions.code).toBe("RATE_LIMITED");
      // an upload within MAX_BODY_BYTES weighs what any request may, and takes no slot
      expect((await openUpload(port, a.key, DOCUMENTS, small).finish()).status).toBe(201);
      // another key still has its own share, up to the process's three
      held.push(openUpload(port, b.key, DOCUMENTS, bodyFor(b.userId)));
      const full = await refusedUpload(b);
      expect(full.status).toBe(503);
      expect(full.headers["retry-after"]).toBe("1");
      expect(full.body).toMatchObject({ code: "UNAVAILABLE" });
      const done = await Promise.all(held.map((upload) => upload.finish()));
      expect(done.map((d) => d.status)).toEqual([201, 201, 201]);
    } finally {
      for (const upload of held) upload.abort();
    }
    // every slot is back: both kinds of upload go through again
    expect((await openUpload(port, a.key, DOCUMENTS, largest).finish()).status).toBe(201);
    const again = await openUpload(port, a.key, "/graphql", body, contentType).finish();
    expect(again.body.errors).toBeUndefined();
  }, 90_000);

  it("gives the slot back when the caller hangs up mid-upload", async () => {
    const held = [openUpload(port, a.key, DOCUMENTS, largest), openUpload(port, a.key, DOCUMENTS, largest)];
    try {
      expect((await refusedUpload(a)).status).toBe(429);
      held[0]!.abort();
      const answered = await eventually(
        () => openUpload(port, a.key, DOCUMENTS, medium).finish(),
        (answer) => answer.status === 201,
        10_000,
        50,
      );
      expect(answered.status).toBe(201);
      expect((await held[1]!.finish()).status).toBe(201);
    } finally {
      for (const upload of held) upload.abort();
    }
  }, 60_000);
});

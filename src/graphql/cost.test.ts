import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pdf, PNG_BASE64, startTestApp, type TestApp } from "../../test/helpers/app.js";
import { ConfigError, loadConfig } from "../config.js";
import { POLL_MARKER } from "../domains/compliance/compliance.service.js";
import { MAX_DOCUMENT_BYTES } from "../domains/documents/documents.rules.js";
import { MAX_OPERATION_COST } from "./cost.js";

const DOCUMENTS = "/v2/users/authentications/documents";
const upload = (userId: string, contentBase64 = PNG_BASE64) => ({
  user_id: userId,
  document_type: "SELFIE",
  file: { file_name: "f", content_base64: contentBase64 },
});

async function seed(t: TestApp, key: string, users: number, documentsEach: number) {
  const ids: string[] = [];
  for (let i = 0; i < users; i++) {
    const user = await t.rest("POST", "/v2/users", { key, body: { first_name: "Ana", last_name: "Cruz", email: `${randomUUID()}@example.com` } });
    ids.push(user.body.user_id);
    for (let d = 0; d < documentsEach; d++) expect((await t.rest("POST", DOCUMENTS, { key, body: upload(user.body.user_id) })).status).toBe(201);
  }
  return ids;
}

describe("what one operation may cost before it runs", () => {
  let t: TestApp;
  let key: string;
  let userId: string;
  beforeAll(async () => {
    t = await startTestApp("pglite", { JOBS: "0" }); // no background checks: their statements would be counted below
    key = (await t.createClient("Cost")).key;
    [userId] = await seed(t, key, 1, 3);
  });
  afterAll(() => t.stop());

  /** The statements an operation ran, without the rule-set version check that may ride along on any request. */
  const statementsOf = async (query: string) => {
    const { result, queries } = await t.app.database.countQueries(() => t.gql(key, query));
    return { result, queries: queries.filter((q) => !q.includes(POLL_MARKER)) };
  };

  it("prices an unpaged relation list by its page: documents → user → documents → user → documents is refused before any statement", async () => {
    await t.gql(key, "{ users(first: 1) { totalCount } }"); // the key is looked up once, then cached
    const nested = "{ documents(first: 100) { edges { node { user { documents { user { documents { id } } } } } } } }";
    const { result, queries } = await statementsOf(nested);
    expect(result.errors?.[0]?.extensions).toMatchObject({ code: "VALIDATION_FAILED", limit: MAX_OPERATION_COST });
    expect(result.errors![0]!.extensions.cost).toBeGreaterThan(MAX_OPERATION_COST * 10);
    expect(queries).toEqual([]);
    // each relation answers one page (20 unless asked), so the same shape with small pages passes
    const small = await t.gql(key, "{ documents(first: 2) { edges { node { user { documents(first: 2) { id } } } } } }");
    expect(small.errors).toBeUndefined();
    expect(small.data.documents.edges[0].node.user.documents).toHaveLength(2);
  });

  it("prices a file's bytes: contentBase64 across a list of documents is refused, one document's bytes are not", async () => {
    for (const query of [
      "{ documents { edges { node { file { contentBase64 } } } } }",
      "{ documents(first: 2) { edges { node { file { contentBase64 } } } } }",
      `{ user(id: "${userId}") { documents { file { contentBase64 } } } }`,
    ]) {
      const { result, queries } = await statementsOf(query);
      expect(result.errors?.[0]?.extensions, query).toMatchObject({ code: "VALIDATION_FAILED", limit: MAX_OPERATION_COST });
      expect(queries, query).toEqual([]);
    }
    const id = (await t.rest("GET", `${DOCUMENTS}?user_id=${userId}`, { key })).body.data[0].document_id;
    const one = await t.gql(key, `{ document(id: "${id}") { file { contentBase64 } } documentFile(id: "${id}") { contentBase64 } }`);
    expect(one.errors).toBeUndefined();
    expect(one.data.document.file.contentBase64).toBe(PNG_BASE64);
  });
});

describe("what one operation may read while it runs", () => {
  it("MAX_ROWS_PER_REQUEST is a positive whole number", () => {
    expect(loadConfig({}).maxRowsPerRequest).toBe(10_000);
    for (const bad of ["0", "-1", "many"]) expect(() => loadConfig({ MAX_ROWS_PER_REQUEST: bad })).toThrow(ConfigError);
  });

  it("stops an operation once its lists hold more rows than the request's budget, on GraphQL, REST and both lanes", async () => {
    const t = await startTestApp("pglite", { MAX_ROWS_PER_REQUEST: "5", JOBS: "0" });
    try {
      const { key } = await t.createClient("Rows");
      await seed(t, key, 3, 2);
      // priced far under the cost limit; it answers 3 users and 6 documents
      const query = "{ users(first: 10) { edges { node { id documents { id } } } } }";
      const refused = await t.gql(key, query);
      expect(refused.errors?.[0]?.extensions).toMatchObject({ code: "RESULT_TOO_LARGE", limit: 5 });
      expect(refused.errors![0]!.message).toMatch(/more than 5 rows/);
      expect((await t.gql(key, "{ users(first: 10) { edges { node { id } } } }")).errors).toBeUndefined();
      const list = await t.rest("GET", `${DOCUMENTS}?records_per_page=100`, { key });
      expect(list.body).toMatchObject({ status: 422, code: "RESULT_TOO_LARGE" });

      // the same rules through the node handler: the REST GET lane, and the /graphql lane (yoga has validated the text above)
      const port = await t.app.start(0, "127.0.0.1");
      const laneCount = async () =>
        ((await t.app.metrics.registry.getSingleMetric("http_lane_requests_total")?.get())?.values ?? []).reduce((n, v) => n + v.value, 0);
      const lanesBefore = await laneCount();
      const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
      const rest = await fetch(`http://127.0.0.1:${port}${DOCUMENTS}?records_per_page=100`, { headers });
      expect(rest.status).toBe(422);
      expect(await rest.json()).toMatchObject({ code: "RESULT_TOO_LARGE" });
      const graphql = await fetch(`http://127.0.0.1:${port}/graphql`, { method: "POST", headers, body: JSON.stringify({ query }) });
      expect((await graphql.json()).errors?.[0]?.extensions).toMatchObject({ code: "RESULT_TOO_LARGE" });
      expect(await laneCount()).toBe(lanesBefore + 2);
    } finally {
      await t.stop();
    }
  });

  it("reads at most two of the largest files' bytes in one request", async () => {
    const t = await startTestApp("pglite", { JOBS: "0" });
    try {
      const { key } = await t.createClient("Bytes");
      const [userId] = await seed(t, key, 1, 0);
      const big = pdf(Math.floor(MAX_DOCUMENT_BYTES * 0.8)).toString("base64");
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await t.rest("POST", DOCUMENTS, { key, body: upload(userId!, big) })).body.document_id);
      const [a, b, c] = ids;
      const three = await t.gql(
        key,
        `{ a: documentFile(id: "${a}") { contentBase64 } b: documentFile(id: "${b}") { contentBase64 } c: documentFile(id: "${c}") { contentBase64 } }`,
      );
      // whichever of the three resolves last is refused, before its bytes are read
      expect(three.errors?.map((e) => e.extensions.code)).toEqual(["RESULT_TOO_LARGE"]);
      const refused = (three.errors![0] as { path?: string[] }).path!;
      expect(refused[1]).toBe("contentBase64");
      expect(
        Object.entries(three.data).map(([alias, file]) => (file as { contentBase64: string | null }).contentBase64 === (alias === refused[0] ? null : big)),
      ).toEqual([true, true, true]);
    } finally {
      await t.stop();
    }
  }, 60_000);
});

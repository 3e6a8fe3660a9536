import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PNG_BASE64, startTestApp, type TestApp } from "../../test/helpers/app.js";

describe("Pothos's query planned once per document (graphql/planned-query.ts)", () => {
  let t: TestApp;
  let key: string;
  let withDocs: string;
  let bare: string;

  beforeAll(async () => {
    t = await startTestApp("pglite", { JOBS: "0" });
    ({ key } = await t.createClient("Planned"));
    const user = async (email: string) =>
      (await t.rest("POST", "/v2/users", { key, body: { first_name: "Pia", last_name: "Lund", email } })).body.user_id as string;
    withDocs = await user("pia@example.com");
    bare = await user("bare@example.com");
    const upload = (document_type: string) =>
      t.rest("POST", "/v2/users/authentications/documents", {
        key,
        body: {
          user_id: withDocs,
          document_type,
          document_number: "E1234567",
          issuing_country: "SG",
          issue_date: "2020-01-15",
          expiry_date: "2030-01-14",
          file: { file_name: "p.png", mime_type: "image/png", content_base64: PNG_BASE64 },
        },
      });
    expect((await upload("PASSPORT")).status).toBe(201);
    const gone = await upload("NATIONAL_ID");
    expect((await t.rest("DELETE", `/v2/users/authentications/documents/${gone.body.document_id}`, { key })).status).toBeLessThan(300);
  });
  afterAll(() => t?.stop());

  it("answers each request from its own rows, the relations loaded with the user as on the first request", async () => {
    const query = "query($id: ID!) { user(id: $id) { id documents { documentType status } checks(first: 1) { type } } }";
    const first = await t.app.database.countQueries(() => t.gql(key, query, { id: withDocs }));
    const second = await t.app.database.countQueries(() => t.gql(key, query, { id: bare }));
    const third = await t.app.database.countQueries(() => t.gql(key, query, { id: withDocs }));
    expect(first.result.body.data.user).toMatchObject({ id: withDocs, documents: [{ documentType: "PASSPORT", status: "ACTIVE" }], checks: [{}] });
    expect(second.result.body.data.user).toMatchObject({ id: bare, documents: [], checks: [{}] });
    expect(third.result.body).toEqual(first.result.body);
    // the replayed plan still records the mappings the relations look up: no relation loads on its
    // own, so each read takes the statements of Pothos's own planning (a selection reading a
    // variable is planned by Pothos on every request)
    const byPothos = await t.app.database.countQueries(() =>
      t.gql(key, query.replace("documents {", "documents @include(if: $yes) {").replace("$id: ID!", "$id: ID!, $yes: Boolean!"), { id: bare, yes: true }),
    );
    expect(byPothos.result.body.data.user).toEqual(second.result.body.data.user);
    for (const read of [first, second, third]) expect(read.queries.length).toBe(byPothos.queries.length);
  });

  it("plans again, per request, a selection that reads a variable", async () => {
    const byStatus = "query($id: ID!, $status: DocumentStatus) { user(id: $id) { documents(status: $status) { documentType status } } }";
    expect((await t.gql(key, byStatus, { id: withDocs, status: "DELETED" })).body.data.user.documents).toEqual([
      { documentType: "NATIONAL_ID", status: "DELETED" },
    ]);
    expect((await t.gql(key, byStatus, { id: withDocs, status: null })).body.data.user.documents).toEqual([{ documentType: "PASSPORT", status: "ACTIVE" }]);
    const included = "query($id: ID!, $docs: Boolean!) { user(id: $id) { id documents @include(if: $docs) { documentType } } }";
    expect((await t.gql(key, included, { id: withDocs, docs: false })).body.data.user).toEqual({ id: withDocs });
    expect((await t.gql(key, included, { id: withDocs, docs: true })).body.data.user).toEqual({ id: withDocs, documents: [{ documentType: "PASSPORT" }] });
  });

  it("reads a users page with the columns its selection shows, and answers as Pothos's whole-row query does", async () => {
    const narrow = "{ users(first: 10) { edges { node { id status documents { id documentType } checks(first: 2) { id type status } } } } }";
    const wide =
      "query($yes: Boolean!) { users(first: 10) { edges { node { id status documents @include(if: $yes) { id documentType } checks(first: 2) { id type status } } } } }";
    const read = await t.app.database.countQueries(() => t.gql(key, narrow));
    const whole = await t.app.database.countQueries(() => t.gql(key, wide, { yes: true }));
    expect(read.result.body).toEqual(whole.result.body);
    const users = (queries: string[]) => queries.find((q) => /FROM "?[\w"]*\.?"?users"? /i.test(q) && !/count\(/i.test(q))!;
    // Pothos's include mode read every column of the user (the encrypted tax id among them); the page reads what it shows
    expect(users(whole.queries)).toContain("tax_id_encrypted");
    expect(users(read.queries)).not.toContain("tax_id_encrypted");
    expect(users(read.queries)).toContain("status");
    expect(read.queries.find((q) => /"?documents"?\./.test(q) && /sha256/.test(q))).toBeUndefined();
  });

  it("keeps the columns a computed field reads (ownColumns) when it trims a page: etag, masked tax id, address, document status", async () => {
    const fields = "id etag taxId billingAddress { line1 } documents { id status documentNumber file { fileName } }";
    const narrow = `{ users(first: 10) { edges { node { ${fields} } } } }`;
    const wide = `query($yes: Boolean!) { users(first: 10) { edges { node { ${fields.replace("documents {", "documents @include(if: $yes) {")} } } } }`;
    const read = await t.app.database.countQueries(() => t.gql(key, narrow));
    const whole = await t.app.database.countQueries(() => t.gql(key, wide, { yes: true }));
    expect(read.result.body.errors).toBeUndefined();
    expect(read.result.body).toEqual(whole.result.body);
    const page = read.result.body.data.users.edges.map((e: { node: { id: string } }) => e.node);
    expect(page.find((u: { id: string }) => u.id === withDocs)).toMatchObject({
      etag: expect.stringMatching(/\S/),
      documents: [{ status: "ACTIVE", documentNumber: "****4567", file: { fileName: "p.png" } }],
    });
    const users = read.queries.find((q) => /FROM "?[\w"]*\.?"?users"? /i.test(q) && !/count\(/i.test(q))!;
    expect(users).not.toContain("tax_id_encrypted"); // still trimmed
    for (const column of ["version", "tax_id_last4", "billing_address"]) expect(users).toContain(column);
  });

  it("plans a list's nodes once too: a page answers as the first one did", async () => {
    const list = "{ users(first: 10) { edges { node { id documents { documentType } } } } }";
    const first = await t.gql(key, list);
    const again = await t.gql(key, list);
    expect(again.body).toEqual(first.body);
    const byId = Object.fromEntries(first.body.data.users.edges.map((e: { node: { id: string; documents: unknown[] } }) => [e.node.id, e.node.documents]));
    expect(byId).toEqual({ [withDocs]: [{ documentType: "PASSPORT" }], [bare]: [] });
  });
});

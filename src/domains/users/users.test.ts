import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, startTestApp, type TestApp } from "../../../test/helpers/app.js";

const ana = {
  external_id: "crm-001",
  first_name: "Ana",
  last_name: "Cruz",
  email: "Ana.Cruz@Example.com",
  phone_number: "+6591234567",
  date_of_birth: "1990-05-01",
  nationality: "PHL",
  country_of_residence: "SG",
  tax_id: "S1234567D",
  locale: "en-SG",
  residential_address: { line1: "1 Marina Blvd", city: "Singapore", postal_code: "018989", country: "SGP" },
};
const USER_GQL = `id externalId email phoneNumber firstName middleName lastName dateOfBirth nationality countryOfResidence
  residentialAddress { line1 line2 city state postalCode country } billingAddress { line1 line2 city state postalCode country }
  taxId locale status kycStatus riskLevel riskScore riskAssessmentStatus emailVerified phoneVerified pendingEmail pendingPhoneNumber
  requirements { currentlyDue eventuallyDue errors { field code message } } standingDecisions { checkId type status decidedBy decidedAt } createdAt updatedAt`;

const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
/** GraphQL camelCase object → the REST shape, so both transports can be compared field for field */
function asRest(value: any): any {
  if (Array.isArray(value)) return value.map(asRest);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k === "id" ? "user_id" : snake(k), asRest(v)]));
  return value;
}

describe.each(backends)("users v2 on %s", (backend) => {
  let t: TestApp;
  let key: string;
  let readOnly: string;
  let other: string;
  const userCount = () => t.db.user.count();

  beforeAll(async () => {
    t = await startTestApp(backend, { JOBS: "0" }); // background checks would move risk fields between two reads
    key = (await t.createClient("Acme")).key;
    readOnly = (await t.createClient("Reader", ["users:read"])).key;
    other = (await t.createClient("Other")).key;
  });
  afterAll(() => t?.stop());

  it("creates, reads, updates partially and lists, and REST and GraphQL agree field for field", async () => {
    const created = await t.rest("POST", "/v2/users", { key, body: ana });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      external_id: "crm-001",
      email: "Ana.Cruz@Example.com",
      phone_number: "+6591234567",
      nationality: "PH",
      country_of_residence: "SG",
      date_of_birth: "1990-05-01",
      tax_id: "****567D",
      status: "PENDING",
      kyc_status: "NOT_STARTED",
      risk_assessment_status: "PENDING",
      residential_address: { line1: "1 Marina Blvd", city: "Singapore", postal_code: "018989", country: "SG", line2: null, state: null },
    });
    expect(created.body.etag).toBeUndefined();
    expect(created.headers.get("etag")).toMatch(/^".+"$/);
    const id = created.body.user_id;

    const read = await t.rest("GET", `/v2/users/${id}`, { key });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);

    const viaGql = await t.gql(key, `query($id: ID!) { user(id: $id) { ${USER_GQL} } }`, { id });
    expect(asRest(viaGql.data.user)).toEqual(read.body);

    const updated = await t.rest("PUT", `/v2/users/${id}`, { key, body: { middle_name: "Maria", locale: null } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ middle_name: "Maria", locale: null, first_name: "Ana", email: "Ana.Cruz@Example.com" });
    expect(updated.headers.get("etag")).not.toBe(created.headers.get("etag"));

    const viaGqlUpdate = await t.gql(key, `mutation($input: UpdateUserInput!) { updateUser(input: $input) { ${USER_GQL} } }`, {
      input: { id, lastName: "Cruz-Reyes" },
    });
    expect(viaGqlUpdate.data.updateUser.lastName).toBe("Cruz-Reyes");
    expect(viaGqlUpdate.data.updateUser.middleName).toBe("Maria");
    const reread = await t.rest("GET", `/v2/users/${id}`, { key });
    expect(asRest(viaGqlUpdate.data.updateUser)).toEqual(reread.body);
  });

  it("lists with filters and paging in the envelope, matching the GraphQL connection", async () => {
    for (let i = 0; i < 5; i++) {
      const res = await t.rest("POST", "/v2/users", { key: other, body: { first_name: `P${i}`, last_name: "List", email: `p${i}@example.com` } });
      expect(res.status).toBe(201);
    }
    const page2 = await t.rest("GET", "/v2/users?records_per_page=2&page=2", { key: other });
    expect(page2.status).toBe(200);
    expect(page2.body.pagination).toMatchObject({ page: 2, records_per_page: 2, total_records: 5, total_pages: 3 });
    expect(page2.body.pagination.links).toEqual({
      self: "/v2/users?records_per_page=2&page=2",
      next: "/v2/users?records_per_page=2&page=3",
      prev: "/v2/users?records_per_page=2&page=1",
    });
    expect(page2.body.data.map((u: any) => u.first_name)).toEqual(["P2", "P1"]);
    const gql = await t.gql(
      other,
      `{ users(first: 2, after: "${Buffer.from("OffsetConnection:1").toString("base64")}") { totalCount edges { node { firstName } } } }`,
    );
    expect(gql.data.users.totalCount).toBe(5);
    expect(gql.data.users.edges.map((e: any) => e.node.firstName)).toEqual(["P2", "P1"]);

    const byEmail = await t.rest("GET", "/v2/users?email=P3@EXAMPLE.com", { key: other });
    expect(byEmail.body.data.map((u: any) => u.first_name)).toEqual(["P3"]);
    const empty = await t.rest("GET", "/v2/users?status=ACTIVE", { key: other });
    expect(empty.body).toMatchObject({ data: [], pagination: { total_records: 0, total_pages: 0 } });
  });

  it("rejects out-of-range paging and unknown filter values with 400 naming the parameter", async () => {
    for (const q of ["records_per_page=0", "records_per_page=101", "page=0", "page=x"]) {
      const res = await t.rest("GET", `/v2/users?${q}`, { key });
      expect(res.status, q).toBe(400);
      expect(res.body.errors[0].field).toBe(q.split("=")[0]);
    }
    const badStatus = await t.rest("GET", "/v2/users?status=DORMANT", { key });
    expect(badStatus.status).toBe(400);
    expect(badStatus.body.errors[0].field).toBe("status");
  });

  it("answers 401 without a valid key, 403 without the scope, 404 for another client's user", async () => {
    const before = await userCount();
    const noKey = await t.rest("POST", "/v2/users", { body: ana });
    expect(noKey.status).toBe(401);
    expect(noKey.headers.get("content-type")).toBe("application/problem+json");
    expect(noKey.body.code).toBe("UNAUTHENTICATED");
    expect((await t.rest("GET", "/v2/users", { key: "ogk_sandbox_nope" })).status).toBe(401);
    const gqlNoKey = await t.gql(null, "{ users { totalCount } }");
    expect(gqlNoKey.status).toBe(401);
    expect(gqlNoKey.errors![0].extensions.code).toBe("UNAUTHENTICATED");

    const forbidden = await t.rest("POST", "/v2/users", { key: readOnly, body: { ...ana, email: "ro@example.com", external_id: "ro" } });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.code).toBe("FORBIDDEN");
    const gqlForbidden = await t.gql(readOnly, `mutation { createUser(input: { firstName: "A", lastName: "B", email: "x@example.com" }) { id } }`);
    expect(gqlForbidden.errors![0].extensions.code).toBe("FORBIDDEN");
    expect(await userCount()).toBe(before);

    const mine = await t.rest("POST", "/v2/users", { key, body: { first_name: "Mine", last_name: "Only", email: "mine@example.com" } });
    for (const [method, body] of [
      ["GET", undefined],
      ["PUT", { first_name: "Stolen" }],
    ] as const) {
      const res = await t.rest(method, `/v2/users/${mine.body.user_id}`, { key: other, body });
      expect(res.status, method).toBe(404);
      expect(res.body.code).toBe("NOT_FOUND");
    }
    expect((await t.gql(other, `{ user(id: "${mine.body.user_id}") { id } }`)).errors![0].extensions.code).toBe("NOT_FOUND");
    expect((await t.rest("GET", "/v2/users/not-a-uuid", { key })).status).toBe(404);
  });

  it("signs a user up in one statement: the user, its audit entry, its check runs and their job; the answer is what a read gives", async () => {
    await t.rest("POST", "/v2/users", { key, body: { first_name: "Warm", last_name: "Up", email: "warm-up@example.com" } }); // the key and queue caches
    const created = await t.app.database.countQueries(() =>
      t.rest("POST", "/v2/users", { key, body: { ...ana, email: "one-statement@example.com", external_id: "one-statement" } }),
    );
    expect(created.result.status).toBe(201);
    const writes = created.queries.filter((q) => /\b(insert|update|delete)\b/i.test(q));
    expect(writes).toHaveLength(1);
    for (const table of ["users", "check_runs", "audit_log"]) expect(writes[0]).toMatch(new RegExp(`insert into ${table} `, "i"));
    expect(writes[0]).toMatch(/insert into \S*_?boss\.job/i); // pg-boss's own insert of the checks' job
    // no transaction, no read-back: nothing about the user is read once it is written
    expect(created.queries.filter((q) => /^(BEGIN|COMMIT)/i.test(q) || /from \S*"?users"?/i.test(q))).toEqual([]);
    const read = await t.rest("GET", `/v2/users/${created.result.body.user_id}`, { key });
    expect(created.result.body).toEqual(read.body);
    expect(read.body).toMatchObject({ status: "PENDING", risk_assessment_status: "PENDING", requirements: { currently_due: expect.any(Array) } });
    const runs = await t.db.checkRun.findMany({ where: { userId: read.body.user_id } });
    expect(runs.map((r) => r.type).sort()).toEqual(["KYC", "SANCTIONS_SCREENING", "TRANSACTION_MONITORING"]);
    expect(await t.db.auditEntry.count({ where: { targetId: read.body.user_id, action: "user.created" } })).toBe(1);
  });

  it("answers a sign-up's GraphQL selection beyond the usual body from a read once committed", async () => {
    const res = (
      await t.gql(
        key,
        `mutation { createUser(input: { firstName: "Gq", lastName: "Sel", email: "gq-sel@example.com" }) { id checks { type status } documents { id } wallets { id } } }`,
      )
    ).body;
    expect(res.errors).toBeUndefined();
    expect(res.data.createUser.checks.map((c: { type: string }) => c.type).sort()).toEqual(["KYC", "SANCTIONS_SCREENING", "TRANSACTION_MONITORING"]);
    expect(res.data.createUser).toMatchObject({ documents: [], wallets: [] });
  });

  it("answers 409 for a duplicate email (any case) or external_id and writes nothing", async () => {
    await t.rest("POST", "/v2/users", { key, body: { first_name: "Dup", last_name: "One", email: "dup@example.com", external_id: "dup-1" } });
    const before = await userCount();
    const byEmail = await t.rest("POST", "/v2/users", { key, body: { first_name: "Dup", last_name: "Two", email: "DUP@example.com" } });
    expect(byEmail.status).toBe(409);
    expect(byEmail.body).toMatchObject({ code: "CONFLICT", errors: [{ field: "email", code: "duplicate" }] });
    const byExternal = await t.rest("POST", "/v2/users", {
      key,
      body: { first_name: "Dup", last_name: "Three", email: "d3@example.com", external_id: "dup-1" },
    });
    expect(byExternal.body.errors[0].field).toBe("external_id");
    expect(await userCount()).toBe(before);
    // the same email under another client is not a clash
    expect((await t.rest("POST", "/v2/users", { key: other, body: { first_name: "Dup", last_name: "Other", email: "dup@example.com" } })).status).toBe(201);
  });

  it.each([
    ["phone_number", "12345"],
    ["email", "not-an-email"],
    ["date_of_birth", "2001-02-30"],
    ["date_of_birth", "2999-01-01"],
    ["nationality", "XX"],
    ["country_of_residence", "Narnia"],
    ["tax_id", "!"],
    ["locale", "not a locale"],
    ["first_name", ""],
    ["residential_address.country", "ZZ"],
    ["status", "ACTIVE"],
    ["unknown_field", 1],
  ])("answers 400 naming %s when it is %j, and writes nothing", async (field, value) => {
    const before = await userCount();
    const body: any = { ...ana, email: `f-${field}@example.com`, external_id: `f-${field}-${String(value)}` };
    if (field.startsWith("residential_address.")) body.residential_address = { ...ana.residential_address, country: value };
    else body[field] = value;
    const res = await t.rest("POST", "/v2/users", { key, body });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.body).toMatchObject({ code: "VALIDATION_FAILED", status: 400, title: expect.any(String), request_id: expect.any(String) });
    expect(res.body.errors.map((e: any) => e.field)).toContain(field);
    expect(await userCount()).toBe(before);
  });

  it("reports every bad field at once through GraphQL with extensions.fields", async () => {
    const res = await t.gql(key, `mutation($input: CreateUserInput!) { createUser(input: $input) { id } }`, {
      input: { firstName: "A", lastName: "B", email: "bad", phoneNumber: "+1", taxId: "S1234567D" },
    });
    expect(res.errors![0].extensions.code).toBe("VALIDATION_FAILED");
    expect(res.errors![0].extensions.fields.map((f: any) => f.field).sort()).toEqual(["email", "phoneNumber"]);
    expect(JSON.stringify(res.body)).not.toContain("S1234567D");
  });

  it("answers 400 for malformed JSON, 415 for a non-JSON body, and writes nothing", async () => {
    const before = await userCount();
    const malformed = await t.rest("POST", "/v2/users", { key, body: '{"first_name": "A",', headers: { "content-type": "application/json" } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe("VALIDATION_FAILED");
    const wrongType = await t.rest("POST", "/v2/users", { key, body: "first_name=A", headers: { "content-type": "text/plain" } });
    expect(wrongType.status).toBe(415);
    expect(await userCount()).toBe(before);
  });

  it("refuses a stale If-Match with 412 and accepts the current ETag", async () => {
    const created = await t.rest("POST", "/v2/users", { key, body: { first_name: "E", last_name: "Tag", email: "etag@example.com" } });
    const etag = created.headers.get("etag")!;
    const first = await t.rest("PUT", `/v2/users/${created.body.user_id}`, { key, body: { first_name: "E2" }, headers: { "if-match": etag } });
    expect(first.status).toBe(200);
    const stale = await t.rest("PUT", `/v2/users/${created.body.user_id}`, { key, body: { first_name: "E3" }, headers: { "if-match": etag } });
    expect(stale.status).toBe(412);
    expect(stale.body.code).toBe("PRECONDITION_FAILED");
    expect((await t.rest("GET", `/v2/users/${created.body.user_id}`, { key })).body.first_name).toBe("E2");
  });

  it("lets exactly one of several concurrent PUTs with the same If-Match win", async () => {
    const created = await t.rest("POST", "/v2/users", { key, body: { first_name: "Race", last_name: "Condition", email: "race@example.com" } });
    const etag = created.headers.get("etag")!;
    const results = await Promise.all(
      ["A", "B", "C", "D", "E"].map((name) =>
        t.rest("PUT", `/v2/users/${created.body.user_id}`, { key, body: { middle_name: name }, headers: { "if-match": etag } }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 412, 412, 412, 412]);
    const winner = results.find((r) => r.status === 200)!.body.middle_name;
    expect((await t.rest("GET", `/v2/users/${created.body.user_id}`, { key })).body.middle_name).toBe(winner);
  });

  it("lets a caller close a user but not activate one (409)", async () => {
    const created = await t.rest("POST", "/v2/users", { key, body: { first_name: "S", last_name: "T", email: "status@example.com" } });
    const id = created.body.user_id;
    const activate = await t.rest("PUT", `/v2/users/${id}`, { key, body: { status: "ACTIVE" } });
    expect(activate.status).toBe(409);
    expect(activate.body.code).toBe("INVALID_STATE_TRANSITION");
    expect((await t.rest("PUT", `/v2/users/${id}`, { key, body: { status: "CLOSED" } })).body.status).toBe("CLOSED");
    expect((await t.rest("PUT", `/v2/users/${id}`, { key, body: { status: "CLOSED" } })).status).toBe(200);
  });

  it("holds a change of a verified email as pending_email, and withdraws it when the verified one is sent again", async () => {
    const created = await t.rest("POST", "/v2/users", { key, body: { first_name: "V", last_name: "E", email: "verified@example.com" } });
    await t.db.user.update({ where: { id: created.body.user_id }, data: { emailVerified: true } });
    const res = await t.rest("PUT", `/v2/users/${created.body.user_id}`, { key, body: { email: "new@example.com" } });
    expect(res.body).toMatchObject({ email: "verified@example.com", pending_email: "new@example.com", email_verified: true });
    const back = await t.rest("PUT", `/v2/users/${created.body.user_id}`, { key, body: { email: "verified@example.com" } });
    expect(back.body).toMatchObject({ email: "verified@example.com", pending_email: null, email_verified: true });
  });

  it("replays the same Idempotency-Key and body, and refuses another body with 422", async () => {
    const before = await userCount();
    const body = { first_name: "Idem", last_name: "Potent", email: "idem@example.com" };
    const headers = { "idempotency-key": "idem-key-1" };
    const first = await t.rest("POST", "/v2/users", { key, body, headers });
    const second = await t.rest("POST", "/v2/users", { key, body, headers });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(second.headers.get("etag")).toBe(first.headers.get("etag"));
    expect(await userCount()).toBe(before + 1);
    // the stored answer is encrypted: what was shown once (here PII; elsewhere a key or secret) is not kept in clear
    const stored = await t.db.idempotencyKey.findFirst({ where: { key: "idem-key-1" } });
    expect(stored?.responseBody).toMatch(/^v1\./);
    expect(stored?.responseBody).not.toContain("idem@example.com");
    const other = await t.rest("POST", "/v2/users", { key, body: { ...body, first_name: "Else" }, headers });
    expect(other.status).toBe(422);
    expect(other.body.code).toBe("IDEMPOTENCY_KEY_REUSED");
    // GraphQL mutations honour the header too
    const m = `mutation { createUser(input: { firstName: "G", lastName: "Idem", email: "gidem@example.com" }) { id } }`;
    const g1 = await t.gql(key, m, undefined, { "idempotency-key": "idem-key-2" });
    const g2 = await t.gql(key, m, undefined, { "idempotency-key": "idem-key-2" });
    expect(g2.data.createUser.id).toBe(g1.data.createUser.id);
    expect(await userCount()).toBe(before + 2);
  });

  it("answers 409 IDEMPOTENCY_KEY_IN_USE while the first request with the key is still in flight", async () => {
    const body = { first_name: "In", last_name: "Flight", email: "inflight@example.com" };
    const first = await t.rest("POST", "/v2/users", { key, body, headers: { "idempotency-key": "idem-inflight" } });
    const clientId = (await t.db.user.findUniqueOrThrow({ where: { id: first.body.user_id } })).clientId;
    // another attempt holds it, its lease still running
    const lease = { responseStatus: null, holder: "00000000-0000-4000-8000-000000000001", leaseUntil: new Date(Date.now() + 60_000) };
    await t.db.idempotencyKey.update({ where: { clientId_key: { clientId, key: "idem-inflight" } }, data: lease });
    const second = await t.rest("POST", "/v2/users", { key, body, headers: { "idempotency-key": "idem-inflight" } });
    expect(second.status).toBe(409);
    expect(second.body.code).toBe("IDEMPOTENCY_KEY_IN_USE");
    expect(Number(second.headers.get("retry-after"))).toBeGreaterThan(50);
  });

  it("stores tax_id encrypted: the plain value is nowhere in the users table", async () => {
    const res = await t.rest("POST", "/v2/users", { key, body: { first_name: "Tax", last_name: "Payer", email: "tax@example.com", tax_id: "T9988776655" } });
    expect(res.body.tax_id).toBe("****6655");
    const rows = await t.db.$queryRawUnsafe<Record<string, unknown>[]>(`select * from users where id = $1::uuid`, res.body.user_id);
    expect(JSON.stringify(rows[0])).not.toContain("T9988776655");
    expect(t.app.services.cipher.decrypt(rows[0].tax_id_encrypted as string)).toBe("T9988776655");
  });

  it("writes an audit row per write, naming fields but holding no values", async () => {
    const res = await t.rest("POST", "/v2/users", {
      key,
      body: { first_name: "Au", last_name: "Dit", email: "audit@example.com", tax_id: "A12345678" },
      headers: { "x-request-id": "req-audit-1" },
    });
    const entries = await t.db.auditEntry.findMany({ where: { targetId: res.body.user_id } });
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ action: "user.created", requestId: "req-audit-1", targetType: "user" });
    expect(entries[0].changedFields).toEqual(expect.arrayContaining(["firstName", "taxId", "email"]));
    expect(JSON.stringify(entries)).not.toContain("A12345678");
  });
});

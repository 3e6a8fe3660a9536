import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, startTestApp, type TestApp } from "../../../test/helpers/app.js";
import { REQUIREMENT_COLUMNS } from "../compliance/compliance.service.js";
import { ASSESSED_CHECKS } from "../checks/checks.rules.js";
import { readUserById, statementCovers } from "./users.reads.js";

const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201e2b3a8b80000000049454e44ae426082",
  "hex",
);

describe.each(backends)("a user read by id as one statement (%s)", (backend) => {
  let t: TestApp;
  let a: { clientId: string; key: string };
  let b: { clientId: string; key: string };
  let full: string;
  let bare: string;
  let foreign: string;
  const scalars = Object.fromEntries(
    [
      "id",
      "clientId",
      "externalId",
      "email",
      "emailKey",
      "phoneNumber",
      "firstName",
      "middleName",
      "lastName",
      "dateOfBirth",
      "nationality",
      "countryOfResidence",
      "residentialAddress",
      "billingAddress",
      "taxIdEncrypted",
      "taxIdLast4",
      "locale",
      "status",
      "kycStatus",
      "riskLevel",
      "riskScore",
      "emailVerified",
      "phoneVerified",
      "pendingEmail",
      "pendingPhoneNumber",
      "version",
      "createdAt",
      "updatedAt",
    ].map((k) => [k, true]),
  );
  const restShape = { select: { ...scalars, documents: REQUIREMENT_COLUMNS.documents, checks: ASSESSED_CHECKS } };

  beforeAll(async () => {
    // TZ far from UTC: DATE and timestamp columns must still read back as Prisma reads them
    t = await startTestApp(backend, { JOBS: "0" });
    a = await t.createClient("Reads A");
    b = await t.createClient("Reads B");
    const made = await t.rest("POST", "/v2/users", {
      key: a.key,
      body: {
        first_name: "Ana",
        middle_name: "Maria",
        last_name: "Cruz",
        email: "ana.reads@example.com",
        phone_number: "+6591234567",
        date_of_birth: "1990-05-17",
        nationality: "SG",
        country_of_residence: "SG",
        tax_id: "S1234567D",
        locale: "en-SG",
        external_id: "ext-1",
        residential_address: { line1: "1 Main St", city: "Singapore", postal_code: "123456", country: "SG" },
      },
    });
    if (made.status !== 201) throw new Error(JSON.stringify(made.body));
    full = made.body.user_id;
    const doc = {
      user_id: full,
      document_type: "PASSPORT",
      document_number: "E1234567",
      issuing_country: "SG",
      issue_date: "2020-01-15",
      expiry_date: "2030-01-14",
      file: { file_name: "p.png", mime_type: "image/png", content_base64: PNG.toString("base64") },
    };
    expect((await t.rest("POST", "/v2/users/authentications/documents", { key: a.key, body: doc })).status).toBe(201);
    const gone = await t.rest("POST", "/v2/users/authentications/documents", { key: a.key, body: { ...doc, document_type: "NATIONAL_ID" } });
    expect((await t.rest("DELETE", `/v2/users/authentications/documents/${gone.body.document_id}`, { key: a.key })).status).toBeLessThan(300);
    // check runs: the queued ones, and an older completed one of one type
    await t.db.checkRun.create({
      data: { clientId: a.clientId, userId: full, type: "KYC", status: "CLEAR", trigger: "VERIFICATION", createdAt: new Date("2026-01-01T00:00:00.123Z") },
    });
    const made2 = await t.rest("POST", "/v2/users", { key: a.key, body: { first_name: "Bo", last_name: "Re", email: "bare@example.com" } });
    const made3 = await t.rest("POST", "/v2/users", { key: b.key, body: { first_name: "Ben", last_name: "Ode", email: "ben.reads@example.com" } });
    if (made2.status !== 201 || made3.status !== 201) throw new Error(JSON.stringify([made2.body, made3.body]));
    [bare, foreign] = [made2.body.user_id, made3.body.user_id];
  });
  afterAll(() => t?.stop());

  it("covers the REST body's selection, and nothing with other relation fields or include", () => {
    expect(statementCovers(restShape)).toBe(true);
    expect(statementCovers({ select: { id: true, documents: { select: { id: true } } } })).toBe(false);
    expect(statementCovers({ select: { id: true, wallets: true } })).toBe(false);
    expect(statementCovers({ include: { documents: true } })).toBe(false);
    // Pothos's own form of the REST body: every column, the two relations, keys in its order
    expect(
      statementCovers({
        include: {
          checks: {
            orderBy: { createdAt: "desc" },
            distinct: ["type", "decidedBy"],
            select: { id: true, type: true, status: true, createdAt: true, completedAt: true, decidedBy: true },
          },
          documents: REQUIREMENT_COLUMNS.documents,
        },
      }),
    ).toBe(true);
    expect(statementCovers(undefined)).toBe(false);
  });

  it("reads what Prisma reads: columns, Json, DATE and timestamps, active documents, the latest run of each type", async () => {
    for (const id of [full, bare]) {
      const byPrisma = await t.db.user.findFirst({ ...restShape, where: { id, clientId: a.clientId } });
      const { result: byStatement, queries } = await t.app.database.countQueries(() => readUserById(t.db, a.clientId, id, restShape));
      expect(queries).toHaveLength(1);
      expect(queries[0]).toMatch(/json_build_object/);
      const sortDocs = (u: any) => ({ ...u, documents: [...u.documents].sort((x: any, y: any) => x.documentType.localeCompare(y.documentType)) });
      expect(sortDocs(byStatement)).toEqual(sortDocs(byPrisma));
    }
    const read = (await readUserById(t.db, a.clientId, full, restShape)) as any;
    expect(read.dateOfBirth.toISOString()).toBe("1990-05-17T00:00:00.000Z");
    expect(read.documents).toEqual([{ documentType: "PASSPORT", status: "ACTIVE", expiryDate: new Date("2030-01-14T00:00:00.000Z"), invalidReason: null }]);
    expect(read.checks.map((c: any) => c.type).sort()).toEqual(["KYC", "SANCTIONS_SCREENING", "TRANSACTION_MONITORING"]);
    expect(read.checks.find((c: any) => c.type === "KYC").status).toBe("QUEUED"); // the newer run, not the older CLEAR one
  });

  it("answers two clients' reads in one statement, each only with its own user", async () => {
    const { result, queries } = await t.app.database.countQueries(() =>
      Promise.all([
        readUserById(t.db, a.clientId, full, restShape),
        readUserById(t.db, b.clientId, foreign, restShape),
        readUserById(t.db, a.clientId, foreign, restShape),
        readUserById(t.db, b.clientId, full, restShape),
      ]),
    );
    expect(result.map((u) => u?.id ?? null)).toEqual([full, foreign, null, null]);
    expect(queries).toHaveLength(1);
  });

  it("serves GET /v2/users/{id} with that one statement", async () => {
    await t.rest("GET", `/v2/users/${full}`, { key: a.key }); // the key is cached from here on
    const { result, queries } = await t.app.database.countQueries(() => t.rest("GET", `/v2/users/${full}`, { key: a.key }));
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ user_id: full, date_of_birth: "1990-05-17", risk_assessment_status: "PENDING", tax_id: "****567D" });
    expect(result.body.requirements.currently_due).not.toContain("documents.identity");
    expect(
      queries.filter((q) => !q.includes("compliance-version-check")),
      queries.join("\n"),
    ).toHaveLength(1);
  });

  it("serves a GraphQL user(id) of columns alone (Pothos's query is then `{}`) with that one statement, not Prisma's", async () => {
    const query = "query($id: ID!) { user(id: $id) { id email firstName dateOfBirth createdAt } }";
    const { result, queries } = await t.app.database.countQueries(() => t.gql(a.key, query, { id: full }));
    expect(result.body.data.user).toEqual({
      id: full,
      email: "ana.reads@example.com",
      firstName: "Ana",
      dateOfBirth: "1990-05-17",
      createdAt: expect.any(String),
    });
    const own = queries.filter((q) => !q.includes("compliance-version-check"));
    expect(own, own.join("\n")).toHaveLength(1);
    expect(own[0]).toContain("json_build_object");
  });
});

describe.each(backends)("creating a user (%s)", (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend, { JOBS: "0" });
  });
  afterAll(() => t?.stop());

  it("takes seven statements: uniqueness, the user, its audit, three check runs and their jobs in one each, the answer", async () => {
    const { key } = await t.createClient("Counted");
    await t.rest("POST", "/v2/users", { key, body: { first_name: "Warm", last_name: "Up", email: "warm@example.com" } });
    const { result, queries } = await t.app.database.countQueries(() =>
      t.rest("POST", "/v2/users", { key, body: { first_name: "Cy", last_name: "Ng", email: "cy@example.com", date_of_birth: "1991-02-03" } }),
    );
    expect(result.status).toBe(201);
    expect(result.body).toMatchObject({ first_name: "Cy", date_of_birth: "1991-02-03", risk_assessment_status: "PENDING", status: "PENDING" });
    const own = queries.filter((q) => !q.includes("compliance-version-check"));
    expect(own.filter((q) => /insert into "?[\w"]*\.?"?check_runs/i.test(q))).toHaveLength(1);
    expect(own.filter((q) => /insert into [\w"]*\.?job/i.test(q))).toHaveLength(1);
    expect(own.length, own.join("\n")).toBeLessThanOrEqual(7);
    const runs = await t.db.checkRun.findMany({ where: { userId: result.body.user_id } });
    expect(runs.map((r) => r.type).sort()).toEqual(["KYC", "SANCTIONS_SCREENING", "TRANSACTION_MONITORING"]);
  });
});

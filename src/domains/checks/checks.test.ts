import { randomUUID } from "node:crypto";
import { COMPLETE_SG } from "../../../test/helpers/people.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY, backends, startTestApp, type TestApp } from "../../../test/helpers/app.js";
import { requestContext } from "../../context.js";
import { recordCheckResult } from "../../flows/post-check-result.js";
import { POLL_MARKER } from "../compliance/compliance.service.js";
import { riskAssessmentStatus } from "./checks.rules.js";

describe("risk assessment status", () => {
  const at = (s: number) => new Date(2026, 0, 1, 0, 0, s);
  it("follows the latest run of each type", () => {
    expect(riskAssessmentStatus([])).toBe("UNKNOWN");
    expect(riskAssessmentStatus([{ type: "KYC", status: "QUEUED", createdAt: at(1) }])).toBe("PENDING");
    expect(
      riskAssessmentStatus([
        { type: "KYC", status: "CLEAR", createdAt: at(1) },
        { type: "SANCTIONS_SCREENING", status: "CLEAR", createdAt: at(2) },
      ]),
    ).toBe("CLEARED");
    expect(
      riskAssessmentStatus([
        { type: "KYC", status: "CLEAR", createdAt: at(1) },
        { type: "SANCTIONS_SCREENING", status: "CONSIDER", createdAt: at(2) },
      ]),
    ).toBe("PENDING");
    expect(
      riskAssessmentStatus([
        { type: "SANCTIONS_SCREENING", status: "REJECTED", createdAt: at(1) },
        { type: "KYC", status: "RUNNING", createdAt: at(2) },
      ]),
    ).toBe("REJECTED");
    // an old hit cleared by a newer run of the same type no longer counts
    expect(
      riskAssessmentStatus([
        { type: "SANCTIONS_SCREENING", status: "CLEAR", createdAt: at(3) },
        { type: "SANCTIONS_SCREENING", status: "REJECTED", createdAt: at(1) },
      ]),
    ).toBe("CLEARED");
  });
});

// JOBS=0: runs stay QUEUED, so what verification writes can be read as it left it (src/flows/run-checks.test.ts runs them)
describe.each(backends)("verification and check runs on %s", (backend) => {
  let t: TestApp;
  let key: string;
  let clientId: string;
  let stranger: string;

  /** a user with nothing currently due: its data, a passport, a proof of address and a verified phone */
  async function completeUser(email = `${randomUUID()}@example.com`) {
    const res = await t.rest("POST", "/v2/users", { key, body: { ...COMPLETE_SG, email } });
    const userId = res.body.user_id as string;
    for (const documentType of ["PASSPORT", "PROOF_OF_ADDRESS"] as const)
      await t.db.document.create({
        data: { clientId, userId, documentType, fileName: "scan.pdf", mimeType: "application/pdf", sizeBytes: 1, sha256: "0".repeat(64) },
      });
    await t.db.user.update({ where: { id: userId }, data: { phoneVerified: true } }); // OTP is another domain's
    return userId;
  }

  beforeAll(async () => {
    t = await startTestApp(backend, { JOBS: "0" });
    ({ key, clientId } = await t.createClient("Verifier"));
    stranger = (await t.createClient("Stranger")).key;
  });
  afterAll(() => t?.stop());

  it("answers 422 REQUIREMENTS_DUE listing what is missing, and changes nothing", async () => {
    const res = await t.rest("POST", "/v2/users", {
      key,
      body: { first_name: "Half", last_name: "Done", email: "half@example.com", country_of_residence: "SG" },
    });
    const userId = res.body.user_id;
    const rest = await t.rest("POST", "/v2/users/verify", { key, body: { user_id: userId } });
    expect(rest.status).toBe(422);
    expect(rest.headers.get("content-type")).toBe("application/problem+json");
    const due = [
      "date_of_birth",
      "nationality",
      "residential_address",
      "residential_address.postal_code",
      "phone_number",
      "documents.identity",
      "documents.address",
      "phone_verified",
    ];
    expect(rest.body).toMatchObject({ code: "REQUIREMENTS_DUE", status: 422, currently_due: due });
    expect(rest.body.errors.map((e: any) => e.field)).toEqual(due);
    expect(rest.body.errors.find((e: any) => e.field === "documents.identity").message).toContain("PASSPORT, NATIONAL_ID");
    const gql = await t.gql(key, `mutation($input: SubmitVerificationInput!) { submitVerification(input: $input) { userId } }`, { input: { userId } });
    expect(gql.errors?.[0].extensions).toMatchObject({ code: "REQUIREMENTS_DUE", currentlyDue: due });
    expect(await t.db.checkRun.count({ where: { userId, trigger: "VERIFICATION" } })).toBe(0);
    expect((await t.rest("GET", `/v2/users/${userId}`, { key })).body).toMatchObject({ status: "PENDING", kyc_status: "NOT_STARTED" });
  });

  it("moves a complete user to IN_REVIEW with three QUEUED checks (202) — the runs its creation queued, reused — listed newest first on REST and GraphQL", async () => {
    const userId = await completeUser();
    const res = await t.rest("POST", "/v2/users/verify", { key, body: { user_id: userId } });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      user_id: userId,
      status: "IN_REVIEW",
      checks: expect.arrayContaining(
        ["KYC", "SANCTIONS_SCREENING", "TRANSACTION_MONITORING"].map((type) => ({ check_id: expect.any(String), type, status: "QUEUED" })),
      ),
    });
    expect(res.body.checks).toHaveLength(3);
    const user = (await t.rest("GET", `/v2/users/${userId}`, { key })).body;
    expect(user).toMatchObject({ status: "IN_REVIEW", kyc_status: "PENDING", risk_assessment_status: "PENDING" });

    const list = await t.rest("GET", `/v2/users/${userId}/checks?records_per_page=2`, { key });
    expect(list.status).toBe(200);
    expect(list.body.pagination).toMatchObject({ page: 1, records_per_page: 2, total_records: 3, total_pages: 2 });
    expect(list.body.data[0]).toMatchObject({
      check_id: expect.any(String),
      user_id: userId,
      client_id: clientId,
      status: "QUEUED",
      trigger: "VERIFICATION",
      result: null,
      completed_at: null,
    });
    const gql = await t.gql(
      key,
      `query($id: ID!) { user(id: $id) { riskAssessmentStatus checks { id type status trigger createdAt } } checks(userId: $id, first: 2) { totalCount edges { node { id } } } }`,
      { id: userId },
    );
    expect(gql.data.user.checks.map((c: any) => c.id).slice(0, 2)).toEqual(list.body.data.map((c: any) => c.check_id));
    expect(gql.data.checks.edges.map((e: any) => e.node.id)).toEqual(list.body.data.map((c: any) => c.check_id));
    expect(gql.data.checks.totalCount).toBe(3);

    const again = await t.rest("POST", "/v2/users/verify", { key, body: { user_id: userId } });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("INVALID_STATE_TRANSITION");
  });

  it("derives risk_assessment_status from the latest run of each type", async () => {
    const userId = await completeUser();
    const submitted = await t.gql(
      key,
      `mutation($input: SubmitVerificationInput!) { submitVerification(input: $input) { userId status checks { id type status } } }`,
      { input: { userId } },
    );
    expect(submitted.data.submitVerification).toMatchObject({ userId, status: "IN_REVIEW" });
    expect(submitted.data.submitVerification.checks.map((c: any) => c.status)).toEqual(["QUEUED", "QUEUED", "QUEUED"]);
    const risk = async () => (await t.rest("GET", `/v2/users/${userId}`, { key })).body.risk_assessment_status;
    await t.db.checkRun.updateMany({ where: { userId }, data: { status: "CLEAR", completedAt: new Date() } });
    expect(await risk()).toBe("CLEARED");
    await t.db.checkRun.create({
      data: {
        clientId,
        userId,
        type: "SANCTIONS_SCREENING",
        trigger: "PERIODIC",
        status: "REJECTED",
        createdAt: new Date(Date.now() + 1000),
        result: { score: 0.97, reasons: ["name and date of birth match"], matches: [{ list: "OFAC SDN" }] },
      },
    });
    expect(await risk()).toBe("REJECTED");
    const [latest] = (await t.rest("GET", `/v2/users/${userId}/checks`, { key })).body.data;
    expect(latest).toMatchObject({
      type: "SANCTIONS_SCREENING",
      status: "REJECTED",
      trigger: "PERIODIC",
      result: { score: 0.97, reasons: ["name and date of birth match"], matches: [{ list: "OFAC SDN" }] },
    });
  });

  it("answers 404 for another client's user on the new routes", async () => {
    const userId = await completeUser();
    expect((await t.rest("POST", "/v2/users/verify", { key: stranger, body: { user_id: userId } })).status).toBe(404);
    expect((await t.rest("GET", `/v2/users/${userId}/checks`, { key: stranger })).status).toBe(404);
    expect((await t.rest("POST", "/v2/users/verify", { key, body: { user_id: "not-a-uuid" } })).status).toBe(404);
    const gql = await t.gql(stranger, `mutation { submitVerification(input: { userId: "${userId}" }) { userId } }`);
    expect(gql.errors?.[0].extensions.code).toBe("NOT_FOUND");
    expect((await t.gql(stranger, `{ checks(userId: "${userId}") { totalCount } }`)).errors?.[0].extensions.code).toBe("NOT_FOUND");
    expect(await t.db.checkRun.count({ where: { userId, trigger: "VERIFICATION" } })).toBe(0);
  });

  it("answers 404 for an unknown or another client's id on the check routes whatever the body holds, never 400", async () => {
    const userId = await completeUser();
    const [run] = await t.db.checkRun.findMany({ where: { userId }, take: 1 });
    const missing = randomUUID();
    for (const [path, auth] of [
      [`/v2/users/${missing}/checks`, key],
      [`/v2/users/${userId}/checks`, stranger],
      ["/v2/users/not-a-uuid/checks", key],
      [`/v2/checks/${missing}/result`, ADMIN_KEY],
      ["/v2/checks/not-a-uuid/result", ADMIN_KEY],
    ] as const) {
      for (const body of [undefined, {}, { status: "CLEAR", score: 5 }].filter((b) => !(path.endsWith("/checks") && b && "status" in b))) {
        const res = await t.rest("POST", path, { key: auth, body });
        expect({ path, body, status: res.status, code: res.body.code }).toEqual({ path, body, status: 404, code: "NOT_FOUND" });
      }
    }
    const gql = async (k: string, query: string) => (await t.gql(k, query)).errors?.[0].extensions.code;
    expect(await gql(stranger, `mutation { createCheck(input: { userId: "${userId}" }) { id } }`)).toBe("NOT_FOUND");
    expect(await gql(ADMIN_KEY, `mutation { recordCheckResult(input: { checkId: "${missing}", score: 5 }) { id } }`)).toBe("NOT_FOUND");
    // what the body lacks is still reported once the id is found
    const noType = await t.rest("POST", `/v2/users/${userId}/checks`, { key, body: {} });
    expect(noType).toMatchObject({ status: 400, body: { code: "VALIDATION_FAILED", errors: [{ field: "type", code: "required" }] } });
    expect((await t.rest("POST", `/v2/checks/${run!.id}/result`, { key: ADMIN_KEY, body: {} })).body.errors).toEqual([
      { field: "status", code: "required", message: "status is required." },
    ]);
    expect(await gql(key, `mutation { createCheck(input: { userId: "${userId}" }) { id } }`)).toBe("VALIDATION_FAILED");
    // a client never reaches another client's run, even holding the admin scope
    const { clientId: otherClient } = await t.createClient("Other");
    const tenant = requestContext(t.app.services, { kind: "client", clientId: otherClient, keyId: "k", mode: "SANDBOX", scopes: new Set(["admin"]) }, "test");
    await expect(recordCheckResult(tenant, { checkId: run!.id, status: "CLEAR" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect((await t.db.checkRun.findUniqueOrThrow({ where: { id: run!.id } })).status).toBe("QUEUED");
  });

  it("lists 100 users with their documents, checks and requirements in a fixed number of SQL statements", async () => {
    const { clientId: bulkClient, key: bulkKey } = await t.createClient("Bulk");
    const ids = Array.from({ length: 100 }, () => randomUUID());
    await t.db.user.createMany({
      data: ids.map((id, i) => ({
        id,
        clientId: bulkClient,
        firstName: `U${i}`,
        lastName: "Bulk",
        countryOfResidence: ["SG", "GB", "US", "IN"][i % 4],
        email: `u${i}@bulk.example`,
      })),
    });
    await t.db.document.createMany({
      data: ids.map((userId) => ({
        clientId: bulkClient,
        userId,
        documentType: "PASSPORT" as const,
        fileName: "p.pdf",
        mimeType: "application/pdf",
        sizeBytes: 1,
        sha256: "0".repeat(64),
      })),
    });
    await t.db.checkRun.createMany({
      data: ids.flatMap((userId) =>
        (["KYC", "SANCTIONS_SCREENING"] as const).map((type) => ({ clientId: bulkClient, userId, type, trigger: "VERIFICATION" as const })),
      ),
    });
    const query = (first: number) =>
      `{ users(first: ${first}) { totalCount edges { node { riskAssessmentStatus requirements { currentlyDue } checks { status } } } } }`;
    await t.gql(bulkKey, query(1)); // warm: the API key and the rule sets are cached after the first request
    const own = (queries: string[]) => queries.filter((q) => !q.includes(POLL_MARKER)); // the rule-set version check may ride along on a request
    const small = await t.app.database.countQueries(() => t.gql(bulkKey, query(2)));
    const large = await t.app.database.countQueries(() => t.gql(bulkKey, query(100)));
    expect(large.result.errors).toBeUndefined();
    const nodes = large.result.data.users.edges.map((e: any) => e.node);
    expect(nodes).toHaveLength(100);
    expect(
      nodes.every((n: any) => n.checks.length === 2 && n.riskAssessmentStatus === "PENDING" && !n.requirements.currentlyDue.includes("documents.identity")),
    ).toBe(true);
    // users, count, documents, checks (User.checks), checks (latest per type)
    expect(own(large.queries).length).toBe(own(small.queries).length);
    expect(own(large.queries).length).toBeLessThanOrEqual(6);
    const rest = await t.app.database.countQueries(() => t.rest("GET", "/v2/users?records_per_page=100", { key: bulkKey }));
    expect(rest.result.body.data).toHaveLength(100);
    expect(own(rest.queries).length).toBeLessThanOrEqual(5);
    console.info(`100 users with documents, checks and requirements: GraphQL ${own(large.queries).length} SQL statements, REST ${own(rest.queries).length}`);
  });
});

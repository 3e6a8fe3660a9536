import { randomUUID } from "node:crypto";
import { COMPLETE_SG } from "../../test/helpers/people.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY, backends, PNG_BASE64, startTestApp, type TestApp } from "../../test/helpers/app.js";
import { runChecks } from "./run-checks.js";
import { runPeriodicChecks } from "../domains/checks/checks.periodic.js";
import { builtInProviders } from "../domains/checks/checks.providers.js";
import { assessByType, checksForChange, riskAssessmentStatus, riskOf, statusAfterChecks } from "../domains/checks/checks.rules.js";

/** OFAC SDN entry 10481: SOLEIMANI, Qasem, DOB 11 Mar 1957, nationality Iran */
const LISTED = { first_name: "Qassem", last_name: "Suleimani", date_of_birth: "1957-03-11" };

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, ms = 20_000): Promise<T> {
  for (const until = Date.now() + ms; ; ) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}: last ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("check rules", () => {
  const at = (s: number) => new Date(2026, 0, 1, 0, 0, s);
  const latest = (...runs: [string, string][]) => new Map(runs.map(([type, status], i) => [type, { type, status, createdAt: at(i) }])) as never;
  it("moves status only once verification was submitted, and by the latest runs", () => {
    expect(statusAfterChecks("PENDING", latest(["SANCTIONS_SCREENING", "REJECTED"]))).toBeNull();
    expect(statusAfterChecks("IN_REVIEW", latest(["KYC", "CLEAR"], ["SANCTIONS_SCREENING", "REJECTED"]))).toEqual({
      status: "REJECTED",
      kycStatus: "REJECTED",
    });
    expect(statusAfterChecks("ACTIVE", latest(["SANCTIONS_SCREENING", "REJECTED"]))).toEqual({ status: "SUSPENDED", kycStatus: "REJECTED" });
    expect(statusAfterChecks("ACTIVE", latest(["SANCTIONS_SCREENING", "CONSIDER"]))).toEqual({ status: "SUSPENDED", kycStatus: "NEEDS_REVIEW" });
    expect(statusAfterChecks("ACTIVE", latest(["KYC", "CONSIDER"]))).toEqual({ status: "ACTIVE", kycStatus: "NEEDS_REVIEW" });
    expect(statusAfterChecks("IN_REVIEW", latest(["KYC", "CLEAR"], ["SANCTIONS_SCREENING", "CLEAR"], ["TRANSACTION_MONITORING", "QUEUED"]))).toBeNull();
    expect(statusAfterChecks("SUSPENDED", latest(["KYC", "CLEAR"], ["SANCTIONS_SCREENING", "CLEAR"], ["TRANSACTION_MONITORING", "CLEAR"]))).toEqual({
      status: "ACTIVE",
      kycStatus: "APPROVED",
    });
  });
  it("scores risk from the latest completed runs", () => {
    const run = (type: string, status: string, score = 0) => ({ type, status, createdAt: at(0), result: { score } }) as never;
    expect(riskOf([])).toBeNull();
    expect(riskOf([run("KYC", "CLEAR"), run("TRANSACTION_MONITORING", "CLEAR", 0.5)])).toEqual({ riskScore: 50, riskLevel: "MEDIUM" });
    expect(riskOf([run("KYC", "CONSIDER", 0.4)])).toEqual({ riskScore: 40, riskLevel: "MEDIUM" });
    expect(riskOf([run("SANCTIONS_SCREENING", "CONSIDER", 0.88)])).toEqual({ riskScore: 88, riskLevel: "HIGH" });
    expect(riskOf([run("SANCTIONS_SCREENING", "CLEAR", 0.8), run("KYC", "CLEAR")])).toEqual({ riskScore: 0, riskLevel: "LOW" });
    expect(riskOf([run("SANCTIONS_SCREENING", "REJECTED", 0.97)])).toEqual({ riskScore: 100, riskLevel: "HIGH" });
  });
  it("keeps a decision by a person or a provider standing: later automatic runs may raise it, never lower it", () => {
    const run = (status: string, created: number, completed: number | null, decidedBy: string | null = "SYSTEM", score = 0) =>
      ({
        type: "SANCTIONS_SCREENING",
        status,
        createdAt: at(created),
        completedAt: completed === null ? null : at(completed),
        decidedBy,
        result: { score },
      }) as never;
    const verdict = (...runs: never[]) => assessByType<any>(runs).get("SANCTIONS_SCREENING")!.verdict.status;
    const rejected = run("REJECTED", 1, 5, "OPERATOR", 1);
    expect(verdict(run("CLEAR", 1, 2), rejected, run("CLEAR", 6, 7))).toBe("REJECTED"); // a later automatic CLEAR does not lift it
    expect(verdict(rejected, run("QUEUED", 6, null))).toBe("REJECTED"); // nor does a run still to come
    expect(verdict(rejected, run("CLEAR", 6, 7), run("CLEAR", 2, 8, "OPERATOR"))).toBe("CLEAR"); // a person's newer decision does
    expect(verdict(rejected, run("CLEAR", 6, 7, "PROVIDER"))).toBe("REJECTED"); // a provider's does not replace a person's
    expect(verdict(run("CLEAR", 1, 5, "PROVIDER"), run("CLEAR", 6, 7), run("REJECTED", 8, 9, "PROVIDER"))).toBe("REJECTED"); // a provider's newer one does replace its own
    const cleared = run("CLEAR", 1, 5, "OPERATOR");
    expect(verdict(cleared, run("CONSIDER", 6, 7, "SYSTEM", 0.8))).toBe("CONSIDER"); // a later hit raises a standing CLEAR
    expect(verdict(run("REJECTED", 6, 4), cleared)).toBe("CLEAR"); // a hit the person saw before deciding is superseded
    expect(verdict(cleared, run("QUEUED", 6, null))).toBe("QUEUED"); // what a run still to come finds may raise it: pending
    const assessed = [...assessByType<any>([rejected, run("CLEAR", 6, 7)]).values()];
    expect(riskOf(assessed.flatMap((x) => x.weighed))).toEqual({ riskScore: 100, riskLevel: "HIGH" });
    expect(riskAssessmentStatus([rejected, run("CLEAR", 6, 7)])).toBe("REJECTED");
    // a rejection is lifted only by a person's decision
    const allClear = new Map(
      ["KYC", "SANCTIONS_SCREENING", "TRANSACTION_MONITORING"].map((type) => [type, { type, status: "CLEAR", createdAt: at(0) }]),
    ) as never;
    expect(statusAfterChecks("REJECTED", allClear)).toBeNull();
    expect(statusAfterChecks("REJECTED", allClear, { byPerson: true })).toEqual({ status: "ACTIVE", kycStatus: "APPROVED" });
  });
  it("asks for the checks a change calls for", () => {
    expect(checksForChange(["lastName"])).toEqual(["KYC", "SANCTIONS_SCREENING"]);
    expect(checksForChange(["countryOfResidence"])).toEqual(["KYC", "TRANSACTION_MONITORING"]);
    expect(checksForChange(["nationality"])).toEqual(["KYC", "SANCTIONS_SCREENING", "TRANSACTION_MONITORING"]);
    expect(checksForChange(["email", "emailKey"])).toEqual(["KYC"]);
    expect(checksForChange(["status"])).toEqual([]);
  });
});

describe.each(backends)("the check engine on %s", (backend) => {
  let t: TestApp;
  let key: string;
  let clientId: string;
  const user = async (id: string) => (await t.rest("GET", `/v2/users/${id}`, { key })).body;
  const settled = (id: string, what: (u: any) => boolean, label: string) => waitFor(() => user(id), what, label);
  /** A user's events of a type, once `ready` holds (catch-up waits for older transactions still open on the server). */
  const eventsOf = (type: string, userId: string, ready: (e: any[]) => boolean) =>
    waitFor(
      async () => ((await t.rest("GET", `/v2/events?types=${type}&records_per_page=100`, { key })).body.data as any[]).filter((e) => e.data.user_id === userId),
      ready,
      type,
    );

  async function completeUser(extra: Record<string, unknown> = {}) {
    const res = await t.rest("POST", "/v2/users", { key, body: { ...COMPLETE_SG, email: `${randomUUID()}@example.com`, ...extra } });
    expect(res.status).toBe(201);
    const userId = res.body.user_id as string;
    for (const documentType of ["PASSPORT", "PROOF_OF_ADDRESS"] as const)
      await t.db.document.create({
        data: { clientId, userId, documentType, fileName: "scan.pdf", mimeType: "application/pdf", sizeBytes: 1, sha256: "0".repeat(64) },
      });
    await t.db.user.update({ where: { id: userId }, data: { phoneVerified: true } });
    return userId;
  }
  async function activeUser() {
    const userId = await completeUser();
    expect((await t.rest("POST", "/v2/users/verify", { key, body: { user_id: userId } })).status).toBe(202);
    await settled(userId, (u) => u.status === "ACTIVE", "ACTIVE");
    return userId;
  }

  beforeAll(async () => {
    t = await startTestApp(backend);
    ({ key, clientId } = await t.createClient("Risk"));
  });
  afterAll(() => t?.stop());

  it("clears a complete user: all three runs CLEAR → ACTIVE, APPROVED, LOW, with events in the outbox", async () => {
    const userId = await activeUser();
    const u = await user(userId);
    expect(u).toMatchObject({ status: "ACTIVE", kyc_status: "APPROVED", risk_level: "LOW", risk_score: 0, risk_assessment_status: "CLEARED" });
    const runs = (await t.rest("GET", `/v2/users/${userId}/checks`, { key })).body.data;
    const verification = runs.filter((r: any) => r.trigger === "VERIFICATION");
    expect(verification.map((r: any) => r.type).sort()).toEqual(["KYC", "SANCTIONS_SCREENING", "TRANSACTION_MONITORING"]);
    expect(verification.every((r: any) => r.status === "CLEAR" && r.completed_at)).toBe(true);
    const sanctions = verification.find((r: any) => r.type === "SANCTIONS_SCREENING");
    expect(sanctions.result).toMatchObject({ matches: [], reasons: ["no_match"], provider: expect.stringMatching(/^ofac-sdn-2024-05-03\+/) });
    const movedEvents = await eventsOf("user.status.updated", userId, (e) => e.length >= 2);
    const moved = movedEvents.map((e) => e.data.status);
    expect(moved).toEqual(["IN_REVIEW", "ACTIVE"]);
    const mine = (await eventsOf("check.sanctions_screening.updated", userId, (e) => e.some((x) => x.data.check.trigger === "VERIFICATION"))).at(-1);
    expect(mine.data).toMatchObject({ user_id: userId, check: { type: "SANCTIONS_SCREENING", status: "CLEAR" }, user: { user_id: userId } });
    expect(JSON.stringify(mine)).not.toContain("Mei"); // events carry state, not personal data
  });

  it("works the runs one change queued as one write: one claim, one settle, the user moved once", async () => {
    const userId = await activeUser();
    const runs = await t.db.checkRun.findMany({ where: { userId, trigger: "VERIFICATION" }, select: { id: true } });
    expect(runs).toHaveLength(3);
    const completed = await t.db.auditEntry.findMany({
      where: { action: "check.completed", targetId: { in: runs.map((r) => r.id) } },
      select: { requestId: true },
    });
    expect(completed).toHaveLength(3);
    expect(new Set(completed.map((a) => a.requestId)).size).toBe(1); // one job's write, not three
    // and the user was assessed in that same write, once
    const assessed = await t.db.auditEntry.findMany({ where: { action: "user.risk_assessed", targetId: userId, requestId: completed[0]!.requestId } });
    expect(assessed).toHaveLength(1);
  });

  it("suspends an ACTIVE user renamed to a listed person: REJECTED screening naming the SDN entry, risk HIGH", async () => {
    const userId = await activeUser();
    const put = await t.rest("PUT", `/v2/users/${userId}`, { key, body: { ...LISTED, nationality: "IR" } });
    expect(put.status).toBe(200);
    const u = await settled(userId, (x) => x.status === "SUSPENDED", "SUSPENDED");
    expect(u).toMatchObject({ kyc_status: "REJECTED", risk_level: "HIGH", risk_score: 100, risk_assessment_status: "REJECTED" });
    const [latest] = (await t.rest("GET", `/v2/users/${userId}/checks`, { key })).body.data.filter((r: any) => r.type === "SANCTIONS_SCREENING");
    expect(latest).toMatchObject({
      status: "REJECTED",
      trigger: "USER_UPDATED",
      result: { matches: [expect.objectContaining({ entryId: "10481", name: "SOLEIMANI, Qasem" })] },
    });
    expect(latest.result.score).toBeGreaterThanOrEqual(0.95);
    const levels = (await eventsOf("user.risk_level.updated", userId, (e) => e.at(-1)?.data.risk_level === "HIGH")).map((e) => e.data.risk_level);
    expect(levels.at(-1)).toBe("HIGH");
  });

  it("takes upstream results (admin only): an alert suspends, stays open in later runs, and a CLEAR result lifts it", async () => {
    const userId = await activeUser();
    const runs = (await t.rest("GET", `/v2/users/${userId}/checks`, { key })).body.data;
    const tm = runs.find((r: any) => r.type === "TRANSACTION_MONITORING");
    const forbidden = await t.rest("POST", `/v2/checks/${tm.check_id}/result`, { key, body: { status: "REJECTED" } });
    expect(forbidden.status).toBe(403);
    expect((await t.rest("POST", `/v2/checks/${randomUUID()}/result`, { key: ADMIN_KEY, body: { status: "CLEAR" } })).status).toBe(404);
    const bad = await t.rest("POST", `/v2/checks/${tm.check_id}/result`, { key: ADMIN_KEY, body: { status: "QUEUED" } });
    expect(bad.status).toBe(400);
    expect((await t.rest("POST", `/v2/checks/${tm.check_id}/result`, { key: ADMIN_KEY, body: { status: "CONSIDER", score: 2 } })).body.errors[0].field).toBe(
      "score",
    );

    const alert = await t.rest("POST", `/v2/checks/${tm.check_id}/result`, {
      key: ADMIN_KEY,
      body: { status: "CONSIDER", reasons: ["structuring"], score: 0.8 },
    });
    expect(alert.status).toBe(200);
    expect(alert.body).toMatchObject({ check_id: tm.check_id, status: "CONSIDER", result: { score: 0.8, reasons: ["structuring"], provider: "upstream" } });
    expect(await user(userId)).toMatchObject({ status: "ACTIVE", kyc_status: "NEEDS_REVIEW", risk_level: "HIGH", risk_score: 80 });

    // a later monitoring run (the address changed) still carries the open alert
    await t.rest("PUT", `/v2/users/${userId}`, { key, body: { residential_address: { ...COMPLETE_SG.residential_address, line1: "2 Marina Blvd" } } });
    const rerun = await waitFor(
      async () => (await t.rest("GET", `/v2/users/${userId}/checks`, { key })).body.data.find((r: any) => r.type === "TRANSACTION_MONITORING"),
      (r) => r.check_id !== tm.check_id && r.status !== "QUEUED" && r.status !== "RUNNING",
      "the monitoring rerun",
    );
    expect(rerun).toMatchObject({ status: "CONSIDER", result: { reasons: expect.arrayContaining(["upstream_alert_open", "upstream:structuring"]) } });

    const gql = await t.gql(ADMIN_KEY, `mutation($input: RecordCheckResultInput!) { recordCheckResult(input: $input) { id status result { provider } } }`, {
      input: { checkId: rerun.check_id, status: "CLEAR" },
    });
    expect(gql.data.recordCheckResult).toMatchObject({ id: rerun.check_id, status: "CLEAR", result: { provider: "upstream" } });
    expect(await user(userId)).toMatchObject({ status: "ACTIVE", kyc_status: "APPROVED", risk_level: "LOW" });
  });

  it("weighs jurisdictions: FATF call for action → CONSIDER, increased monitoring → MEDIUM", async () => {
    const kp = await completeUser({ nationality: "KP" });
    const vn = await completeUser({ nationality: "VN" });
    const tmOf = (id: string) =>
      waitFor(
        async () => (await t.rest("GET", `/v2/users/${id}/checks`, { key })).body.data.find((r: any) => r.type === "TRANSACTION_MONITORING"),
        (r) => r?.completed_at,
        "monitoring",
      );
    expect(await tmOf(kp)).toMatchObject({ status: "CONSIDER", result: { score: 0.9, reasons: ["jurisdiction_call_for_action:nationality:KP"] } });
    expect(await tmOf(vn)).toMatchObject({ status: "CLEAR", result: { score: 0.5 } });
    await settled(vn, (u) => u.risk_level === "MEDIUM", "MEDIUM");
    await settled(kp, (u) => u.risk_level === "HIGH", "HIGH");
    expect((await user(kp)).status).toBe("PENDING"); // no verification submitted: only risk moves
  });

  /** The user's sanctions screening run and what posting `status` on it (operator key) answered. */
  async function decide(userId: string, status: string, extra: Record<string, unknown> = {}, checkId?: string) {
    const runs = (await t.rest("GET", `/v2/users/${userId}/checks`, { key })).body.data;
    const run = checkId ?? runs.find((r: any) => r.type === "SANCTIONS_SCREENING").check_id;
    return t.rest("POST", `/v2/checks/${run}/result`, { key: ADMIN_KEY, body: { status, ...extra } });
  }
  const screeningDone = (userId: string, checkId: string) =>
    waitFor(
      async () => (await t.rest("GET", `/v2/users/${userId}/checks`, { key })).body.data.find((r: any) => r.check_id === checkId),
      (r) => r && r.status !== "QUEUED" && r.status !== "RUNNING",
      "the new screening",
    );
  const HELD = { status: "SUSPENDED", kyc_status: "REJECTED", risk_level: "HIGH", risk_score: 100, risk_assessment_status: "REJECTED" };

  it("keeps an operator's REJECTED when the client asks for a new screening, which comes back CLEAR", async () => {
    const userId = await activeUser();
    const posted = await decide(userId, "REJECTED", { reasons: ["confirmed SDN match"] });
    expect(posted.status).toBe(200);
    expect(posted.body).toMatchObject({ status: "REJECTED", decided_by: "OPERATOR" });
    expect(await user(userId)).toMatchObject(HELD);

    const asked = await t.rest("POST", `/v2/users/${userId}/checks`, { key, body: { type: "SANCTIONS_SCREENING" } });
    expect(asked.status).toBe(202);
    expect(await screeningDone(userId, asked.body.check_id)).toMatchObject({ status: "CLEAR", decided_by: "SYSTEM", trigger: "MANUAL" }); // the run records its own result
    await t.checksSettled();
    const held = await user(userId);
    expect(held).toMatchObject(HELD);
    expect(held.standing_decisions).toEqual([
      { check_id: posted.body.check_id, type: "SANCTIONS_SCREENING", status: "REJECTED", decided_by: "OPERATOR", decided_at: expect.any(String) },
    ]);
    const gql = await t.gql(key, `query($id: ID!) { user(id: $id) { status standingDecisions { checkId decidedBy } checks { id decidedBy } } }`, {
      id: userId,
    });
    expect(gql.data.user.standingDecisions).toEqual([{ checkId: posted.body.check_id, decidedBy: "OPERATOR" }]);
    expect(gql.data.user.checks.find((c: any) => c.id === posted.body.check_id).decidedBy).toBe("OPERATOR");

    // a person changes it: an operator's CLEAR, on the same run, lifts it
    expect((await decide(userId, "CLEAR", {}, posted.body.check_id)).status).toBe(200);
    expect(await user(userId)).toMatchObject({ status: "ACTIVE", kyc_status: "APPROVED", risk_level: "LOW", risk_assessment_status: "CLEARED" });
  });

  it("keeps it through the periodic re-screening too, and a provider cannot replace a person's decision", async () => {
    const userId = await activeUser();
    const posted = await decide(userId, "REJECTED");
    // a year on, the user is due for re-screening
    await t.db.$executeRawUnsafe(`update check_runs set created_at = created_at - interval '400 days' where user_id = $1::uuid`, userId);
    await runPeriodicChecks(t.app.services);
    const periodic = await t.db.checkRun.findFirstOrThrow({ where: { userId, trigger: "PERIODIC", type: "SANCTIONS_SCREENING" } });
    expect(await screeningDone(userId, periodic.id)).toMatchObject({ status: "CLEAR", decided_by: "SYSTEM" });
    await t.checksSettled();
    expect(await user(userId)).toMatchObject(HELD);

    const byProvider = await decide(userId, "CLEAR", { decided_by: "PROVIDER" }, posted.body.check_id);
    expect(byProvider).toMatchObject({ status: 409, body: { code: "CONFLICT" } });
    expect((await decide(userId, "CLEAR", {}, periodic.id)).status).toBe(200);
    expect(await user(userId)).toMatchObject({ status: "ACTIVE", kyc_status: "APPROVED" });
    // the newest decision is on the newest run holding one: a decision on an older run is refused, naming it
    const refused = await decide(userId, "REJECTED", {}, posted.body.check_id);
    expect(refused).toMatchObject({ status: 409, body: { code: "CONFLICT", detail: expect.stringContaining(periodic.id) } });
  });

  it("lets a person lift a rejection of a user in review: REJECTED → ACTIVE only once a person cleared every check", async () => {
    const userId = await completeUser({ nationality: "KP" }); // monitoring: CONSIDER, the user waits in review
    await t.checksSettled();
    expect((await t.rest("POST", "/v2/users/verify", { key, body: { user_id: userId } })).status).toBe(202);
    await t.checksSettled();
    expect(await user(userId)).toMatchObject({ status: "IN_REVIEW", kyc_status: "NEEDS_REVIEW" });
    const newest = async (type: "SANCTIONS_SCREENING" | "TRANSACTION_MONITORING") =>
      (await t.db.checkRun.findFirstOrThrow({ where: { userId, type }, orderBy: { createdAt: "desc" } })).id;
    expect((await decide(userId, "REJECTED", {}, await newest("SANCTIONS_SCREENING"))).status).toBe(200);
    expect(await user(userId)).toMatchObject({ status: "REJECTED", kyc_status: "REJECTED" });
    expect((await decide(userId, "CLEAR", {}, await newest("SANCTIONS_SCREENING"))).status).toBe(200);
    expect(await user(userId)).toMatchObject({ status: "REJECTED", kyc_status: "REJECTED" }); // monitoring still asks for review
    expect((await decide(userId, "CLEAR", {}, await newest("TRANSACTION_MONITORING"))).status).toBe(200);
    expect(await user(userId)).toMatchObject({ status: "ACTIVE", kyc_status: "APPROVED" });
  });

  it("queues a check on request (MANUAL) and reuses a queued one", async () => {
    const userId = await completeUser();
    const res = await t.rest("POST", `/v2/users/${userId}/checks`, { key, body: { type: "SANCTIONS_SCREENING" } });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ type: "SANCTIONS_SCREENING", trigger: "MANUAL", user_id: userId });
    await waitFor(
      async () => (await t.rest("GET", `/v2/users/${userId}/checks`, { key })).body.data.find((r: any) => r.check_id === res.body.check_id),
      (r) => r.status === "CLEAR",
      "the manual run",
    );
    expect((await t.rest("POST", `/v2/users/${userId}/checks`, { key, body: { type: "NOPE" } })).status).toBe(400);
  });
});

describe("coalescing (jobs not worked)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp("pglite", { JOBS: "0" });
  });
  afterAll(() => t?.stop());

  it("keeps one queued run per type however many changes come before it runs; a document change queues KYC", async () => {
    const { key } = await t.createClient("Busy");
    const userId = (await t.rest("POST", "/v2/users", { key, body: { first_name: "Ana", last_name: "Silva", email: "ana@example.com" } })).body.user_id;
    for (const last_name of ["Silva Costa", "Costa", "Souza"])
      expect((await t.rest("PUT", `/v2/users/${userId}`, { key, body: { last_name } })).status).toBe(200);
    await t.rest("PUT", `/v2/users/${userId}`, { key, body: { country_of_residence: "GB" } });
    const runs = await t.db.checkRun.findMany({ where: { userId } });
    expect(runs.map((r) => r.type).sort()).toEqual(["KYC", "SANCTIONS_SCREENING", "TRANSACTION_MONITORING"]);
    expect(runs.every((r) => r.status === "QUEUED")).toBe(true);
    expect(await t.app.services.jobs.boss.findJobs("checks.run", { queued: true })).toHaveLength(1); // one job for the runs a change queued
    const upload = await t.rest("POST", "/v2/users/authentications/documents", {
      key,
      body: {
        user_id: userId,
        document_type: "PASSPORT",
        document_number: "E1234567",
        issuing_country: "SG",
        issue_date: "2020-01-15",
        expiry_date: "2030-01-14",
        file: { file_name: "p.png", mime_type: "image/png", content_base64: PNG_BASE64 },
      },
    });
    expect(upload.status).toBe(201);
    expect(await t.db.checkRun.count({ where: { userId } })).toBe(3);
    expect((await t.db.checkRun.findFirst({ where: { userId, type: "KYC" } }))?.trigger).toBe("DOCUMENT_CHANGED");
  });

  it("queues checks only for what a change really changes: the same name sent again screens nobody", async () => {
    const { key } = await t.createClient("Resender");
    const userId = (await t.rest("POST", "/v2/users", { key, body: { first_name: "Bea", last_name: "Lima", email: "bea@example.com" } })).body.user_id;
    await t.db.checkRun.updateMany({ where: { userId }, data: { status: "CLEAR" } }); // done: nothing left to reuse
    expect((await t.rest("PUT", `/v2/users/${userId}`, { key, body: { last_name: "Lima", locale: "pt-BR" } })).status).toBe(200);
    expect(await t.db.checkRun.count({ where: { userId } })).toBe(3);
    expect((await t.rest("PUT", `/v2/users/${userId}`, { key, body: { last_name: "Lima Souza" } })).status).toBe(200);
    expect((await t.db.checkRun.findMany({ where: { userId, status: "QUEUED" } })).map((r) => r.type).sort()).toEqual(["KYC", "SANCTIONS_SCREENING"]);
  });
});

describe.each(backends)("settling many users at once (%s, jobs not worked)", (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend, { JOBS: "0" });
  });
  afterAll(() => t?.stop());

  it("works the runs of many users in the same number of statements as those of two, each user settled and every run's event raised", async () => {
    const { key } = await t.createClient("Burst");
    const signUp = async (i: number) =>
      (await t.rest("POST", "/v2/users", { key, body: { ...COMPLETE_SG, email: `burst-${i}@example.com` } })).body.user_id as string;
    const users: string[] = [];
    for (let i = 0; i < 8; i++) users.push(await signUp(i));
    const runsOf = async (ids: string[]) => (await t.db.checkRun.findMany({ where: { userId: { in: ids } }, select: { id: true } })).map((r) => r.id);
    const deps = { ...t.app.services, providers: builtInProviders({ ...t.app.services, dataDir: t.app.config.dataDir }) };
    await runChecks(deps, await runsOf(users.slice(0, 1))); // the sanctions list loaded once
    const [ofTwo, ofFive] = [await runsOf(users.slice(1, 3)), await runsOf(users.slice(3))];
    const two = await t.app.database.countQueries(() => runChecks(deps, ofTwo));
    const five = await t.app.database.countQueries(() => runChecks(deps, ofFive));
    expect(five.queries.length).toBe(two.queries.length);
    // claim, users, alerts, suppressed hits; outcomes, users locked, assessed runs, moves, effects, COMMIT; the relay's claim, its webhook fan-out, COMMIT
    expect(two.queries.length).toBeLessThanOrEqual(13);
    const settled = await t.db.user.findMany({ where: { id: { in: users } }, select: { riskLevel: true, checks: { select: { status: true } } } });
    for (const user of settled) {
      expect(user.riskLevel).not.toBeNull();
      expect(user.checks.filter((c) => c.status === "QUEUED" || c.status === "RUNNING")).toEqual([]);
    }
    const events = await t.db.event.findMany({ select: { type: true, data: true } });
    for (const id of users) expect(events.filter((e) => (e.data as { userId?: string }).userId === id && e.type.startsWith("check.")).length).toBe(3);
  });
});

/**
 * The write path's plain statements leave and answer the rows Prisma itself would have: the inserts
 * of db/insert-rows.ts, and the check engine's outcome update and locked user read. Read back through
 * Prisma, each equals what the writer built or was answered (ids, UTC timestamps, enums, arrays,
 * Json), on either database.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATOR } from "../principal.js";
import { queueFreshChecks } from "../domains/checks/checks.store.js";
import { completeRun } from "../flows/run-checks.js";
import { backends, startTestApp, type TestApp } from "../../test/helpers/app.js";

describe.each(backends)("rows written by plain statements (%s)", (backend) => {
  let t: TestApp;
  let clientId: string;
  let userId: string;
  beforeAll(async () => {
    t = await startTestApp(backend, { JOBS: "0" });
    let key: string;
    ({ key, clientId } = await t.createClient("Inserts"));
    userId = (await t.rest("POST", "/v2/users", { key, body: { first_name: "Ines", last_name: "Row", email: "ines@example.com" } })).body.user_id;
  });
  afterAll(() => t?.stop());

  it("writes check runs, audit entries and outbox events as Prisma reads them back", async () => {
    const started = Date.now();
    const { services } = t.app;
    const runs = await services.transact({ principal: OPERATOR, requestId: "insert-rows-1" }, async (write) => {
      write.auditMany([
        { action: "test.many", targetType: "user", targetId: userId, changedFields: ["email", "phone number"] },
        { action: "test.many", targetType: "user", targetId: userId },
      ]);
      write.audit({ action: "test.one", targetType: "user", targetId: userId, changedFields: [] });
      write.emit("user.status.updated", clientId, { userId, status: "ACTIVE", previousStatus: "PENDING", user: { nested: { list: [1, "two", null] } } });
      return queueFreshChecks(write, { clientId, userId }, ["KYC", "TRANSACTION_MONITORING"], "USER_UPDATED");
    });
    const stored = await t.db.checkRun.findMany({ where: { id: { in: runs.map((r) => r.id) } } });
    expect(stored.sort((a, b) => a.type.localeCompare(b.type))).toEqual([...runs].sort((a, b) => a.type.localeCompare(b.type)));
    expect(runs.map((r) => r.status)).toEqual(["QUEUED", "QUEUED"]);
    // the clock as Prisma writes it: UTC, to the millisecond
    expect(Math.abs(runs[0]!.createdAt.getTime() - started)).toBeLessThan(5_000);

    const audits = await t.db.auditEntry.findMany({ where: { requestId: "insert-rows-1" }, orderBy: { action: "asc" } });
    expect(audits.map(({ action, clientId: c, actor, changedFields }) => ({ action, c, actor, changedFields }))).toEqual([
      { action: "test.many", c: null, actor: "operator", changedFields: ["email", "phone number"] },
      { action: "test.many", c: null, actor: "operator", changedFields: [] },
      { action: "test.one", c: null, actor: "operator", changedFields: [] },
    ]);
    for (const audit of audits) expect(Math.abs(audit.createdAt.getTime() - started)).toBeLessThan(5_000);

    const [event] = await t.db.event.findMany({ where: { clientId, type: "user.status.updated" }, orderBy: { seq: "desc" }, take: 1 });
    expect(event).toMatchObject({ clientId, data: { userId, status: "ACTIVE", user: { nested: { list: [1, "two", null] } } } });
    expect(typeof event!.seq).toBe("bigint");
    expect(Math.abs(event!.createdAt.getTime() - started)).toBeLessThan(5_000);

    // a run's outcome recorded: the run and the user answered are the rows as Prisma reads them
    const outcome = { status: "CONSIDER", score: 0.42, reasons: ["name_partial_match"], matches: [{ name: "X", score: 0.9 }], provider: "test" } as const;
    const done = await completeRun(services, runs[0]!, outcome as never, { requestId: "insert-rows-2", from: ["QUEUED"], decidedBy: "SYSTEM" });
    expect(done!.run).toEqual(await t.db.checkRun.findUnique({ where: { id: runs[0]!.id } }));
    expect(done!.run).toMatchObject({ status: "CONSIDER", result: { score: 0.42, reasons: ["name_partial_match"], provider: "test" } });
    expect(done!.user).toEqual(
      await t.db.user.findUnique({
        where: { id: userId },
        select: { id: true, clientId: true, externalId: true, status: true, kycStatus: true, riskLevel: true, riskScore: true, version: true, updatedAt: true },
      }),
    );
    expect(done!.user).toMatchObject({ riskScore: 42, riskLevel: "MEDIUM" });
    // a run no longer in one of `from` is left alone
    expect(
      await completeRun(services, runs[0]!, { ...outcome, status: "CLEAR" } as never, {
        requestId: "insert-rows-3",
        from: ["QUEUED", "RUNNING"],
        decidedBy: "SYSTEM",
      }),
    ).toBeNull();
    expect((await t.db.checkRun.findUnique({ where: { id: runs[0]!.id } }))!.status).toBe("CONSIDER");
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, startTestApp, type TestApp } from "../../test/helpers/app.js";
import { batchReadsOf, findOwnedById } from "./batched-reads.js";

describe.each(backends)("batched by-id reads on %s", (backend) => {
  let t: TestApp;
  let a: { clientId: string; key: string };
  let b: { clientId: string; key: string };
  let userA: string;
  let userB: string;

  beforeAll(async () => {
    t = await startTestApp(backend, { JOBS: "0" }); // the queries counted here are the reads', not background checks'
    a = await t.createClient("Tenant A");
    b = await t.createClient("Tenant B");
    const made = await t.rest("POST", "/v2/users", {
      key: a.key,
      body: { first_name: "Ana", last_name: "Cruz", email: "ana@example.com", date_of_birth: "1990-05-17" },
    });
    if (made.status !== 201) throw new Error(JSON.stringify(made.body));
    userA = made.body.user_id;
    userB = (await t.rest("POST", "/v2/users", { key: b.key, body: { first_name: "Ben", last_name: "Ode", email: "ben@example.com" } })).body.user_id;
  });
  afterAll(() => t?.stop());

  const read = (clientId: string, id: string) =>
    findOwnedById(t.db, "user", clientId, id, { select: { id: true, firstName: true } }, () => {
      throw new Error("the batched path was expected");
    });

  it("two clients' ids in one window: one query for both, each answered only with its own rows", async () => {
    const { result, queries } = await t.app.database.countQueries(() =>
      Promise.all([read(a.clientId, userA), read(b.clientId, userB), read(a.clientId, userB), read(b.clientId, userA), read(a.clientId, userA)]),
    );
    expect(result.map((u) => (u as { firstName?: string } | null)?.firstName ?? null)).toEqual(["Ana", "Ben", null, null, "Ana"]);
    expect(queries.filter((q) => /from "?[\w"]*\.?"?users"?/i.test(q))).toHaveLength(1);
    expect(result[0]).not.toBe(result[4]); // the same row asked twice: each caller its own object
  });

  it("concurrent REST reads across tenants: 200 for one's own user, 404 for the other's, fields intact", async () => {
    const [own, foreign, ownB] = await Promise.all([
      t.rest("GET", `/v2/users/${userA}`, { key: a.key }),
      t.rest("GET", `/v2/users/${userB}`, { key: a.key }),
      t.rest("GET", `/v2/users/${userB}`, { key: b.key }),
    ]);
    expect([own.status, foreign.status, ownB.status]).toEqual([200, 404, 200]);
    expect(own.body).toMatchObject({ user_id: userA, first_name: "Ana", date_of_birth: "1990-05-17", status: "PENDING" });
    expect(ownB.body.first_name).toBe("Ben");
  });

  it("a row of another client that reached a batch (a broken filter) is not handed over", async () => {
    const other = { id: userB, clientId: b.clientId, firstName: "Ben" };
    const fake = { user: { findMany: async () => [other] } };
    batchReadsOf(fake);
    await expect(findOwnedById(fake, "user", a.clientId, userB, undefined, async () => other)).resolves.toBeNull();
  });

  it("inside a transaction the read is not batched: it runs in the transaction and sees its writes", async () => {
    const name = await t.db.$transaction(async (tx) => {
      await tx.user.update({ where: { id: userA }, data: { middleName: "Uncommitted" } });
      const seen = await findOwnedById(tx, "user", a.clientId, userA, undefined, () => tx.user.findFirst({ where: { id: userA, clientId: a.clientId } }));
      await tx.user.update({ where: { id: userA }, data: { middleName: null } });
      return seen?.middleName;
    });
    expect(name).toBe("Uncommitted");
  });

  it("a failed batch fails every read in it", async () => {
    const fake = {
      user: {
        findMany: async () => {
          throw new Error("database away");
        },
      },
    };
    batchReadsOf(fake);
    const reads = [findOwnedById(fake, "user", "c", "1", undefined, async () => null), findOwnedById(fake, "user", "c", "2", undefined, async () => null)];
    for (const r of reads) await expect(r).rejects.toThrow("database away");
  });

  it("an idle process runs no query from the loader (no timer is left behind)", async () => {
    await t.rest("GET", `/v2/users/${userA}`, { key: a.key });
    const { queries } = await t.app.database.countQueries(() => new Promise((r) => setTimeout(r, 300)));
    expect(queries).toEqual([]);
  });
});

/** Relay paging on every connection: last/before, cursors checked, nested lists paged too. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./helpers/app.js";

describe("GraphQL paging", () => {
  let t: TestApp;
  let key: string;
  const names = (conn: any) => conn.edges.map((e: any) => e.node.firstName);
  beforeAll(async () => {
    t = await startTestApp();
    key = (await t.createClient("Pager", ["users:read", "users:write", "lookups:read"])).key;
    for (const first of ["Ana", "Ben", "Cy", "Dee", "Eve"])
      expect(
        (await t.rest("POST", "/v2/users", { key, body: { first_name: first, last_name: "Page", email: `${first.toLowerCase()}@example.com` } })).status,
      ).toBe(201);
  });
  afterAll(() => t?.stop());

  it("pages backwards: last alone is the end of the list, last with before the page before it", async () => {
    const all = await t.gql(key, `{ users(first: 10) { totalCount edges { cursor node { firstName } } } }`);
    const order = names(all.data.users);
    expect(order).toHaveLength(5);
    const tail = await t.gql(key, `{ users(last: 2) { totalCount pageInfo { hasPreviousPage hasNextPage startCursor } edges { node { firstName } } } }`);
    expect(tail.errors).toBeUndefined();
    expect(names(tail.data.users)).toEqual(order.slice(3));
    expect(tail.data.users).toMatchObject({ totalCount: 5, pageInfo: { hasPreviousPage: true, hasNextPage: false } });
    const before = await t.gql(key, `query($c: String) { users(last: 2, before: $c) { edges { node { firstName } } } }`, {
      c: tail.data.users.pageInfo.startCursor,
    });
    expect(names(before.data.users)).toEqual(order.slice(1, 3));
  });

  it("counts a list only when its selection asks for totalCount, and then once", async () => {
    const counts = (queries: string[]) => queries.filter((q) => /count\(/i.test(q)).length;
    const page = await t.app.database.countQueries(() => t.gql(key, `{ users(first: 2) { pageInfo { hasNextPage } edges { node { firstName } } } }`));
    expect(page.result.data.users).toMatchObject({ pageInfo: { hasNextPage: true } });
    expect(page.result.data.users.edges).toHaveLength(2);
    expect(counts(page.queries)).toBe(0);
    const last = await t.app.database.countQueries(() => t.gql(key, `{ users(first: 5) { pageInfo { hasNextPage } edges { node { firstName } } } }`));
    expect(last.result.data.users.pageInfo.hasNextPage).toBe(false);
    for (const asked of [
      `{ users(first: 2) { totalCount edges { node { firstName } } } }`,
      `{ users(first: 2) { a: totalCount b: totalCount } }`,
      `{ users(first: 2) { ... on UserConnection { totalCount } } }`,
      `{ users(first: 2) { ...total } } fragment total on UserConnection { totalCount }`,
      `{ users(first: 2) { edges { cursor } } users(first: 2) { totalCount } }`,
    ]) {
      const read = await t.app.database.countQueries(() => t.gql(key, asked));
      expect(read.result.errors, asked).toBeUndefined();
      expect(
        Object.values(read.result.data.users).filter((v) => typeof v === "number"),
        asked,
      ).toEqual(
        Object.values(read.result.data.users)
          .filter((v) => typeof v === "number")
          .map(() => 5),
      );
      expect(counts(read.queries), asked).toBe(1);
    }
    // the REST list still says how many there are
    const rest = await t.app.database.countQueries(() => t.rest("GET", "/v2/users?records_per_page=2", { key }));
    expect(rest.result.body.pagination).toMatchObject({ total_records: 5, total_pages: 3 });
    expect(counts(rest.queries)).toBe(1);
  });

  it("answers a cursor it did not issue with VALIDATION_FAILED naming the argument", async () => {
    for (const [arg, cursor] of [
      ["after", "not a cursor!"],
      ["before", "T2Zmc2V0Q29ubmVjdGlvbjp4"],
      ["after", Buffer.from("Other:3").toString("base64")],
    ]) {
      const res = await t.gql(key, `query($c: String) { users(${arg}: $c) { totalCount } }`, { c: cursor });
      expect(res.errors?.[0].extensions, `${arg}=${cursor}`).toMatchObject({ code: "VALIDATION_FAILED", fields: [{ field: arg, code: "invalid" }] });
      expect(res.errors?.[0].message).not.toMatch(/base64/i);
    }
    const both = await t.gql(key, `{ users(first: 500, after: "x") { totalCount } }`);
    expect(both.errors?.[0].extensions.fields.map((f: any) => f.field)).toEqual(["first", "after"]);
  });

  it("pages a corridor's institutions like any list", async () => {
    const query = `query($after: String) { corridor(id: "in-inr-bank") { institutions(first: 3, after: $after, status: "active") {
      totalCount pageInfo { hasNextPage endCursor } edges { node { id status } } } } }`;
    const first = (await t.gql(key, query)).data.corridor.institutions;
    expect(first.edges).toHaveLength(3);
    expect(first.totalCount).toBeGreaterThan(3);
    expect(first.pageInfo.hasNextPage).toBe(true);
    const second = (await t.gql(key, query, { after: first.pageInfo.endCursor })).data.corridor.institutions;
    expect(second.edges).toHaveLength(3);
    expect(second.edges.map((e: any) => e.node.id)).not.toContain(first.edges[0].node.id);
    expect([...first.edges, ...second.edges].every((e: any) => e.node.status === "ACTIVE")).toBe(true);
    const last = (await t.gql(key, `{ corridor(id: "in-inr-bank") { institutions(last: 1) { totalCount edges { node { id } } } } }`)).data.corridor
      .institutions;
    expect(last.edges).toHaveLength(1);
  });
});

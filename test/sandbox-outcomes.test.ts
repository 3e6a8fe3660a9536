/**
 * docs/api.md "Testing in the sandbox" is true: every row of its table, signed up as written, gives
 * the outcome it names. The table is read from the page, so the docs cannot promise what the
 * providers do not do.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./helpers/app.js";

const page = readFileSync(path.resolve(import.meta.dirname, "../docs/api.md"), "utf8");
const section = page.slice(page.indexOf("### Testing in the sandbox"));
const rows = [...section.matchAll(/^\| `([A-Z_]+)` \| `(\{.*\})` \| `([A-Z]+)` \|$/gm)].map(([, type, body, status]) => ({
  type: type!,
  body: JSON.parse(body!) as Record<string, string>,
  status: status!,
}));

describe("the sandbox's documented outcomes", () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp("pglite");
    key = (await t.createClient("Sandbox outcomes")).key;
  });
  afterAll(() => t?.stop());

  it("reads the table from docs/api.md", () => {
    expect(rows.length).toBeGreaterThanOrEqual(8);
    expect(new Set(rows.map((r) => r.type))).toEqual(new Set(["KYC", "SANCTIONS_SCREENING", "TRANSACTION_MONITORING"]));
  });

  it("gives every documented sign-up the documented outcome", async () => {
    const users = await Promise.all(
      rows.map(async (row, n) => {
        const res = await t.rest("POST", "/v2/users", { key, body: { ...row.body, email: `sandbox-${n}@example.com` } });
        expect(res.status, JSON.stringify(row.body)).toBe(201);
        return res.body.user_id as string;
      }),
    );
    await t.checksSettled();
    for (const [n, row] of rows.entries()) {
      const runs = (await t.rest("GET", `/v2/users/${users[n]}/checks`, { key })).body.data as { type: string; status: string; created_at: string }[];
      const latest = runs.filter((r) => r.type === row.type).sort((a, b) => b.created_at.localeCompare(a.created_at))[0];
      expect(latest?.status, `${row.type} ${JSON.stringify(row.body)}`).toBe(row.status);
    }
  }, 60_000);

  it("shows each sanctions hit with the matcher's explanation, over REST and GraphQL alike", async () => {
    const body = { first_name: "Muammar", last_name: "Gadhafi", date_of_birth: "1942-06-07", nationality: "LY", email: "hit@example.com" };
    const userId = (await t.rest("POST", "/v2/users", { key, body })).body.user_id as string;
    await t.checksSettled();
    const runs = (await t.rest("GET", `/v2/users/${userId}/checks`, { key })).body.data as { type: string; result: { matches: any[] } }[];
    const hit = runs.find((run) => run.type === "SANCTIONS_SCREENING")!.result.matches[0];
    expect(hit).toMatchObject({ entryId: "12606", status: expect.stringMatching(/CONSIDER|REJECTED/) });
    expect(hit.explanation.name.pairs).toContainEqual(expect.objectContaining({ given: "gadhafi", similarity: expect.any(Number) }));
    expect(hit.explanation.dateOfBirth).toMatchObject({ given: "1942-06-07", verdict: expect.stringMatching(/exact|year|near/) });
    expect(hit.explanation.nationality).toEqual({ given: "LY", listed: [], verdict: "unknown" }); // the entry lists no nationality
    const gql = await t.gql(key, `{ user(id: "${userId}") { checks { type result { matches } } } }`);
    const viaGraphQL = gql.data.user.checks.find((run: { type: string }) => run.type === "SANCTIONS_SCREENING").result.matches[0];
    expect(viaGraphQL).toEqual(hit);
  });
});

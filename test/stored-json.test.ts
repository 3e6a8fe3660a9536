/**
 * JSON a caller makes the service store, end to end: a posted result's matches are judged when they
 * arrive (400 VALIDATION_FAILED naming each problem by path, on REST and GraphQL, for the sandbox's simulation and
 * the operator's posted result alike), and rows stored before that (odd shapes, oversize matches,
 * written here straight into the database) read back on every route that shows them.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY, backends, startTestApp, type TestApp } from "./helpers/app.js";
import { within } from "./helpers/eventually.js";

const SIMULATE = `mutation($input: SimulateCheckResultInput!) { simulateCheckResult(input: $input) { id status } }`;
const HITS = `hits { entryId entryName entryNames matchedName score status reasons programs explanation { name { score pairs { given listed similarity } } alias { matched } } }`;
const RUNS = `query($id: ID!) { checks(userId: $id, first: 100) { edges { node { id status result { score reasons matches provider matcher } } } } }`;

/** The migration that turns rows stored before matches were bounded into what reads show of them. */
const BOUNDS_MIGRATION = readFileSync(new URL("../prisma/migrations/20261207210000_stored_json_bounds/migration.sql", import.meta.url), "utf8");

/** ~20 KB of empty arrays, each an object of its own once parsed */
const inflated = () => Array.from({ length: 6900 }, () => []);

describe.each(backends)("stored JSON on %s", (backend) => {
  let t: TestApp;
  let key: string;
  let clientId: string;
  let reviewerKey: string;

  const signUp = async () => {
    const res = await t.rest("POST", "/v2/users", { key, body: { first_name: "Ana", last_name: "Cruz", email: `${randomUUID()}@example.com` } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    await t.checksSettled();
    return res.body.user_id as string;
  };
  const screeningOf = async (userId: string) =>
    ((await t.rest("GET", `/v2/users/${userId}/checks`, { key })).body.data as any[]).find((r) => r.type === "SANCTIONS_SCREENING").check_id as string;

  beforeAll(async () => {
    t = await startTestApp(backend);
    ({ key, clientId } = await t.createClient("Stored JSON"));
    const reviewer = await t.rest("POST", `/admin/clients/${clientId}/reviewers`, { key: ADMIN_KEY, body: { name: "Ada", email: "ada@example.com" } });
    expect(reviewer.status, JSON.stringify(reviewer.body)).toBe(201);
    reviewerKey = reviewer.body.api_key;
  }, 60_000);
  afterAll(() => t?.stop());

  it("refuses odd and oversize matches when they arrive: 400 naming each by path, on REST and GraphQL, nothing stored", async () => {
    const checkId = await screeningOf(await signUp());
    const odd = [{ entryId: "UP-1", entryNames: "CRUZ, Ana" }, "noise", { entryId: 5, score: 7 }];
    const rest = await t.rest("POST", `/v2/sandbox/checks/${checkId}/simulate`, { key, body: { status: "CONSIDER", matches: odd } });
    expect(rest.status, JSON.stringify(rest.body)).toBe(400);
    expect(rest.headers.get("content-type")).toMatch(/application\/problem\+json/);
    expect(rest.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      "matches[0].entry_names",
      "matches[1]",
      "matches[2].entry_id",
      "matches[2].score",
    ]);

    const gql = await t.gql(key, SIMULATE, { input: { checkId, status: "CONSIDER", matches: odd } });
    expect(gql.errors?.[0]?.extensions).toMatchObject({ code: "VALIDATION_FAILED" });
    const fields = (gql.errors?.[0]?.extensions?.fields ?? []) as { field: string }[];
    expect(fields.map((e) => e.field)).toContain("matches.0.entryNames");

    const oversize = Array.from({ length: 45 }, (_, i) => ({ entryId: `UP-${i}`, entryNames: inflated() }));
    for (const [path, as] of [
      [`/v2/sandbox/checks/${checkId}/simulate`, key],
      [`/v2/checks/${checkId}/result`, ADMIN_KEY],
    ] as const) {
      const refused = await t.rest("POST", path, {
        key: as,
        body: { status: "CONSIDER", decided_by: as === ADMIN_KEY ? "PROVIDER" : undefined, matches: oversize },
      });
      expect(refused.status, JSON.stringify(refused.body).slice(0, 500)).toBe(400);
      expect(refused.body.errors).toEqual([expect.objectContaining({ field: "matches[0]", code: "too_long" })]);
      expect(JSON.stringify(refused.body).length).toBeLessThan(2000);
    }
    const run = await t.db.checkRun.findUniqueOrThrow({ where: { id: checkId } });
    expect(run.decidedBy).toBe("SYSTEM");

    // snake_case spellings, as a REST caller writes them, are stored as the matcher spells them
    const taken = await t.rest("POST", `/v2/sandbox/checks/${checkId}/simulate`, {
      key,
      body: { status: "CONSIDER", matches: [{ entry_id: "UP-1", entry_names: ["CRUZ, Ana"], details: { case_ref: "C-1" } }] },
    });
    expect(taken.status, JSON.stringify(taken.body)).toBe(200);
    expect(taken.body.result.matches[0]).toMatchObject({ entryId: "UP-1", entryNames: ["CRUZ, Ana"], details: { case_ref: "C-1" } });
  }, 60_000);

  it("reads a user's runs whatever older rows hold: odd shapes tolerated, an oversize match a marker, on REST and GraphQL", async () => {
    const userId = await signUp();
    const later = (s: number) => new Date(Date.now() + s * 1000);
    const oddResults = [
      { score: "high", reasons: "one", matches: ["noise", { entryId: 5, entryNames: "CRUZ, Ana", explanation: { name: {} } }], provider: 7 },
      { score: 0.7, reasons: ["r"], matches: [{ entryId: "BIG", entryNames: Array.from({ length: 100_000 }, () => []) }] },
      { matches: { not: "a list" } },
      ["not", "an", "object"],
      "text",
    ];
    for (const [i, result] of oddResults.entries())
      await t.db.checkRun.create({
        data: {
          clientId,
          userId,
          type: "SANCTIONS_SCREENING",
          trigger: "PROVIDER_UPDATE",
          status: "CONSIDER",
          decidedBy: "PROVIDER",
          createdAt: later(i + 1),
          completedAt: later(i + 1),
          result,
        },
      });
    const rest = await t.rest("GET", `/v2/users/${userId}/checks?records_per_page=100`, { key });
    expect(rest.status, JSON.stringify(rest.body).slice(0, 500)).toBe(200);
    const results = (rest.body.data as any[]).slice(0, oddResults.length).map((r) => r.result);
    expect(results).toEqual([null, null, { score: null, reasons: [], matches: [], provider: null, matcher: null }, expect.anything(), expect.anything()]);
    expect(results[3].matches).toEqual([expect.objectContaining({ entryId: "BIG", omitted: "oversize" })]);
    expect(results[4]).toMatchObject({ score: null, reasons: [], provider: null });
    expect(results[4].matches).toEqual([
      expect.objectContaining({ omitted: "unreadable" }),
      expect.objectContaining({ entryNames: ["CRUZ, Ana"], explanation: null }),
    ]);
    expect(JSON.stringify(rest.body).length).toBeLessThan(64 * 1024);

    const gql = await t.gql(key, RUNS, { id: userId });
    expect(gql.errors).toBeUndefined();
    expect(gql.data.checks.edges.slice(0, oddResults.length).map((e: any) => e.node.result)).toEqual(results);
  }, 60_000);

  it("the migration that bounds stored matches turns older oversize rows into markers, and leaves the others as they were", async () => {
    const userId = await signUp();
    const big = { score: 0.7, reasons: ["r"], matches: Array.from({ length: 5 }, (_, i) => ({ entryId: `UP-${i}`, entryNames: inflated() })) };
    const small = { score: 0.7, reasons: ["r"], matches: [{ entryId: "UP-1", entryNames: ["CRUZ, Ana"] }] };
    const run = (result: object) =>
      t.db.checkRun.create({
        data: { clientId, userId, type: "SANCTIONS_SCREENING", trigger: "PROVIDER_UPDATE", status: "CONSIDER", decidedBy: "PROVIDER", result },
      });
    const [oversizeRun, fineRun] = [await run(big), await run(small)];
    const hit = (entryId: string, match: object) => ({
      clientId,
      userId,
      checkRunId: oversizeRun.id,
      list: "upstream",
      listVersion: "unknown",
      entryId,
      entryHash: "",
      subjectHash: "",
      score: 0.7,
      match,
    });
    const review = await t.db.review.create({
      data: {
        clientId,
        userId,
        type: "SANCTIONS_SCREENING",
        checkRunId: oversizeRun.id,
        riskScore: 70,
        reasons: [],
        screened: {},
        hits: { create: [hit("UP-0", big.matches[0]!), hit("UP-1", small.matches[0]!)] },
      },
    });
    const event = (result: object) =>
      t.db.event.create({ data: { clientId, type: "check.sanctions_screening.updated", data: { userId, check: { result } }, publishedAt: new Date() } });
    const [oversizeEvent, fineEvent] = [await event(big), await event(small)];

    for (const statement of BOUNDS_MIGRATION.split(/;\s*\n/).filter((s) => /^\s*UPDATE/m.test(s))) await t.db.$executeRawUnsafe(statement);

    const runs = await t.db.checkRun.findMany({ where: { id: { in: [oversizeRun.id, fineRun.id] } }, orderBy: { createdAt: "asc" } });
    expect(runs.map((r) => r.result)).toEqual([{ ...big, matches: [{ omitted: "oversize" }] }, small]);
    const hits = await t.db.reviewHit.findMany({ where: { reviewId: review.id }, orderBy: { entryId: "asc" } });
    expect(hits.map((h) => h.match)).toEqual([{ entryId: "UP-0", omitted: "oversize" }, small.matches[0]]);
    const events = await t.db.event.findMany({ where: { id: { in: [oversizeEvent.id, fineEvent.id] } }, orderBy: { seq: "asc" } });
    expect(events.map((e) => (e.data as any).check.result)).toEqual([{ ...big, matches: [{ omitted: "oversize" }] }, small]);
  }, 60_000);

  it("reads a review whose hit a provider posted with entryNames not a list and no explanation, on REST and GraphQL", async () => {
    const userId = await signUp();
    const checkId = await screeningOf(userId);
    const posted = await t.rest("POST", `/v2/sandbox/checks/${checkId}/simulate`, {
      key,
      body: { status: "CONSIDER", matches: [{ entryId: "UP-1", name: "CRUZ, Ana" }] },
    });
    expect(posted.status, JSON.stringify(posted.body)).toBe(200);
    const reviews = async () =>
      ((await t.rest("GET", "/v2/reviews?records_per_page=100", { key: reviewerKey })).body.data as any[]).filter((r) => r.user_id === userId);
    const [review] = await within("the review", reviews, (r) => r.length === 1);
    // as a provider's match was stored before matches had a shape
    await t.db.reviewHit.updateMany({
      where: { reviewId: review.review_id },
      data: { match: { entryId: "UP-1", name: "CRUZ, Ana", entryNames: "CRUZ, Ana", score: 0.8 } },
    });

    const rest = await t.rest("GET", `/v2/reviews/${review.review_id}`, { key: reviewerKey });
    expect(rest.status, JSON.stringify(rest.body)).toBe(200);
    expect(rest.body.hits).toEqual([expect.objectContaining({ entry_id: "UP-1", entry_name: "CRUZ, Ana", entry_names: ["CRUZ, Ana"], explanation: null })]);
    const gql = await t.gql(reviewerKey, `query($id: ID!) { review(id: $id) { id ${HITS} } }`, { id: review.review_id });
    expect(gql.errors).toBeUndefined();
    expect(gql.data.review.hits).toEqual([
      expect.objectContaining({ entryId: "UP-1", entryNames: ["CRUZ, Ana"], explanation: null, reasons: [], programs: [] }),
    ]);
  }, 60_000);
});

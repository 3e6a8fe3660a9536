/**
 * Compliance reviews end to end, through REST and GraphQL: a possible match opens a review with its
 * explained hit, reviewers decide it, four eyes hold a rejection, decided false positives stay quiet
 * until the data changes, and decisions stand against later automatic runs.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY, backends, startTestApp, type TestApp } from "../../../test/helpers/app.js";
import { within } from "../../../test/helpers/eventually.js";
import { startWebhookReceiver, type WebhookReceiver } from "../../../test/helpers/webhook-receiver.js";
import { runPeriodicChecks } from "../checks/checks.periodic.js";
import { sseSubscription } from "../../../test/helpers/sse.js";
import { SG_RESIDENT } from "../../../test/helpers/people.js";

/** Everything the Singapore rule set asks for, so a user can be verified and move on. */
/** A spelling variant of OFAC SDN entry 10481 (SOLEIMANI, Qasem; DOB 11 Mar 1957) with another date of birth: a possible match */
const VARIANT = { first_name: "Qassem", last_name: "Soleymani", date_of_birth: "1980-01-01" };
const LISTED_DOB = "1957-03-11";
const REVIEW_FIELDS = `id status type riskScore checkId reasons screened { firstName lastName dateOfBirth nationality }
  hits { id entryId entryName matchedName score decision explanation { name { pairs { given listed similarity } } dateOfBirth { given listed verdict } } }
  decidedBy { id name } approvedBy { id name } outcome reasonCode decisionCheckId`;

describe.each(backends)("compliance reviews on %s", (backend) => {
  let t: TestApp;
  let key: string;
  let clientId: string;
  let ada: { key: string; id: string };
  let ben: { key: string; id: string };
  let receiver: WebhookReceiver;

  const reviewer = async (name: string, client = clientId) => {
    const res = await t.rest("POST", `/admin/clients/${client}/reviewers`, { key: ADMIN_KEY, body: { name, email: `${name.toLowerCase()}@example.com` } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return { key: res.body.api_key as string, id: res.body.reviewer_id as string };
  };
  const user = async (id: string) => (await t.rest("GET", `/v2/users/${id}`, { key })).body;
  const reviewsOf = async (userId: string, as = ada.key) =>
    ((await t.rest("GET", "/v2/reviews?records_per_page=100", { key: as })).body.data as any[]).filter((r) => r.user_id === userId);
  const decide = (reviewId: string, as: string, body: Record<string, unknown>) => t.rest("POST", `/v2/reviews/${reviewId}/decision`, { key: as, body });

  /** A user with everything SG asks for, verified: its checks run and settle. */
  async function verifiedUser(names: Record<string, string>) {
    const res = await t.rest("POST", "/v2/users", { key, body: { ...SG_RESIDENT, ...names, email: `${randomUUID()}@example.com` } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const userId = res.body.user_id as string;
    for (const documentType of ["PASSPORT", "PROOF_OF_ADDRESS"] as const)
      await t.db.document.create({
        data: { clientId, userId, documentType, fileName: "scan.pdf", mimeType: "application/pdf", sizeBytes: 1, sha256: "0".repeat(64) },
      });
    await t.db.user.update({ where: { id: userId }, data: { phoneVerified: true } });
    expect((await t.rest("POST", "/v2/users/verify", { key, body: { user_id: userId } })).status).toBe(202);
    await t.checksSettled();
    return userId;
  }
  async function screenAgain(userId: string) {
    expect((await t.rest("POST", `/v2/users/${userId}/checks`, { key, body: { type: "SANCTIONS_SCREENING" } })).status).toBe(202);
    await t.checksSettled();
    const runs = (await t.rest("GET", `/v2/users/${userId}/checks`, { key })).body.data as any[];
    return runs.find((r) => r.type === "SANCTIONS_SCREENING")!;
  }

  beforeAll(async () => {
    t = await startTestApp(backend, { WEBHOOK_ALLOW_PRIVATE: "1" });
    ({ key, clientId } = await t.createClient("Reviews"));
    ada = await reviewer("Ada");
    ben = await reviewer("Ben");
    receiver = await startWebhookReceiver();
    const endpoint = await t.rest("POST", "/v2/webhooks", {
      key,
      body: { url: receiver.url("/reviews"), event_types: ["review.opened", "review.decided"] },
    });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    receiver.sign("/reviews", endpoint.body.secret);
  }, 60_000);
  afterAll(async () => {
    await receiver?.close();
    await t?.stop();
  });

  it("opens a review with one explained hit; a false positive moves the user on and stays quiet until the data changes", async () => {
    const userId = await verifiedUser(VARIANT);
    expect(await user(userId)).toMatchObject({ status: "IN_REVIEW", kyc_status: "NEEDS_REVIEW" });
    const [queued] = await reviewsOf(userId);
    expect(queued).toMatchObject({ type: "SANCTIONS_SCREENING", status: "OPEN", risk_score: expect.any(Number), hits: [{ entry_id: "10481" }] });
    const opened = (await t.rest("GET", `/v2/reviews/${queued.review_id}`, { key: ada.key })).body;
    expect(opened.hits).toHaveLength(1);
    const hit = opened.hits[0];
    expect(hit).toMatchObject({ entry_id: "10481", entry_name: "SOLEIMANI, Qasem", decision: null, list: "OFAC-SDN" });
    expect(hit.explanation.name.pairs).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ given: "qassem", listed: "qasem" }),
        expect.objectContaining({ given: "soleymani", listed: "soleimani" }),
      ]),
    );
    expect(hit.explanation.date_of_birth).toEqual({ given: "1980-01-01", listed: ["11 Mar 1957"], verdict: "conflict" });
    expect(opened.screened).toMatchObject({ first_name: "Qassem", last_name: "Soleymani", date_of_birth: "1980-01-01" });

    // the same review over GraphQL
    const gql = await t.gql(ada.key, `query($id: ID!) { review(id: $id) { ${REVIEW_FIELDS} } }`, { id: opened.review_id });
    expect(gql.data.review.hits[0]).toMatchObject({ id: hit.hit_id, entryId: "10481", explanation: { dateOfBirth: { verdict: "conflict" } } });

    // a reason code of another outcome, and a hit left undecided, are refused in one answer
    const refused = await decide(opened.review_id, ada.key, { outcome: "CLEAR", reason_code: "confirmed_sanctions_match" });
    expect(refused.status).toBe(400);
    expect(refused.body.errors.map((e: any) => e.code).sort()).toEqual(["not_allowed", "required"]);

    const cleared = await decide(opened.review_id, ada.key, {
      outcome: "CLEAR",
      reason_code: "different_date_of_birth",
      note: "Born 1980; the listed person in 1957.",
      hits: [{ hit_id: hit.hit_id, decision: "FALSE_POSITIVE" }],
    });
    expect(cleared.status, JSON.stringify(cleared.body)).toBe(200);
    expect(cleared.body).toMatchObject({
      status: "CLOSED",
      outcome: "CLEAR",
      decided_by: { reviewer_id: ada.id, name: "Ada" },
      hits: [{ decision: "FALSE_POSITIVE" }],
    });
    await t.checksSettled();
    expect(await user(userId)).toMatchObject({ status: "ACTIVE", kyc_status: "APPROVED" });
    const audit = await t.db.auditEntry.findMany({ where: { targetId: opened.review_id }, orderBy: { createdAt: "asc" } });
    expect(audit.map((a) => [a.action, a.actor])).toEqual([
      ["review.opened", "operator"],
      ["review.decided", `reviewer:${ada.id}`],
    ]);

    // a manual re-screen and a periodic one find the same hit on the same data: recorded as suppressed, no review, the user stays
    const manual = await screenAgain(userId);
    expect(manual).toMatchObject({ status: "CLEAR", trigger: "MANUAL" });
    expect(manual.result.matches).toEqual([expect.objectContaining({ entryId: "10481", suppressed: true })]);
    await t.db.$executeRawUnsafe(`update check_runs set created_at = created_at - interval '400 days' where user_id = $1::uuid`, userId);
    await runPeriodicChecks(t.app.services);
    await t.checksSettled();
    const periodic = await t.db.checkRun.findFirstOrThrow({ where: { userId, trigger: "PERIODIC", type: "SANCTIONS_SCREENING" } });
    expect(periodic.status).toBe("CLEAR");
    expect((await reviewsOf(userId)).map((r) => [r.type, r.status, r.reasons, r.hits.map((h: any) => [h.entry_id, h.decision])])).toHaveLength(1);
    expect(await user(userId)).toMatchObject({ status: "ACTIVE" });

    // the date of birth changed to the entry's: a material change, judged again
    expect((await t.rest("PUT", `/v2/users/${userId}`, { key, body: { date_of_birth: LISTED_DOB } })).status).toBe(200);
    await t.checksSettled();
    const reviews = await reviewsOf(userId);
    expect(reviews).toHaveLength(2);
    const reopened = (await t.rest("GET", `/v2/reviews/${reviews.find((r) => r.review_id !== opened.review_id).review_id}`, { key: ada.key })).body;
    expect(reopened).toMatchObject({ status: "OPEN", hits: [{ entry_id: "10481", decision: null, explanation: { date_of_birth: { verdict: "exact" } } }] });
  }, 90_000);

  it("holds a rejection until a second reviewer approves it, and no later automatic run clears it", async () => {
    const userId = await verifiedUser({ ...VARIANT, first_name: "Qasem" });
    const [review] = await reviewsOf(userId);
    const hitId = review.hits[0].hit_id;
    const rejected = await t.gql(ada.key, `mutation($input: DecideReviewInput!) { decideReview(input: $input) { ${REVIEW_FIELDS} } }`, {
      input: { reviewId: review.review_id, outcome: "REJECT", reasonCode: "confirmed_sanctions_match", hits: [{ hitId, decision: "TRUE_MATCH" }] },
    });
    expect(rejected.errors).toBeUndefined();
    expect(rejected.data.decideReview).toMatchObject({ status: "PENDING_APPROVAL", outcome: "REJECT", decisionCheckId: null });
    await t.checksSettled();
    expect(await user(userId)).toMatchObject({ status: "IN_REVIEW" }); // not yet

    const own = await t.rest("POST", `/v2/reviews/${review.review_id}/approve`, { key: ada.key, body: {} });
    expect(own).toMatchObject({ status: 409, body: { code: "SECOND_REVIEWER_REQUIRED" } });
    const approved = await t.rest("POST", `/v2/reviews/${review.review_id}/approve`, { key: ben.key, body: { note: "Agreed." } });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body).toMatchObject({ status: "CLOSED", approved_by: { reviewer_id: ben.id }, decision_check_id: expect.any(String) });
    await t.checksSettled();
    expect(await user(userId)).toMatchObject({ status: "REJECTED", kyc_status: "REJECTED" });

    // a tenant-requested screening, a periodic one, and new data clearing the name: the rejection stands
    expect((await screenAgain(userId)).status).toBe("CONSIDER");
    await t.db.$executeRawUnsafe(`update check_runs set created_at = created_at - interval '400 days' where user_id = $1::uuid`, userId);
    await runPeriodicChecks(t.app.services);
    await t.checksSettled();
    expect((await t.rest("PUT", `/v2/users/${userId}`, { key, body: { last_name: "Tan" } })).status).toBe(200);
    await t.checksSettled();
    expect(await user(userId)).toMatchObject({ status: "REJECTED" });
    // the same hit again is nothing new (a new name may match another entry: that is a review of its own)
    const holding = (await reviewsOf(userId)).filter((r) => r.hits.some((h: any) => h.entry_id === "10481"));
    expect(holding.map((r) => r.review_id)).toEqual([review.review_id]);

    // every step reached webhooks and the event list
    const events = (await t.rest("GET", "/v2/events?types=review.opened,review.decided&records_per_page=100", { key })).body.data as any[];
    const mine = events.filter((e) => e.data.review_id === review.review_id).map((e) => [e.type, e.data.status]);
    expect(mine).toEqual([
      ["review.opened", "OPEN"],
      ["review.decided", "PENDING_APPROVAL"],
      ["review.decided", "CLOSED"],
    ]);
    const delivered = await within(
      "review webhooks",
      () => receiver.at("/reviews").filter((d) => JSON.parse(d.body).data.review_id === review.review_id),
      (d) => d.length === 3,
    );
    expect(delivered.every((d) => d.verified)).toBe(true);
  }, 90_000);

  const STRONG = { first_name: "Qasem", last_name: "Soleimani", date_of_birth: LISTED_DOB }; // 10481 by itself: REJECTED
  const allHits = (review: any, decision: string) => review.hits.map((h: any) => ({ hit_id: h.hit_id, decision }));
  const rename = async (userId: string, names: Record<string, string>) => {
    expect((await t.rest("PUT", `/v2/users/${userId}`, { key, body: names })).status).toBe(200);
    await t.checksSettled();
  };

  it("holds the CLEAR of a review holding a strong hit for a second reviewer, whatever weaker run came after it", async () => {
    const userId = await verifiedUser(STRONG);
    const [opened] = await reviewsOf(userId);
    // another listed name with the same date of birth: a possible match (7789), added to the same review by a CONSIDER run
    await rename(userId, { first_name: "Dusko", last_name: "Sikirica" });
    const review = (await t.rest("GET", `/v2/reviews/${opened.review_id}`, { key: ada.key })).body;
    expect(review.hits.map((h: any) => [h.entry_id, h.status]).sort()).toEqual([
      ["10481", "REJECTED"],
      ["7789", "CONSIDER"],
    ]);
    const cleared = await decide(review.review_id, ada.key, { outcome: "CLEAR", reason_code: "documents_verified", hits: allHits(review, "FALSE_POSITIVE") });
    expect(cleared.body).toMatchObject({ status: "PENDING_APPROVAL", outcome: "CLEAR", decision_check_id: null });
    // the name back: 10481 is judged again, not suppressed by a decision that never took effect
    await rename(userId, { first_name: "Qasem", last_name: "Soleimani" });
    const screening = (await t.rest("GET", `/v2/users/${userId}/checks`, { key })).body.data.find((r: any) => r.type === "SANCTIONS_SCREENING");
    expect(screening).toMatchObject({ status: "REJECTED", result: { matches: [expect.not.objectContaining({ suppressed: true })] } });
    expect(await user(userId)).toMatchObject({ status: "REJECTED" });
  }, 90_000);

  it("withdraws a decision waiting for approval when a newer finding arrives: no stale approval overturns it", async () => {
    const userId = await verifiedUser(STRONG);
    const [opened] = await reviewsOf(userId);
    const first = (await t.rest("GET", `/v2/reviews/${opened.review_id}`, { key: ada.key })).body;
    expect(
      (await decide(first.review_id, ada.key, { outcome: "CLEAR", reason_code: "documents_verified", hits: allHits(first, "FALSE_POSITIVE") })).body,
    ).toMatchObject({
      status: "PENDING_APPROVAL",
    });
    // a newer screening finds a strong match on another entry: the review is open again, holding both, undecided
    await rename(userId, { first_name: "Dusko", last_name: "Sikirica", date_of_birth: "1964-03-23" });
    const reviews = await reviewsOf(userId);
    expect(reviews.map((r) => r.review_id)).toEqual([first.review_id]);
    const reopened = (await t.rest("GET", `/v2/reviews/${first.review_id}`, { key: ben.key })).body;
    expect(reopened).toMatchObject({ status: "OPEN", outcome: null, decided_by: null });
    expect(reopened.hits.map((h: any) => [h.entry_id, h.decision]).sort()).toEqual([
      ["10481", null],
      ["7789", null],
    ]);
    // the stale approval is refused and moves nobody
    const stale = await t.rest("POST", `/v2/reviews/${first.review_id}/approve`, { key: ben.key, body: {} });
    expect(stale).toMatchObject({ status: 409, body: { code: "INVALID_STATE_TRANSITION" } });
    expect(await user(userId)).toMatchObject({ status: "REJECTED" });
    const audit = await t.db.auditEntry.findMany({ where: { targetId: first.review_id }, orderBy: { createdAt: "asc" } });
    expect(audit.map((a) => a.action)).toEqual(["review.opened", "review.decided", "review.reopened"]);

    // two reviews side by side (as rows written before findings withdrew decisions): approving the older decision withdraws it
    const again = await decide(first.review_id, ada.key, { outcome: "CLEAR", reason_code: "documents_verified", hits: allHits(reopened, "FALSE_POSITIVE") });
    expect(again.body).toMatchObject({ status: "PENDING_APPROVAL" });
    const {
      id: _id,
      createdAt: _c,
      updatedAt: _u,
      decidedAt: _d,
      outcome: _o,
      reasonCode: _r,
      decidedById: _b,
      note: _n,
      ...rest
    } = await t.db.review.findUniqueOrThrow({
      where: { id: first.review_id },
    });
    const beside = await t.db.review.create({ data: { ...rest, status: "OPEN", screened: rest.screened as object } });
    const superseded = await t.rest("POST", `/v2/reviews/${first.review_id}/approve`, { key: ben.key, body: {} });
    expect(superseded).toMatchObject({ status: 409, body: { code: "INVALID_STATE_TRANSITION" } });
    expect((await t.rest("GET", `/v2/reviews/${first.review_id}`, { key: ben.key })).body).toMatchObject({ status: "OPEN" });
    expect(await user(userId)).toMatchObject({ status: "REJECTED" });
    await t.db.review.delete({ where: { id: beside.id } });
  }, 90_000);

  it("counts people, not identities: one email is one reviewer, who gets a new key by rotation", async () => {
    const taken = await t.rest("POST", `/admin/clients/${clientId}/reviewers`, { key: ADMIN_KEY, body: { name: "Ada Again", email: "ADA@example.com " } });
    expect(taken).toMatchObject({ status: 409, body: { code: "CONFLICT" } });
    const nameless = await t.rest("POST", `/admin/clients/${clientId}/reviewers`, { key: ADMIN_KEY, body: { name: "No Mail" } });
    expect(nameless.status).toBe(400);
    // a new key for Ada: the same identity, the old key revoked at once
    const rotated = await t.rest("POST", `/admin/clients/${clientId}/reviewers/${ada.id}/keys/rotate`, { key: ADMIN_KEY, body: {} });
    expect(rotated).toMatchObject({ status: 201, body: { reviewer_id: ada.id, api_key: expect.any(String) } });
    expect((await t.rest("GET", "/v2/reviews", { key: ada.key })).status).toBe(401);
    ada = { ...ada, key: rotated.body.api_key };
    const gql = await t.gql(ADMIN_KEY, `mutation($input: RotateReviewerKeyInput!) { rotateReviewerKey(input: $input) { reviewerId apiKey } }`, {
      input: { clientId, reviewerId: ada.id },
    });
    expect(gql.data.rotateReviewerKey).toMatchObject({ reviewerId: ada.id });
    ada = { ...ada, key: gql.data.rotateReviewerKey.apiKey };
    expect((await t.rest("GET", "/v2/reviews", { key: ada.key })).status).toBe(200);
    // a second identity of one person, as rows written before emails were unique: four eyes still see one person
    const twin = await t.db.reviewer.create({ data: { clientId, name: "Ada Twin", email: "Ada@Example.com" } });
    const twinKey = (await t.rest("POST", `/admin/clients/${clientId}/reviewers/${twin.id}/keys/rotate`, { key: ADMIN_KEY, body: {} })).body.api_key;
    const userId = await verifiedUser({ ...VARIANT, date_of_birth: "1982-03-03" });
    const [queued] = await reviewsOf(userId);
    const review = (await t.rest("GET", `/v2/reviews/${queued.review_id}`, { key: ada.key })).body;
    const rejected = await decide(review.review_id, ada.key, {
      outcome: "REJECT",
      reason_code: "confirmed_sanctions_match",
      hits: allHits(review, "TRUE_MATCH"),
    });
    expect(rejected.body).toMatchObject({ status: "PENDING_APPROVAL" });
    const self = await t.rest("POST", `/v2/reviews/${review.review_id}/approve`, { key: twinKey, body: {} });
    expect(self).toMatchObject({ status: 409, body: { code: "SECOND_REVIEWER_REQUIRED" } });
  }, 90_000);

  it("answers another client's review 404 and a key without compliance:review 403", async () => {
    const userId = await verifiedUser({ ...VARIANT, date_of_birth: "1981-02-02" });
    const [review] = await reviewsOf(userId);
    const other = await t.createClient("Other");
    const outsider = await reviewer("Olu", other.clientId);
    expect((await t.rest("GET", `/v2/reviews/${review.review_id}`, { key: outsider.key })).status).toBe(404);
    expect((await t.rest("POST", `/v2/reviews/${review.review_id}/assign`, { key: outsider.key, body: {} })).status).toBe(404);
    expect(await reviewsOf(userId, outsider.key)).toEqual([]);
    // the client's own key, which holds every other scope, is no reviewer
    const plain = await t.rest("GET", "/v2/reviews", { key });
    expect(plain).toMatchObject({ status: 403, body: { code: "FORBIDDEN" } });
    const viaGraphQL = await t.gql(key, `{ reviews { totalCount } }`);
    expect(viaGraphQL.errors?.[0]?.extensions.code).toBe("FORBIDDEN");
    // and a reviewer's key changes no user
    expect((await t.rest("PUT", `/v2/users/${userId}`, { key: ada.key, body: { last_name: "X" } })).status).toBe(403);
    // assigning to a reviewer of another client is refused; to oneself, taken
    const foreign = await t.rest("POST", `/v2/reviews/${review.review_id}/assign`, { key: ada.key, body: { assignee_id: outsider.id } });
    expect(foreign.status).toBe(400);
    const mine = await t.rest("POST", `/v2/reviews/${review.review_id}/assign`, { key: ada.key, body: {} });
    expect(mine.body.assignee).toMatchObject({ reviewer_id: ada.id });
    const assigned = (await t.rest("GET", "/v2/reviews?assignee=me&status=OPEN", { key: ada.key })).body.data as any[];
    expect(assigned.map((r) => r.review_id)).toContain(review.review_id);
    expect(((await t.rest("GET", "/v2/reviews?assignee=me", { key: ben.key })).body.data as any[]).map((r) => r.review_id)).not.toContain(review.review_id);
  }, 60_000);

  it("streams reviews as they open and are decided (reviewUpdated), and holds the clearing of a strong match for a second reviewer", async () => {
    const stream = await sseSubscription(t, ben.key, `subscription { reviewUpdated { id userId status type hits { entryId } } }`);
    const first = stream.next();
    await new Promise((r) => setTimeout(r, 100));
    // the listed name and date of birth: the matcher rejects the user by itself
    const userId = await verifiedUser({ first_name: "Qasem", last_name: "Soleimani", date_of_birth: LISTED_DOB });
    expect(await user(userId)).toMatchObject({ status: "REJECTED" });
    const opened = (await first).data.reviewUpdated;
    expect(opened).toMatchObject({ userId, status: "OPEN", type: "SANCTIONS_SCREENING", hits: [{ entryId: "10481" }] });
    const review = (await t.rest("GET", `/v2/reviews/${opened.id}`, { key: ada.key })).body;
    const decided = stream.next();
    const cleared = await decide(review.review_id, ada.key, {
      outcome: "CLEAR",
      reason_code: "documents_verified",
      hits: review.hits.map((h: any) => ({ hit_id: h.hit_id, decision: "FALSE_POSITIVE" })),
    });
    expect(cleared.body).toMatchObject({ status: "PENDING_APPROVAL" }); // overturning a strong match needs four eyes
    expect((await decided).data.reviewUpdated).toMatchObject({ id: review.review_id, status: "PENDING_APPROVAL" });
    expect((await t.rest("POST", `/v2/reviews/${review.review_id}/approve`, { key: ben.key, body: {} })).status).toBe(200);
    await t.checksSettled();
    expect(await user(userId)).toMatchObject({ status: "ACTIVE" });
    await stream.close();
  }, 60_000);

  it("opens a monitoring review for a high-risk jurisdiction, and a reviewer's CLEAR settles it", async () => {
    const userId = await verifiedUser({ ...VARIANT, first_name: "Ana", last_name: "Cruz" });
    await t.db.user.update({ where: { id: userId }, data: { countryOfResidence: "KP" } });
    expect((await t.rest("POST", `/v2/users/${userId}/checks`, { key, body: { type: "TRANSACTION_MONITORING" } })).status).toBe(202);
    await t.checksSettled();
    const [review] = await reviewsOf(userId);
    expect(review).toMatchObject({
      type: "TRANSACTION_MONITORING",
      status: "OPEN",
      hits: [],
      reasons: ["jurisdiction_call_for_action:country_of_residence:KP"],
    });
    const wrong = await decide(review.review_id, ada.key, { outcome: "CLEAR", reason_code: "nonexistent" });
    expect(wrong.body.errors).toEqual([expect.objectContaining({ field: "reason_code", code: "invalid" })]);
    const done = await decide(review.review_id, ada.key, { outcome: "CLEAR", reason_code: "alert_explained" });
    expect(done.body).toMatchObject({ status: "CLOSED", outcome: "CLEAR" });
    await t.checksSettled();
    const runs = (await t.rest("GET", `/v2/users/${userId}/checks`, { key })).body.data as any[];
    expect(runs[0]).toMatchObject({ type: "TRANSACTION_MONITORING", trigger: "REVIEW", decided_by: "OPERATOR", status: "CLEAR" });
  }, 60_000);

  it("opens a review for an upstream provider's possible match, from the few fields it gives", async () => {
    const userId = await verifiedUser({ ...VARIANT, first_name: "Ana", last_name: "Cruz" });
    const runs = (await t.rest("GET", `/v2/users/${userId}/checks`, { key })).body.data as any[];
    const screening = runs.find((r) => r.type === "SANCTIONS_SCREENING");
    const matches = [{ entryId: "UP-1", score: 1 }, { name: "A match naming no entry" }];
    const posted = await t.rest("POST", `/v2/checks/${screening.check_id}/result`, {
      key: ADMIN_KEY,
      body: { status: "CONSIDER", decided_by: "PROVIDER", matches },
    });
    expect(posted.status, JSON.stringify(posted.body)).toBe(200);
    const [review] = await reviewsOf(userId);
    const read = await t.rest("GET", `/v2/reviews/${review.review_id}`, { key: ada.key });
    expect(read.status).toBe(200);
    expect(read.body.hits).toEqual([
      expect.objectContaining({ entry_id: "UP-1", entry_name: "UP-1", list: "upstream", score: 1, status: "CONSIDER", explanation: null }),
    ]);
  }, 60_000);
});

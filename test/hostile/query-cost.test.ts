/**
 * Class 4: queries whose work the cost limit used to miss. Unpaged lists nested under a page
 * (document → user → documents → user → documents: a million rows over 100 documents) and the
 * bytes of files (six 10 MiB files' base64 in one answer) are refused with a GraphQL error before
 * the work is done: the answer is quick and small, and the process stays up and small.
 */
import { describe, expect, it } from "vitest";
import { documentInput, MAX_DOCUMENT_BYTES, pdf, pool } from "./helpers/attacks.js";
import { MiB, useService, type Answer, type Service } from "./helpers/service.js";

const service = useService();

const NESTED = "{ documents(first: 100) { edges { node { user { documents { user { documents { id } } } } } } } }";
const FILES = "query($userId: ID!) { documents(first: 6, userId: $userId) { edges { node { id file { contentBase64 } } } } }";

/** Posts `query`, timed, with RSS sampled while it runs. */
async function timedQuery(s: Service, query: string, variables: Record<string, unknown> = {}) {
  const memory = s.watchMemory();
  const before = s.rss();
  const started = Date.now();
  const answer = await s.call("POST", "/graphql", { body: { query, variables }, ms: 90_000 });
  const ms = Date.now() - started;
  const { maxRss } = await memory.stop();
  console.log(
    `${query.slice(0, 60)}…: ${answer.status} in ${ms} ms, ${answer.text.length} bytes, RSS ${(before / MiB).toFixed(0)} → max ${(maxRss / MiB).toFixed(0)} MiB; ${answer.text.slice(0, 300)}`,
  );
  return { answer, ms, rssGrowth: maxRss - before };
}

/** Refused, not executed: a GraphQL error, no data, a small answer, quickly. */
function expectRefused({ answer, ms }: { answer: Answer; ms: number }) {
  expect(answer.body?.errors?.length, `no GraphQL error: ${answer.status} ${answer.text.slice(0, 300)}`).toBeGreaterThan(0);
  expect(answer.body?.data?.documents ?? null, "documents were returned").toBeNull();
  expect(answer.text.length, "answer size").toBeLessThan(64 * 1024);
  expect(ms, "answer time").toBeLessThan(10_000);
}

describe("the cost of a query bounds its work", () => {
  it("document → user → documents → user → documents over 100 documents: refused with a GraphQL error; alive", async () => {
    const s = await service();
    const userId = await s.createUser();
    const file = pdf(400);
    const started = Date.now();
    const uploads = await s.guard(
      "100 small uploads",
      pool(100, 2, () => s.upload(documentInput(userId, file))),
      120_000,
    );
    console.log(`100 small uploads in ${Date.now() - started} ms`);
    expect(uploads.filter((u) => u.status !== 201).map((u) => `${u.status} ${u.text.slice(0, 200)}`)).toEqual([]);
    const refused = await timedQuery(s, NESTED);
    await s.alive();
    expectRefused(refused);
  });

  it("six 10 MiB documents' contentBase64 in one query: refused with a GraphQL error; alive; RSS grows < 50 MiB", async () => {
    const s = await service();
    const userId = await s.createUser();
    const input = documentInput(userId, pdf(MAX_DOCUMENT_BYTES));
    for (let i = 0; i < 6; i++) {
      const upload = await s.upload(input);
      expect(upload.status, `upload ${i + 1} of 6: ${upload.text.slice(0, 300)}`).toBe(201);
    }
    const refused = await timedQuery(s, FILES, { userId });
    await s.alive();
    expectRefused(refused);
    expect(refused.rssGrowth, "RSS growth during the query").toBeLessThan(50 * MiB);
  });
});

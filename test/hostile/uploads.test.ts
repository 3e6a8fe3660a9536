/**
 * Class 6: 16 concurrent maximum-size uploads (10 MiB files, ~14 MB bodies) from one key, well
 * inside its rate limit. Those past the per-key cap on concurrent uploads get 429 with Retry-After;
 * none gets a 5xx but a 503 with Retry-After; the process stays up.
 */
import { describe, expect, it } from "vitest";
import { bearer, MAX_DOCUMENT_BYTES, pdf, postBytes, uploadBody } from "./helpers/attacks.js";
import { UPLOAD_PATH, useService } from "./helpers/service.js";

const service = useService();

describe("concurrent uploads", () => {
  it("16 concurrent 10 MiB uploads from one key: 201 or 429 with Retry-After (503 with Retry-After at worst); alive", async () => {
    const s = await service();
    const userId = await s.createUser();
    const body = uploadBody(userId, pdf(MAX_DOCUMENT_BYTES));
    const answers = await s.guard(
      "16 concurrent uploads",
      Promise.all(Array.from({ length: 16 }, () => postBytes(`${s.base}${UPLOAD_PATH}`, bearer(s.demoKey), body, 120_000))),
      130_000,
    );
    const seen = answers.map((a) => (a.status ? `${a.status}${a.retryAfter ? " retry-after" : ""}` : `${a.cutOff ? "cut off" : "no answer"}: ${a.error}`));
    console.log(`16 uploads: ${JSON.stringify(seen)} in up to ${Math.max(...answers.map((a) => a.ms))} ms`);
    await s.alive();
    // cut off before its answer could be read: refused early (alive() says it was no crash)
    const wrong = answers.filter((a) => !(a.status === 201 || ((a.status === 429 || a.status === 503) && a.retryAfter) || a.cutOff));
    expect(
      wrong.map((a) => `${a.status ?? a.error} ${a.body?.slice(0, 200) ?? ""}`),
      "answers other than 201, or 429/503 with Retry-After",
    ).toEqual([]);
    expect(answers.filter((a) => a.status === 201).length, "uploads accepted").toBeGreaterThan(0);
    expect(answers.filter((a) => a.status === 429).length, "uploads refused 429 past the per-key cap").toBeGreaterThan(0);
  });
});

/**
 * Class 7: graphql-ws is counted against the key's rate limit like HTTP. 700 queries over one
 * socket within seconds, with RATE_LIMIT_PER_MINUTE=100: those past the budget are refused with
 * RATE_LIMITED, and the process stays up.
 */
import { describe, expect, it } from "vitest";
import { within } from "../helpers/eventually.js";
import { bearer, byCode, GqlSocket } from "./helpers/attacks.js";
import { useService } from "./helpers/service.js";

const LIMIT = 100;
const service = useService({ RATE_LIMIT_PER_MINUTE: String(LIMIT) });

describe("graphql-ws and the rate limit", () => {
  it(`700 queries over one socket with RATE_LIMIT_PER_MINUTE=${LIMIT}: those past the budget are refused RATE_LIMITED; alive`, async () => {
    const s = await service();
    const socket = await s.guard("connect", GqlSocket.open(s.base, bearer(s.demoKey)), 20_000);
    const started = Date.now();
    for (let i = 0; i < 700; i++) socket.subscribe("{ users(first: 1) { totalCount } }");
    const answered = () => socket.tally().refusals.length + socket.tally().ended;
    await s.guard(
      "700 answers",
      within("every query is answered", answered, (n) => n === 700 || socket.closed !== null, 60_000, 100),
      65_000,
    );
    const { refusals, ended } = socket.tally();
    console.log(
      `700 ws queries in ${Date.now() - started} ms: ${ended} answered, refused ${JSON.stringify(byCode(refusals))}${socket.closed ? `, socket closed ${socket.closed.code}` : ""}`,
    );
    socket.close();
    await s.alive();
    expect(byCode(refusals).RATE_LIMITED ?? 0, "queries refused RATE_LIMITED").toBeGreaterThan(0);
    // a minute's window may turn during the burst: at most two budgets
    expect(ended, "queries executed").toBeLessThanOrEqual(2 * LIMIT);
  });
});

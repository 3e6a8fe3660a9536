/**
 * JSON a caller makes the service store: a sandbox key's simulated check results carry `matches`,
 * stored as given and read back by every list of the user's runs. Ten ~1 MiB bodies of tiny
 * values (each a JavaScript object once parsed, many times its bytes in heap), then the list of
 * the user's runs: each body is refused whole before anything is stored, and the process, with
 * npm start's heap cap, answers the list and stays up.
 */
import { describe, expect, it } from "vitest";
import { sleep } from "./helpers/process.js";
import { MiB, useService } from "./helpers/service.js";

const service = useService();

/** 50 matches (the count allowed), each naming an entry and carrying ~20 KB of empty arrays: ~1 MiB. */
function inflatedMatches() {
  const filler = Array.from({ length: 6900 }, () => []);
  return Array.from({ length: 50 }, (_, i) => ({ entryId: `UP-${i}`, name: "CRUZ, Ana", entryNames: filler }));
}

describe("JSON a caller makes the service store is bounded when it arrives", () => {
  it("ten ~1 MiB simulated results, then the user's runs: 400 each, the list answers, the process stays up", async () => {
    const s = await service();
    const userId = await s.createUser();
    const body = { status: "CONSIDER", reasons: ["provider_confirmed"], matches: inflatedMatches() };
    console.log(`simulate body: ${(JSON.stringify(body).length / MiB).toFixed(2)} MiB`);
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      const queued = await s.call("POST", `/v2/users/${userId}/checks`, { body: { type: "KYC" } });
      expect(queued.status, queued.text.slice(0, 300)).toBe(202);
      await sleep(300); // the worker has worked it: the simulated result is the run's last word
      const simulated = await s.call("POST", `/v2/sandbox/checks/${queued.body.check_id}/simulate`, { body, ms: 60_000 });
      statuses.push(simulated.status);
      if (simulated.status === 400) expect(simulated.headers.get("content-type")).toMatch(/problem\+json/);
    }
    const memory = s.watchMemory(500);
    const list = await s
      .call("GET", `/v2/users/${userId}/checks?records_per_page=100`, { ms: 60_000 })
      .catch((error: Error) => ({ status: 0, text: error.message }));
    const seen = await memory.stop();
    console.log(
      `simulate answers: ${statuses.join(" ")}; GET checks: ${list.status}, ${list.text.length} bytes; heap max ${(seen.maxHeap / MiB).toFixed(0)} MiB`,
    );
    await s.alive();
    expect(statuses).toEqual(Array(10).fill(400));
    expect(list.status).toBe(200);
  });
});

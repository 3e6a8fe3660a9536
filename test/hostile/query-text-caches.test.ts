/**
 * Query texts as large as the body limit allows, each one distinct: `{ __typename }` padded with
 * whitespace is three tokens, so it passes armour and every rule, and in development (GraphiQL on)
 * it needs no key. A cache that keeps such texts whole, bounded only by its count of entries (the
 * parse and validation caches, the lanes' validated documents), fills the heap long before it is
 * full. The caches are bounded in bytes: the process stays up and its heap under npm start's cap.
 * Without a key such a text is now refused before it is read (a keyless body is a few KiB at most);
 * with a tenant's key it is answered, through the lanes (their validated texts) and without them.
 */
import { describe, expect, it } from "vitest";
import { bearer, postBytes } from "./helpers/attacks.js";
import { heapCapBytes } from "./helpers/process.js";
import { MiB, useService, type Service } from "./helpers/service.js";

// without the bound, about 50 without a key took the process down, and about 120 with a tenant key
const REQUESTS = 150;
const TEST_MS = 300_000;
const BODY_BYTES = MiB - 1024;

/** The `i`th distinct padded text, as a JSON body of about BODY_BYTES. */
function paddedQuery(i: number) {
  const head = '{"query":"{ __typename';
  const tail = ' }"}';
  // distinct by where the one newline sits in the padding
  const pad = BODY_BYTES - head.length - tail.length - 2;
  return Buffer.from(`${head}${" ".repeat(i)}\\n${" ".repeat(pad - i)}${tail}`);
}

async function flood(s: Service, headers: Record<string, string>) {
  const cap = heapCapBytes();
  const memory = s.watchMemory(500);
  const statuses: Record<string, number> = {};
  try {
    for (let i = 0; i < REQUESTS && !s.exit(); i++) {
      const sent = await postBytes(`${s.base}/graphql`, headers, paddedQuery(i), 30_000);
      const seen = String(sent.status ?? sent.error);
      statuses[seen] = (statuses[seen] ?? 0) + 1;
    }
  } finally {
    await memory.stop();
  }
  const { maxHeap, heapSamples } = memory.seen;
  console.log(`${REQUESTS} padded texts: ${JSON.stringify(statuses)}; heap max ${(maxHeap / MiB).toFixed(0)} MiB of ${cap / MiB} (${heapSamples} samples)`);
  await s.alive();
  const { heap, samples } = await s.settledHeap(cap / 2);
  console.log(`heap after the flood: ${samples.map((b) => (b / MiB).toFixed(0)).join(" → ")} MiB`);
  return { statuses, maxHeap, heap, cap };
}

describe("distinct megabyte query texts", () => {
  const development = useService({ NODE_ENV: "development" });
  const production = useService();
  const lanesOff = useService({ LANES: "0" });

  it(
    `${REQUESTS} without a key (GraphiQL on): refused before they are read (a keyless body is a few KiB at most), alive, the heap well under the cap`,
    async () => {
      const s = await development();
      const { statuses, maxHeap, heap, cap } = await flood(s, {});
      expect((statuses["401"] ?? 0) + (statuses["429"] ?? 0), `each refused, and read: ${JSON.stringify(statuses)}`).toBe(REQUESTS);
      expect(maxHeap, "heap used at its highest").toBeLessThan(cap * 0.8);
      expect(heap, "heap used after the flood").toBeLessThan(cap / 2);
    },
    TEST_MS,
  );

  for (const [name, started] of [
    ["the lanes on", production],
    ["LANES=0", lanesOff],
  ] as const)
    it(
      `${REQUESTS} with a tenant key, in production with ${name}: each answered, alive, the heap well under the cap`,
      async () => {
        const s = await started();
        const { statuses, maxHeap, heap, cap } = await flood(s, bearer(s.demoKey));
        expect(statuses["200"], "each padded text is answered").toBe(REQUESTS);
        // at its highest the heap holds the texts in flight too (each read, parsed and answered): what the caches keep is the heap after
        expect(maxHeap, "heap used at its highest").toBeLessThan(cap * 0.9);
        expect(heap, "heap used after the flood").toBeLessThan(cap / 2);
      },
      TEST_MS,
    );
});

/**
 * Class 2: 60 MiB chunked bodies (no Content-Length) where something used to read the whole body
 * before the size limit: the authentication plugin (no key on /graphql while GraphiQL is on, so
 * NODE_ENV=development here) and the idempotency plugin (a key with an Idempotency-Key, on REST and
 * on /graphql). Each is answered 413 long before the body ends, and the process barely grows.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { bearer, streamChunked } from "./helpers/attacks.js";
import { MiB, useService, type Service } from "./helpers/service.js";

const service = useService({ NODE_ENV: "development" });
const TOTAL = 60 * MiB;

const QUERY = '{"query":"{ __typename }","variables":{"pad":"';
const targets: { name: string; path: string; headers: (s: Service) => Record<string, string>; prefix: string; refusals: number[] }[] = [
  // refused for want of a key before the body is read is as good as refused for its size
  { name: "POST /graphql without a key (GraphiQL on)", path: "/graphql", headers: () => ({}), prefix: QUERY, refusals: [413, 401] },
  {
    name: "POST /v2/users with a key and an Idempotency-Key",
    path: "/v2/users",
    headers: (s) => ({ ...bearer(s.demoKey), "idempotency-key": randomUUID() }),
    prefix: '{"first_name":"A","last_name":"B","email":"a@example.com","pad":"',
    refusals: [413],
  },
  {
    name: "POST /graphql with a key and an Idempotency-Key",
    path: "/graphql",
    headers: (s) => ({ ...bearer(s.demoKey), "idempotency-key": randomUUID() }),
    prefix: QUERY,
    refusals: [413],
  },
];

describe("a 60 MiB chunked body", () => {
  for (const target of targets) {
    it(`${target.name}: ${target.refusals.join(" or ")} long before the body ends; alive; RSS grows < 50 MiB`, async () => {
      const s = await service();
      const memory = s.watchMemory();
      const before = s.rss();
      const sent = await s.guard(target.name, streamChunked(`${s.base}${target.path}`, target.headers(s), TOTAL, { prefix: target.prefix }), 90_000);
      const { maxRss } = await memory.stop();
      console.log(
        `${target.name}: ${sent.status ?? `${sent.cutOff ? "cut off: " : ""}${sent.error}`} after ${(sent.sentBytes / MiB).toFixed(1)} MiB sent in ${sent.ms} ms; RSS ${(before / MiB).toFixed(0)} → max ${(maxRss / MiB).toFixed(0)} MiB; ${sent.body?.slice(0, 200)}`,
      );
      await s.alive();
      // cut off before the answer could be read: refused early all the same (alive() says it was no crash)
      if (!sent.cutOff) expect(target.refusals, `the answer: ${sent.status ?? sent.error} ${sent.body?.slice(0, 200) ?? ""}`).toContain(sent.status);
      // loopback socket buffers hold a few MiB beyond what the server has read
      expect(sent.sentBytes, "bytes sent before the answer").toBeLessThan(TOTAL / 2);
      expect(maxRss - before, "RSS growth during the request").toBeLessThan(50 * MiB);
    });
  }
});

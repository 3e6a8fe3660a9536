/**
 * An upload over its route's limit (an 11 MiB file: its JSON body is past the upload allowance) is
 * answered 413, and the client reads that answer every time, whichever way it sends: Node's fetch
 * (the whole body, no Expect), curl with its default `Expect: 100-continue` (answered before it
 * sends the body) and curl without it. A server that closes the socket while the client is still
 * sending resets it, and the client then sees a network error instead (EPIPE, curl's exit 55).
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, pdf, uploadBody } from "./helpers/attacks.js";
import { MiB, UPLOAD_PATH, useService, type Service } from "./helpers/service.js";

const TRIES = 5;
const run = promisify(execFile);

describe("an oversize upload", () => {
  const service = useService();
  let s: Service;
  let dir: string;
  let file: string;
  let body: Uint8Array<ArrayBuffer>;
  beforeAll(async () => {
    s = await service();
    body = new Uint8Array(uploadBody(await s.createUser(), pdf(11 * MiB)));
    dir = await mkdtemp(path.join(tmpdir(), "og-oversize-"));
    file = path.join(dir, "upload.json");
    await writeFile(file, body);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  /** curl's exit code and the status it read (000: none); `expect: false` sends the body without waiting for 100 Continue. */
  async function curl(expectContinue: boolean) {
    const args = ["-sS", "-o", "/dev/null", "-w", "%{http_code}", "-H", `authorization: Bearer ${s.demoKey}`, "-H", "content-type: application/json"];
    if (!expectContinue) args.push("-H", "expect:");
    args.push("--data-binary", `@${file}`, `${s.base}${UPLOAD_PATH}`);
    const done = await run("curl", args, { timeout: 60_000 }).then(
      ({ stdout }) => ({ code: 0, stdout }),
      (error: { code?: number; stdout?: string }) => ({ code: error.code ?? -1, stdout: error.stdout ?? "" }),
    );
    return done.code === 0 ? done.stdout : `curl exit ${done.code} (${done.stdout})`;
  }

  async function nodeFetch() {
    return fetch(`${s.base}${UPLOAD_PATH}`, {
      method: "POST",
      headers: { ...bearer(s.demoKey), "content-type": "application/json" },
      body,
      signal: AbortSignal.timeout(60_000),
    }).then(
      async (res) => `${res.status} ${((await res.json()) as { code?: string }).code}`,
      (error: Error) => `${error.message}: ${(error.cause as Error | undefined)?.message}`,
    );
  }

  const ways: [string, () => Promise<string>, string][] = [
    ["Node's fetch", nodeFetch, "413 PAYLOAD_TOO_LARGE"],
    ["curl with Expect: 100-continue", () => curl(true), "413"],
    ["curl without Expect", () => curl(false), "413"],
  ];
  for (const [way, send, expected] of ways)
    it(`sent ${TRIES} times by ${way}: a 413 read each time, never a network error`, async () => {
      const outcomes: string[] = [];
      for (let i = 0; i < TRIES; i++) outcomes.push(await s.guard(way, send(), 70_000));
      console.log(`${way}: ${JSON.stringify(outcomes)}`);
      await s.alive();
      expect(outcomes).toEqual(Array(TRIES).fill(expected));
    });
});

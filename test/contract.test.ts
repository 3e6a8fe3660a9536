/**
 * The published contract, tried the way an integrator uses it: a typed client generated from
 * /openapi.json with openapi-typescript, ordinary code written against it with openapi-fetch
 * (test/contract/integrator.ts) compiled by strict tsc, and that code run against the server, then
 * again through Stoplight Prism proxying to it in `--errors` mode (every request and answer checked
 * against the document: a status, header or body it does not declare is a violation). It fails when
 * the document drifts from the server: a field made nullable, a required input or header left out,
 * a problem member or status undeclared, or a refused call (`@ts-expect-error`) the document allows.
 */
import { execFile, spawn } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import openapiTS, { astToString } from "openapi-typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "./helpers/ports.js";
import { startTestApp, type TestApp } from "./helpers/app.js";

/** What integrator.ts exports, as far as this test reads it. */
type Onboard = (
  baseUrl: string,
  apiKey: string,
  options?: { fetch?: (request: Request) => Promise<Response>; refused?: boolean },
) => Promise<{ seen: Record<string, number>; userId: string; ids: string[]; checkTypes: string[] }>;

const here = path.join(import.meta.dirname, "contract");
const tsc = path.resolve(import.meta.dirname, "../node_modules/typescript/bin/tsc");
const prism = path.resolve(import.meta.dirname, "../node_modules/@stoplight/prism-cli/dist/index.js");

describe("the published contract with a generated client", () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await startTestApp("pglite", { WEBHOOK_ALLOW_PRIVATE: "1" }); // the flow's webhook endpoint is on 127.0.0.1
    base = `http://127.0.0.1:${await t.app.start(0, "127.0.0.1")}`;
  });
  afterAll(() => t?.stop());

  it("compiles ordinary integrator code against a client generated from /openapi.json, and that code walks the flow", async () => {
    const spec = (await t.rest("GET", "/openapi.json")).body;
    await mkdir(path.join(here, "generated"), { recursive: true });
    await writeFile(path.join(here, "generated/api.d.ts"), astToString(await openapiTS(spec)));
    const compiled = await promisify(execFile)(process.execPath, [tsc, "-p", path.join(here, "tsconfig.json")]).catch((failure) => failure);
    expect(`${compiled.stdout}${compiled.stderr}`).toBe("");

    // a path the type checker does not follow: the root project compiles without the generated file
    const integrator = pathToFileURL(path.join(here, "integrator.ts")).href;
    const { onboard } = (await import(integrator)) as { onboard: Onboard };
    const { key } = await t.createClient("Contract");
    const walked = await onboard(base, key);
    expect(walked.seen).toEqual({
      "create without fields": 400,
      "create without contact": 400,
      create: 201,
      read: 200,
      "read if none match": 304,
      update: 200,
      "update with a stale ETag": 412,
      requirements: 200,
      "requirements without a country": 400,
      "trigger otp by header": 202,
      "verify a wrong code": 422,
      "sandbox messages": 200,
      "verify the code": 200,
      verify: 422,
      list: 200,
      "list with a mixed-case status": 400,
      "upload a document": 201,
      "list documents": 200,
      "read a document": 200,
      "download its file": 200,
      "list checks": 200,
      "ask for a check": 202,
      "list events": 200,
      "create a webhook endpoint": 201,
      "list webhook endpoints": 200,
      "delete the webhook endpoint": 204,
      "look up currencies": 200,
      "look up countries": 200,
      "look up corridors": 200,
    });
    expect(walked).toMatchObject({ status: "PENDING", attemptsLeft: expect.any(Number), stillDue: expect.arrayContaining(["date_of_birth"]) });
    expect(walked.ids).toContain(walked.userId);
    expect(walked).toMatchObject({ documentType: "PASSPORT", secret: expect.stringMatching(/^whsec_/), codes: expect.arrayContaining(["PHP"]) });
    expect(new Set(walked.checkTypes)).toEqual(new Set(["KYC", "SANCTIONS_SCREENING", "TRANSACTION_MONITORING"]));

    // the same flow through Stoplight Prism proxying to the server, every request and answer checked against the document
    await writeFile(path.join(here, "generated/openapi.json"), JSON.stringify(spec));
    const port = await freePort();
    const proxy = spawn(process.execPath, [
      prism,
      "proxy",
      path.join(here, "generated/openapi.json"),
      base,
      "--errors",
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
    ]);
    let log = "";
    proxy.stdout.on("data", (chunk) => (log += chunk));
    proxy.stderr.on("data", (chunk) => (log += chunk));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`prism did not start: ${log}`)), 30_000);
        proxy.stdout.on("data", () => {
          if (!/listening on/i.test(log)) return;
          clearTimeout(timer);
          resolve();
        });
        proxy.on("exit", (code) => reject(new Error(`prism exited ${code}: ${log}`)));
      });
      const violations: string[] = [];
      const watched = async (request: Request) => {
        const response = await fetch(request);
        const said = response.headers.get("sl-violations");
        if (said) violations.push(`${request.method} ${new URL(request.url).pathname}: ${said}`);
        return response;
      };
      const proxied = await onboard(`http://127.0.0.1:${port}`, (await t.createClient("Contract via Prism")).key, { fetch: watched, refused: false });
      const {
        "create without fields": _a,
        "create without contact": _b,
        "requirements without a country": _c,
        "list with a mixed-case status": _d,
        ...allowed
      } = walked.seen;
      expect(
        { seen: proxied.seen, violations },
        log
          .split("\n")
          .filter((line) => /violation|error/i.test(line))
          .join("\n"),
      ).toEqual({ seen: allowed, violations: [] });
    } finally {
      proxy.kill();
    }
  }, 90_000);
});

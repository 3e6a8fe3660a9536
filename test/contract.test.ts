/**
 * The published contract, tried the way an integrator uses it: a typed client generated from
 * /openapi.json with openapi-typescript, ordinary code written against it with openapi-fetch
 * (test/contract/integrator.ts) compiled by strict tsc, and that code run against the server. It
 * fails when the document drifts from the server: a field made nullable, a required input or header
 * left out, a problem member undeclared, or a refused call (`@ts-expect-error`) the document allows.
 */
import { execFile } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import openapiTS, { astToString } from "openapi-typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./helpers/app.js";

/** What integrator.ts exports, as far as this test reads it. */
type Onboard = (baseUrl: string, apiKey: string) => Promise<{ seen: Record<string, number>; userId: string; ids: string[] }>;

const here = path.join(import.meta.dirname, "contract");
const tsc = path.resolve(import.meta.dirname, "../node_modules/typescript/bin/tsc");

describe("the published contract with a generated client", () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await startTestApp("pglite");
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
      verify: 422,
      list: 200,
    });
    expect(walked).toMatchObject({ status: "PENDING", attemptsLeft: expect.any(Number), stillDue: expect.arrayContaining(["date_of_birth"]) });
    expect(walked.ids).toContain(walked.userId);
  }, 60_000);
});

/**
 * Every answer is bounded in bytes, whatever the body. For every route of the route table that
 * takes a body, bodies built to make the answer as large as the input can: tens of thousands of
 * unknown keys, keys tens of kilobytes long, each field a long list of wrong items, an object of
 * unknown keys, or a long string; the same for `validateBeneficiary` on /graphql. Each answer must be
 * small, problem+json (GraphQL's shape on /graphql), never 5xx, and a capped list says how many it
 * left out.
 */
import { randomUUID } from "node:crypto";
import { getNamedType, isInputObjectType, isListType, isNonNullType, type GraphQLInputType } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { schema } from "../src/graphql/schema.js";
import { toSnake } from "../src/lib/case.js";
import { MAX_LISTED_PROBLEMS } from "../src/lib/errors.js";
import { CLIENT_SCOPES, OPERATOR_ONLY, REVIEW_SCOPE } from "../src/principal.js";
import { compileRoutes, type CompiledRoute } from "../src/rest/routes.js";
import { ADMIN_KEY, startTestApp, type TestApp } from "./helpers/app.js";

const table = compileRoutes(schema);
const BODY_BYTES = 900 * 1024; // within the 1 MiB body limit
const MAX_ANSWER = 16 * 1024;
const CORRIDOR = "in-inr-bank"; // asks for a document above an amount: the dry run reads `documents`

const takesBody = (r: CompiledRoute) => r.method === "POST" || r.method === "PUT";
const unwrap = (t: GraphQLInputType): GraphQLInputType => (isNonNullType(t) ? unwrap(t.ofType) : t);

/** `count` keys of `length` characters each, every one unknown to any route */
const unknownKeys = (count: number, length = 8) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`z${String(i).padStart(length - 1, "0")}`, 0]));
/** as many `item`s as fit in `bytes` of JSON */
const listOf = (item: unknown, bytes: number) => Array.from({ length: Math.floor(bytes / (JSON.stringify(item).length + 1)) }, () => item);

/** The body fields of a route, by their REST names, with their GraphQL types. */
function bodyFields(route: CompiledRoute) {
  const plan = route.input.body;
  if (!plan) return [];
  const renamed = new Map(Object.entries(plan.aliases).map(([rest, field]) => [field, rest]));
  return Object.entries(plan.type.getFields())
    .filter(([name]) => !plan.fromRoute.has(name))
    .map(([name, field]) => ({ rest: renamed.get(name) ?? toSnake(name), type: unwrap(field.type) }));
}

/** A field's value made of many wrong parts, in `bytes`: lists of wrong items, objects of unknown keys. */
function manyWrong(type: GraphQLInputType, bytes: number, shape: "list" | "object") {
  const named = getNamedType(type);
  // { x: 0 }: not a string, and an input object with an unknown key and its required fields missing
  if (isListType(type)) return listOf({ x: 0 }, bytes);
  if (named.name === "JSON") return shape === "list" ? listOf(0, bytes) : unknownKeys(Math.floor(bytes / 14));
  if (isInputObjectType(named)) return unknownKeys(Math.floor(bytes / 14));
  return shape === "list" ? listOf(0, bytes) : "x".repeat(bytes);
}

/** What the body needs for the route to judge the rest of it (the dry run's corridor). */
const BASE: Record<string, Record<string, unknown>> = {
  "/v2/payouts/remittances/beneficiaries/validate": { corridor_id: CORRIDOR, amount: 100_000_000 },
};

/** Bodies built to maximise the answer of one route, each within the body limit. */
function hostileBodies(route: CompiledRoute): [string, Record<string, unknown>][] {
  const base = BASE[route.path] ?? {};
  const fields = bodyFields(route).filter((f) => !(f.rest in base));
  const share = Math.floor(BODY_BYTES / Math.max(fields.length, 1));
  const each = (shape: "list" | "object") => ({ ...base, ...Object.fromEntries(fields.map((f) => [f.rest, manyWrong(f.type, share, shape)])) });
  const bodies: [string, Record<string, unknown>][] = [
    ["many unknown keys", { ...base, ...unknownKeys(Math.floor(BODY_BYTES / 14)) }],
    ["long unknown keys", { ...base, ...unknownKeys(40, Math.floor(BODY_BYTES / 45)) }],
  ];
  // a route whose body has no field of its own would run (a key rotation): nothing to send it
  if (fields.length)
    bodies.push(["every field a long list of wrong items", each("list")], ["every field an object of unknown keys or a long string", each("object")]);
  return bodies;
}

type Problem = { status: number; code: string; errors?: unknown[]; errors_omitted?: number };

describe("every answer is bounded in bytes", () => {
  let t: TestApp;
  const ids: Record<string, string> = {};
  const keys: Record<string, string> = {};
  beforeAll(async () => {
    t = await startTestApp("pglite", { RATE_LIMIT_PER_MINUTE: "0", OPERATOR_RATE_LIMIT_PER_MINUTE: "0", JOBS: "0", LOG_LEVEL: "silent" });
    const client = await t.createClient("Bounds", [...CLIENT_SCOPES]);
    keys.client = client.key;
    keys.reviewer = (
      await t.rest("POST", `/admin/clients/${client.clientId}/reviewers`, { key: ADMIN_KEY, body: { name: "Bounds", email: "bounds@example.com" } })
    ).body.api_key;
    const user = await t.rest("POST", "/v2/users", { key: client.key, body: { first_name: "Bound", last_name: "Ed", email: "bound@example.com" } });
    const check = await t.rest("POST", `/v2/users/${user.body.user_id}/checks`, { key: client.key, body: { type: "KYC" } });
    Object.assign(ids, { client_id: client.clientId, user_id: user.body.user_id, check_id: check.body.check_id ?? check.body.id });
  }, 60_000);
  afterAll(() => t?.stop());

  const keyOf = (route: CompiledRoute) => (route.scope === OPERATOR_ONLY ? ADMIN_KEY : route.scope === REVIEW_SCOPE ? keys.reviewer : keys.client);
  const pathOf = (route: CompiledRoute) => route.path.replace(/\{(\w+)\}/g, (_, name: string) => ids[name] ?? randomUUID());

  it.each(table.filter(takesBody).map((r) => [r.method, r.path, r] as const))(
    "%s %s: each body built to maximise the answer gets a small problem+json, never 5xx",
    async (_method, _path, route) => {
      for (const [what, body] of hostileBodies(route)) {
        const text = JSON.stringify(body);
        expect(text.length, what).toBeLessThan(1024 * 1024);
        const started = performance.now();
        const res = await t.rest(route.method, pathOf(route), { key: keyOf(route), body: text, headers: { "content-type": "application/json" } });
        const ms = performance.now() - started;
        const bytes = Buffer.byteLength(JSON.stringify(res.body));
        expect(res.status, `${what}: ${JSON.stringify(res.body).slice(0, 300)}`).toBeLessThan(500);
        expect(bytes, `${what}: a ${res.status} of ${bytes} bytes in ${ms.toFixed(0)} ms`).toBeLessThan(MAX_ANSWER);
        // refused for the body, or (an id this test does not make) for the path's object; never for the key
        if (what === "many unknown keys") expect([400, 404], what).toContain(res.status);
        if (res.status >= 400) {
          expect(res.headers.get("content-type"), what).toContain("application/problem+json");
          const problem = res.body as Problem;
          expect(problem.status, what).toBe(res.status);
          expect(problem.errors?.length ?? 0, what).toBeLessThanOrEqual(MAX_LISTED_PROBLEMS);
          if (what === "many unknown keys" && res.status === 400) expect(problem.errors_omitted, what).toBeGreaterThan(1000);
          if (problem.errors_omitted !== undefined) expect(problem.errors?.length, what).toBe(MAX_LISTED_PROBLEMS);
        }
      }
    },
    60_000,
  );

  it("a capped list says how many it left out: many unknown keys are counted, not listed", async () => {
    const body = unknownKeys(5000);
    const res = await t.rest("POST", "/v2/users", { key: keys.client, body });
    expect(res.status).toBe(400);
    expect(res.body.errors).toHaveLength(MAX_LISTED_PROBLEMS);
    // five thousand unknown keys and the names a new user needs
    expect(res.body.errors_omitted).toBeGreaterThanOrEqual(5000 - MAX_LISTED_PROBLEMS);
    const listed = (res.body.errors as { message: string }[]).filter((e) => e.message.includes("Known fields"));
    expect(listed.length, "the known fields are named once, not in every message").toBe(1);
  });

  it("the dry run's 300,000 zeros in documents: a small 422 or 400, at once", async () => {
    const body = { corridor_id: CORRIDOR, amount: 100_000_000, documents: new Array(300_000).fill(0) };
    const started = performance.now();
    const res = await t.rest("POST", "/v2/payouts/remittances/beneficiaries/validate", { key: keys.client, body });
    const ms = performance.now() - started;
    expect([400, 422]).toContain(res.status);
    expect(Buffer.byteLength(JSON.stringify(res.body))).toBeLessThan(MAX_ANSWER);
    expect(ms).toBeLessThan(2000);
  });

  describe("GraphQL's own errors", () => {
    const long = (i: number, c: string) => `f${i}${c.repeat(3000)}`;
    it.each([
      ["300 unknown fields with long names", { query: `{ ${Array.from({ length: 300 }, (_, i) => long(i, "x")).join(" ")} }` }],
      [
        "200 unknown input keys with long names",
        {
          query: "mutation ($i: CreateUserInput!) { createUser(input: $i) { id } }",
          variables: { i: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [long(i, "y"), 1])) },
        },
      ],
    ])("%s: at most MAX_LISTED_PROBLEMS errors, the first counting the rest, each message short", async (_what, body) => {
      const res = await t.rest("POST", "/graphql", { key: keys.client, body });
      expect(res.status).toBeLessThan(500);
      expect(Buffer.byteLength(JSON.stringify(res.body))).toBeLessThan(MAX_ANSWER);
      expect(res.body.errors).toHaveLength(MAX_LISTED_PROBLEMS);
      expect(res.body.errors[0].extensions.errorsOmitted).toBeGreaterThan(20);
    });
  });

  describe("validateBeneficiary on /graphql", () => {
    const VALIDATE = "query ($input: ValidateBeneficiaryInput!) { validateBeneficiary(input: $input) { corridorId payout } }";
    const inputs: [string, Record<string, unknown>][] = [
      ["300,000 zeros in documents", { documents: new Array(300_000).fill(0) }],
      ["documents of wrong objects", { documents: listOf({ x: 0, y: 0 }, BODY_BYTES) }],
      ["sender and beneficiary of unknown keys", { sender: unknownKeys(30_000), beneficiary: unknownKeys(30_000) }],
      ["long unknown keys", { sender: unknownKeys(20, 20_000), beneficiary: unknownKeys(20, 20_000) }],
    ];
    it.each(inputs)("%s: a small BENEFICIARY_INVALID whose fields are capped, with the count left out", async (_what, extra) => {
      const res = await t.gql(keys.client, VALIDATE, { input: { corridorId: CORRIDOR, amount: 100_000_000, ...extra } });
      expect(res.status).toBeLessThan(500);
      expect(Buffer.byteLength(JSON.stringify(res.body))).toBeLessThan(MAX_ANSWER);
      const error = res.errors?.[0];
      expect(error?.extensions.code).toBe("BENEFICIARY_INVALID");
      expect(error?.extensions.fields.length).toBeLessThanOrEqual(MAX_LISTED_PROBLEMS);
      if (error?.extensions.fields.length === MAX_LISTED_PROBLEMS) expect(error.extensions.errorsOmitted).toBeGreaterThan(0);
    });
  });
});

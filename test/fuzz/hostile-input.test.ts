/**
 * Property-based fuzzing (fast-check) of every REST route and every GraphQL mutation, derived from
 * the route table and the schema, so a new route or mutation is fuzzed without touching this file.
 * Properties, for every generated request: never a 5xx; a REST 4xx is problem+json whose `status`
 * is the HTTP status; no error body carries a stack trace, SQL or driver text; and a rejected
 * request leaves every table's row count as it was. A failure prints the shrunk counterexample and
 * the seed to replay it (`FUZZ_SEED=… npx vitest run test/fuzz`).
 */
import fc from "fast-check";
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  type GraphQLInputObjectType,
  type GraphQLInputType,
} from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATOR_ONLY, REVIEW_SCOPE } from "../../src/principal.js";
import { schema } from "../../src/graphql/schema.js";
import { toSnake } from "../../src/lib/case.js";
import { MAX_LISTED_PROBLEMS } from "../../src/lib/errors.js";
import { compileRoutes, type CompiledRoute } from "../../src/rest/routes.js";
import { ADMIN_KEY, backends, startTestApp, type TestApp } from "../helpers/app.js";

const table = compileRoutes(schema);
const MAX_BODY = 256 * 1024;
// `npm test` runs a fifth of the count (vitest.config.ts), the hostile-load suite all of it
const scale = Number(process.env.FUZZ_SCALE ?? 1);
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() % 2 ** 31;

// ── values: every kind of hostile or wrong input ─────────────────────────────────────────────
const deep = (n: number, open = "[", close = "]", leaf = "1") => `${open.repeat(n)}${leaf}${close.repeat(n)}`;
// biome-ignore lint/suspicious/noTemplateCurlyInString: a log4j lookup, sent as the literal text it is
const LOG4J_LOOKUP = "${jndi:ldap://x/a}";
const INJECTION = [
  "'; drop table users; --",
  '" OR 1=1 --',
  "{{7*7}}",
  LOG4J_LOOKUP,
  "<script>alert(1)</script>",
  "../../etc/passwd",
  "$where",
  "%s%s%n",
  "\\u0000",
];
const brokenText = fc.constantFrom("x\udfffy", "\ud800", "a\u0000b", "\u0000", "\udbff\udbff", "\ufeff", "\u202e");
const hugeNumber = fc.constantFrom(1e308, -1e308, 2 ** 53 + 1, Number.MAX_SAFE_INTEGER, -0, 0.1 + 0.2, 2 ** 31);
const scalarish: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  brokenText,
  hugeNumber,
  fc.constantFrom(...INJECTION),
  fc.constantFrom("", " ", "2001-02-30", "1990-05-17", "+6591234567", "+1", "SG", "SGP", "zz", "a@b.co", "CLOSED", "ACTIVE", "bank"),
  fc.constant("x".repeat(100_000)),
);
const nested: fc.Arbitrary<unknown> = fc.oneof(
  { depthSize: "small" },
  scalarish,
  fc.array(scalarish, { maxLength: 3 }),
  fc.dictionary(fc.constantFrom("a", "line1", "b_c", "__proto__", "constructor"), scalarish, { maxKeys: 3 }),
);

/** A plausible-to-hostile value for a GraphQL input type: right shape sometimes, wrong type often. */
function valueFor(type: GraphQLInputType, depth = 0): fc.Arbitrary<unknown> {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) return fc.oneof(fc.array(valueFor(inner.ofType, depth + 1), { maxLength: 3 }), nested);
  if (isInputObjectType(inner) && depth < 3) return fc.oneof({ weight: 3, arbitrary: objectFor(inner, depth + 1) }, { weight: 1, arbitrary: nested });
  if (isEnumType(inner))
    return fc.oneof(
      fc.constantFrom(...inner.getValues().map((v) => v.name)),
      fc.constantFrom(...inner.getValues().map((v) => v.name.toLowerCase())),
      scalarish,
    );
  if (isScalarType(inner) && inner.name === "Boolean") return fc.oneof(fc.boolean(), scalarish);
  return scalarish;
}

function objectFor(type: GraphQLInputObjectType, depth = 0, skip: ReadonlySet<string> = new Set()) {
  const fields = Object.values(type.getFields()).filter((f) => !skip.has(f.name));
  const entries = fields.map((f) => [toSnake(f.name), valueFor(f.type, depth)] as const);
  return fc.record(Object.fromEntries(entries), { requiredKeys: [] }) as fc.Arbitrary<Record<string, unknown>>;
}

// ── bodies and requests ──────────────────────────────────────────────────────────────────────
type Sent = { method: string; path: string; body?: string; contentType?: string };

function bodyFor(route: CompiledRoute): fc.Arbitrary<{ body?: string; contentType?: string }> {
  const shaped = route.input.body
    ? objectFor(route.input.body.type, 0, route.input.body.fromRoute)
    : fc.dictionary(fc.string({ maxLength: 8 }), scalarish, { maxKeys: 3 });
  const json = (arb: fc.Arbitrary<unknown>) => arb.map((v) => ({ body: JSON.stringify(v), contentType: "application/json" }));
  return fc.oneof(
    { weight: 8, arbitrary: json(shaped) },
    {
      weight: 2,
      arbitrary: json(
        fc.tuple(shaped, fc.constantFrom("firstName", "favourite_colour", "user_id", "id", "ifMatch"), scalarish).map(([b, k, v]) => ({ ...b, [k]: v })),
      ),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          deep(10_000),
          `{"first_name":${deep(10_000)}}`,
          `{"residential_address":${deep(5_000, '{"a":', "}", "1")}}`,
          '{"residential_address":{"line1":"x\\udfffy","city":"c","country":"SG"}}',
          '{"first_name":"\\ud800","last_name":"\\u0000"}',
          '{"broken": ',
          "[1,2,3]",
          "null",
          '"text"',
          "{",
          '{"a":1,}',
          "\u0000",
          "x".repeat(MAX_BODY + 10),
          // within the limit, built to inflate the answer: unknown keys by the ten thousand, one key as long as the body
          JSON.stringify(Object.fromEntries(Array.from({ length: 15_000 }, (_, i) => [`k${i}`, [0]]))),
          JSON.stringify({ ["k".repeat(MAX_BODY - 100)]: 1 }),
        )
        .map((body) => ({ body, contentType: "application/json" })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          shaped,
          fc.constantFrom(
            "text/plain",
            "application/xml",
            "multipart/form-data; boundary=x",
            "application/x-www-form-urlencoded",
            "",
            "application/json; charset=latin1",
          ),
        )
        .map(([b, contentType]) => ({
          body: contentType.includes("urlencoded")
            ? "first_name=a&address[line1]=b&a[b][c][d][e][f][g][h][i][j][k][l][m][n][o][p][q][r][s][t][u][v][w][x][y][z][a][b][c][d][e][f][g][h]=1"
            : JSON.stringify(b),
          contentType,
        })),
    },
  );
}

const pathValue = (ids: string[]) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...ids) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        "%",
        "%zz",
        "%E0%A4%A",
        "%ED%A0%80",
        "%C0%AF",
        "%00",
        "%FF%FE",
        "..%2F..%2Fetc",
        "%F0%9F%92%A5",
        "9".repeat(400),
        "-1",
        "0x10",
        "NaN",
      ),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 30 }).map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, ""))) },
  );

const queryFor = (route: CompiledRoute) => {
  const names = [...route.input.query.keys(), ...(route.list ? ["page", "records_per_page"] : []), "unknown_param", "sortFields", "page"];
  const raw = fc.oneof(
    fc.constantFrom("%", "%zz", "%E0%A4%A", "1e999", "99999999999999999999", "-1", "0", "abc", "a,b,,c", "ACTIVE", "active", "PH,XX"),
    fc.string({ maxLength: 20 }).map(encodeURIComponent),
  );
  return fc.array(fc.tuple(fc.constantFrom(...names), raw), { maxLength: 3 }).map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join("&"));
};

/** Who sends a request: the operator, the client's own key, or one of its reviewers (compliance:review). */
type Caller = "admin" | "client" | "reviewer";
const callerOf = (scope: string): Caller => (scope === OPERATOR_ONLY ? "admin" : scope === REVIEW_SCOPE ? "reviewer" : "client");

/** An open screening review with one hit, written as the checks engine would, for the review routes to act on. */
async function openReview(t: TestApp, clientId: string, userId: string) {
  const run = await t.db.checkRun.create({
    data: { clientId, userId, type: "SANCTIONS_SCREENING", trigger: "MANUAL", status: "CONSIDER", decidedBy: "SYSTEM" },
  });
  const hit = { list: "OFAC-SDN", listVersion: "fuzz", entryId: "1", entryHash: "e", subjectHash: "s", score: 0.9 };
  const feature = { given: null, listed: [], verdict: "unknown" };
  const explanation = {
    name: { score: 0.9, pairs: [{ given: "a", listed: "a", similarity: 1 }], unpairedGiven: [], unpairedListed: [], reordered: false },
    dateOfBirth: feature,
    nationality: feature,
    alias: { matched: "A, Fuzz", primary: true, weak: false },
  };
  const match = { ...hit, name: "A, Fuzz", matchedName: "A, Fuzz", entryNames: ["A, Fuzz"], status: "CONSIDER", reasons: [], programs: [], explanation };
  const review = await t.db.review.create({
    data: {
      clientId,
      userId,
      type: "SANCTIONS_SCREENING",
      checkRunId: run.id,
      riskScore: 90,
      screened: { firstName: "a", lastName: "Fuzz" },
      hits: { create: { ...hit, clientId, userId, checkRunId: run.id, match } },
    },
  });
  return review.id;
}

function requestFor(ids: string[]): fc.Arbitrary<Sent & { as: Caller }> {
  return fc.constantFrom(...table).chain((route) =>
    fc
      .record({
        route: fc.constant(route),
        path: fc.array(pathValue(ids), { minLength: 4, maxLength: 4 }).map((vals) => {
          let i = 0;
          return route.path.replace(/\{\w+\}/g, () => vals[i++]);
        }),
        query: queryFor(route),
        payload: route.method === "POST" || route.method === "PUT" ? bodyFor(route) : fc.constant({}),
      })
      .map(({ path, query, payload }) => ({ method: route.method, path: query ? `${path}?${query}` : path, as: callerOf(route.scope), ...payload })),
  );
}

/** Each GraphQL mutation with a generated `input`, and documents that do not parse or validate. */
function mutationRequest(): fc.Arbitrary<Sent> {
  const mutations = Object.values(schema.getMutationType()!.getFields());
  const operation = fc.constantFrom(...mutations).chain((field) => {
    const arg = field.args.find((a) => a.name === "input");
    const variables =
      arg && isInputObjectType(getNamedType(arg.type)) ? objectFor(getNamedType(arg.type) as GraphQLInputObjectType).map(camelize) : fc.constant({});
    const query = arg ? `mutation M($input: ${arg.type}) { ${field.name}(input: $input) { __typename } }` : `mutation { ${field.name} { __typename } }`;
    return fc.oneof(variables, fc.dictionary(fc.constantFrom("input", "x"), nested)).map((vars) => JSON.stringify({ query, variables: vars }));
  });
  const broken = fc.constantFrom(
    `{"query": "mutation { createUser(input: ${deep(3000, "[", "]", "1").replaceAll('"', "")}) { id } }"}`,
    JSON.stringify({ query: `{ ${'user(id: "x") { id } '.repeat(200)} }` }),
    '{"query": "mutation {"}',
    '{"query": 1}',
    '{"query": "query { __typename }", "variables": "x"}',
    `{"query": "mutation($i: CreateUserInput!) { createUser(input: $i) { id } }", "variables": {"i": {"firstName": "\\udfff", "lastName": "b", "email": "a@b.co"}}}`,
    `{"query": "mutation { createUser(input: {firstName: \\"a\\u0000\\", lastName: \\"b\\", email: \\"c@d.ef\\"}) { id } }"}`,
    deep(10_000, '{"a":', "}", "1"),
    "",
  );
  return fc
    .oneof({ weight: 6, arbitrary: operation }, { weight: 1, arbitrary: broken })
    .map((body) => ({ method: "POST", path: "/graphql", body, contentType: "application/json" }));
}

/** REST bodies are snake_case; a GraphQL `input` is camelCase. */
function camelize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelize);
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()), camelize(v)]));
  return value;
}

// ── properties ────────────────────────────────────────────────────────────────────────────────
const LEAK =
  /\n\s+at |\bat [\w$.<>]+ \(|\.[cm]?[jt]s:\d+|node_modules|\bSELECT\b|\bINSERT INTO\b|\bUPDATE "|\bsyntax error at\b|Prisma|PGlite|invalid input syntax|violates|relation "|ECONNREFUSED|URIError|RangeError|TypeError/;

describe.each(
  backends.flatMap(
    (backend) =>
      (backend === "pglite"
        ? [
            ["pglite", "production", 3000 * scale],
            ["pglite", "development", 3000 * scale],
          ]
        : [["postgres", "development", 1000 * scale]]) as [typeof backend, string, number][],
  ),
)("hostile input on %s in %s mode", (backend, mode, runs) => {
  let t: TestApp;
  let key: string;
  let reviewerKey: string;
  let ids: string[];
  let tables: string[];
  const previousMode = process.env.NODE_ENV;
  beforeAll(async () => {
    process.env.NODE_ENV = mode; // yoga and the masking decide what errors show from this
    // JOBS=0: background checks would add rows (events, audit) while the row counts are compared
    t = await startTestApp(backend, {
      MAX_BODY_BYTES: String(MAX_BODY),
      RATE_LIMIT_PER_MINUTE: "0",
      OPERATOR_RATE_LIMIT_PER_MINUTE: "0",
      NODE_ENV: mode,
      LOG_LEVEL: "silent",
      JOBS: "0",
    });
    const client = await t.createClient("Fuzz");
    key = client.key;
    reviewerKey = (await t.rest("POST", `/admin/clients/${client.clientId}/reviewers`, { key: ADMIN_KEY, body: { name: "Fuzz", email: "fuzz@example.com" } }))
      .body.api_key;
    const made = await Promise.all(
      ["a", "b"].map((n) => t.rest("POST", "/v2/users", { key, body: { first_name: n, last_name: "Fuzz", email: `${n}@fuzz.example` } })),
    );
    ids = made.map((r) => r.body.user_id as string);
    ids.push(await openReview(t, client.clientId, ids[0]!)); // JOBS=0: no run opens one by itself
    const rows = await t.db.$queryRawUnsafe<{ name: string }[]>(
      "select tablename as name from pg_tables where schemaname = current_schema() and tablename not like '\\_%' order by 1",
    );
    tables = rows.map((r) => r.name);
  });
  afterAll(async () => {
    await t?.stop();
    process.env.NODE_ENV = previousMode;
  });

  const counts = async () =>
    JSON.stringify(await t.db.$queryRawUnsafe(`select ${tables.map((n) => `(select count(*)::int from "${n}") as "${n}"`).join(", ")}`));

  let known = "";
  async function send(req: Sent, as: Caller) {
    known ||= await counts();
    const res = await t.app.fetch(req.path, {
      method: req.method,
      headers: {
        authorization: `Bearer ${{ admin: ADMIN_KEY, client: key, reviewer: reviewerKey }[as]}`,
        ...(req.contentType ? { "content-type": req.contentType } : {}),
      },
      ...(req.body !== undefined ? { body: req.body } : {}),
    });
    const text = await res.text();
    const where = `${req.method} ${req.path.slice(0, 200)} ${req.contentType ?? ""} ${String(req.body).slice(0, 200)}`;
    expect(res.status, `${where} → ${text.slice(0, 300)}`).toBeLessThan(500);
    // rows may change only when a request is accepted: a refused one must find them as the last one left them
    const now = await counts();
    if (res.status >= 400) {
      expect(text, where).not.toMatch(LEAK);
      expect(now, `${where} was refused but changed rows`).toBe(known);
    }
    known = now;
    return { res, text };
  }

  it(`answers ${runs} generated REST requests over every route without a 5xx, a leak or a stray row`, async () => {
    await fc.assert(
      fc.asyncProperty(requestFor(ids), async (req) => {
        const { res, text } = await send(req, req.as);
        if (res.status >= 400 && res.status !== 304) {
          expect(res.headers.get("content-type"), text).toBe("application/problem+json");
          const problem = JSON.parse(text);
          expect(problem.status).toBe(res.status);
          // every answer is small: problems past the cap are counted, not listed
          expect(text.length, text.slice(0, 300)).toBeLessThan(16 * 1024);
          expect(problem.errors?.length ?? 0).toBeLessThanOrEqual(MAX_LISTED_PROBLEMS);
        }
      }),
      { numRuns: runs, seed, verbose: 1 },
    );
  }, 600_000);

  it(`answers ${Math.round((runs * 2) / 3)} generated GraphQL mutations without a 5xx, a leak or a stray row`, async () => {
    await fc.assert(
      fc.asyncProperty(mutationRequest(), fc.constantFrom<Caller>("admin", "client", "reviewer"), async (req, as) => {
        const { res, text } = await send(req, as);
        const body = JSON.parse(text);
        for (const error of body.errors ?? []) expect(error.extensions?.code, text).toMatch(/^[A-Z_]+$/);
        expect(res.status === 200 || body.errors?.length, text).toBeTruthy();
      }),
      { numRuns: Math.round((runs * 2) / 3), seed, verbose: 1 },
    );
  }, 600_000);
});

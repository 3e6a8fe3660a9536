/**
 * The built-in sanctions screening through the real API, REST and GraphQL alike: a user is created,
 * a SANCTIONS_SCREENING run asked for, and its result read back once the job worked it. Near names
 * with the exact date of birth come back CONSIDER naming the entry; a name sharing only a given name
 * with a listed person, born another day, CLEAR; every result names the list version it screened
 * against and the matcher's version and configuration.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, startTestApp, type TestApp } from "../../../test/helpers/app.js";
import { within } from "../../../test/helpers/eventually.js";
import { MATCHER_VERSION } from "./screening/screen-person.js";

const LIST_VERSION = "ofac-sdn-2024-05-03+210ca6b4a818";

type Person = { firstName: string; middleName?: string; lastName: string; dateOfBirth: string };
/** KACHANOV, Oleg Yurevich (46058), DOB 29 Jun 1976: the family name with two typing slips */
const TWO_SLIPS: Person = { firstName: "Oleg", middleName: "Yurevich", lastName: "Kcahanocv", dateOfBirth: "1976-06-29" };
/** SIHAB, Ahmed Abdulrahman Sihab Ahmed (15208), DOB 16 Aug 1983: the first of his given names only */
const FIRST_GIVEN_ONLY: Person = { firstName: "Ahmed", lastName: "Sihab", dateOfBirth: "1983-08-16" };
/** shares the given name of MNANGAGWA, Emmerson Dambudzo (7513), born another day */
const SHARES_GIVEN_NAME: Person = { firstName: "Emmerson", lastName: "Moyo", dateOfBirth: "1971-02-02" };

const RESULT = "result { score reasons matches provider matcher }";

describe.each(backends)("sanctions screening through the API on %s", (backend) => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp(backend);
    ({ key } = await t.createClient("Screening"));
  });
  afterAll(() => t?.stop());

  /** Creates the person by REST, asks for a screening and reads the completed run back by REST. */
  async function screenByRest(person: Person) {
    const created = await t.rest("POST", "/v2/users", {
      key,
      body: {
        first_name: person.firstName,
        ...(person.middleName ? { middle_name: person.middleName } : {}),
        last_name: person.lastName,
        date_of_birth: person.dateOfBirth,
        email: `${randomUUID()}@example.com`,
      },
    });
    expect(created.status).toBe(201);
    const userId = created.body.user_id as string;
    const asked = await t.rest("POST", `/v2/users/${userId}/checks`, { key, body: { type: "SANCTIONS_SCREENING" } });
    expect(asked.status).toBe(202);
    const run = async () => ((await t.rest("GET", `/v2/users/${userId}/checks`, { key })).body.data as any[]).find((r) => r.check_id === asked.body.check_id);
    return within("the REST screening", run, (r) => !!r?.completed_at);
  }

  /** The same by GraphQL: createUser, createCheck, then checks(userId). */
  async function screenByGraphql(person: Person) {
    const created = await t.gql(key, `mutation($input: CreateUserInput!) { createUser(input: $input) { id } }`, {
      input: { ...person, email: `${randomUUID()}@example.com` },
    });
    expect(created.errors).toBeUndefined();
    const userId = created.data.createUser.id as string;
    const asked = await t.gql(key, `mutation($input: CreateCheckInput!) { createCheck(input: $input) { id } }`, {
      input: { userId, type: "SANCTIONS_SCREENING" },
    });
    expect(asked.errors).toBeUndefined();
    const query = `query($userId: ID!) { checks(userId: $userId) { edges { node { id status completedAt ${RESULT} } } } }`;
    const run = async () => {
      const runs = ((await t.gql(key, query, { userId })).data?.checks.edges ?? []) as { node: any }[];
      return runs.map((e) => e.node).find((n) => n.id === asked.data.createCheck.id);
    };
    return within("the GraphQL screening", run, (r) => !!r?.completedAt);
  }

  for (const [api, screen] of [
    ["REST", (p: Person) => screenByRest(p)],
    ["GraphQL", (p: Person) => screenByGraphql(p)],
  ] as const) {
    it(`${api}: a family name two typing slips off, with the given names and the date of birth exact, is a possible match naming the entry`, async () => {
      const run = await screen(TWO_SLIPS);
      expect(run).toMatchObject({ status: "CONSIDER", result: { provider: LIST_VERSION } });
      expect(run.result.matches[0]).toMatchObject({
        entryId: "46058",
        name: "KACHANOV, Oleg Yurevich",
        listVersion: LIST_VERSION,
        status: "CONSIDER",
        reasons: expect.arrayContaining(["name_near", "dob_exact"]),
        explanation: { name: { basis: "near" }, dateOfBirth: { verdict: "exact" } },
      });
    });

    it(`${api}: only the first of several given names, with the exact date of birth, is a possible match naming the entry`, async () => {
      const run = await screen(FIRST_GIVEN_ONLY);
      expect(run).toMatchObject({ status: "CONSIDER", result: { provider: LIST_VERSION } });
      expect(run.result.matches[0]).toMatchObject({
        entryId: "15208",
        name: "SIHAB, Ahmed Abdulrahman Sihab Ahmed",
        listVersion: LIST_VERSION,
        reasons: expect.arrayContaining(["name_missing_parts", "dob_exact"]),
      });
    });

    it(`${api}: a name sharing only a given name with a listed person, born another day, is clear`, async () => {
      const run = await screen(SHARES_GIVEN_NAME);
      expect(run).toMatchObject({ status: "CLEAR", result: { matches: [], reasons: ["no_match"], provider: LIST_VERSION } });
    });
  }

  it("GraphQL: a screening's result names the list version and the matcher's version and configuration", async () => {
    const { result } = await screenByGraphql(SHARES_GIVEN_NAME);
    expect(result.provider).toBe(LIST_VERSION);
    expect(result.matcher).toMatchObject({
      version: MATCHER_VERSION,
      config: {
        thresholds: { considerAt: expect.any(Number), rejectAt: expect.any(Number) },
        alignment: { missingListedToken: expect.any(Number), otherGivenName: expect.any(Number) },
        keys: { sound: expect.any(Object), spellingLessTwoLetters: expect.any(Object) },
      },
    });
  });

  it("REST: a screening's result names the matcher's version and configuration", async () => {
    const run = await screenByRest(SHARES_GIVEN_NAME);
    expect(run.result).toMatchObject({ provider: LIST_VERSION, matcher: { version: MATCHER_VERSION, config: { thresholds: expect.any(Object) } } });
  });
});

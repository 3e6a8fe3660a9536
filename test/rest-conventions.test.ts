/**
 * REST speaks REST (issue 16 items 1–4) and hostile input gets a clear 4xx (issue 14): answers
 * compared field by field, so a GraphQL name, a lost error or a 500 fails here.
 */
import { createYoga } from "graphql-yoga";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../src/lib/logger.js";
import { withErrorBoundary } from "../src/server/unexpected-error.js";
import { startTestApp, type TestApp } from "./helpers/app.js";

const GRAPHQL_WORDS = /\$input|CreateUserInput|UpdateUserInput|UserStatus\b|firstName|phoneNumber|destinationCountryCode|Variable "|not defined by type/;

describe("REST conventions", () => {
  let t: TestApp;
  let key: string;
  let user: { user_id: string; updated_at: string };
  let etag: string;
  beforeAll(async () => {
    t = await startTestApp();
    key = (await t.createClient("Conventions")).key;
    const made = await t.rest("POST", "/v2/users", {
      key,
      body: {
        first_name: "Rita",
        last_name: "Conv",
        email: "rita@conv.example",
        residential_address: { line1: "1 Main St", city: "Singapore", country: "SG" },
      },
    });
    user = made.body;
    etag = made.headers.get("etag")!;
  });
  afterAll(() => t?.stop());

  const problem = (body: Record<string, unknown>) => ({ detail: body.detail, fields: (body.errors as { field: string }[] | undefined)?.map((e) => e.field) });

  it("names every bad field of an empty body in REST terms, in one answer", async () => {
    const res = await t.rest("POST", "/v2/users", { key, body: {} });
    expect(res.status).toBe(400);
    expect(problem(res.body)).toEqual({ detail: "3 fields are not valid: first_name, last_name, email.", fields: ["first_name", "last_name", "email"] });
    expect(res.body.errors[2]).toEqual({ field: "email", code: "required", message: "email or phone_number is required." });
    expect(JSON.stringify(res.body)).not.toMatch(GRAPHQL_WORDS);
  });

  it("refuses unknown and camelCase fields and wrong types, naming each the REST way", async () => {
    const res = await t.rest("POST", "/v2/users", {
      key,
      body: {
        favouriteColour: "teal",
        firstName: "Camel",
        first_name: 1,
        last_name: "x",
        email: "a@b.co",
        residential_address: { line1: "x", city: "y", country: "SG", postalCode: "1" },
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      {
        field: "favouriteColour",
        code: "unknown_parameter",
        message: expect.stringMatching(/^favouriteColour is not a known field\. Known fields: billing_address, country_of_residence, /),
      },
      { field: "firstName", code: "unknown_parameter", message: "firstName is not a known field. Did you mean first_name? Field names are snake_case." },
      { field: "first_name", code: "invalid", message: "first_name must be a string." },
      {
        field: "residential_address.postalCode",
        code: "unknown_parameter",
        message: "residential_address.postalCode is not a known field. Did you mean postal_code? Field names are snake_case.",
      },
    ]);
    expect(JSON.stringify(res.body)).not.toMatch(/CreateUserInput|AddressInput|\$input|Variable/);
    expect(await t.db.user.count({ where: { firstName: "Camel" } })).toBe(0);
  });

  it("reports a bad date together with a bad nationality", async () => {
    const res = await t.rest("POST", "/v2/users", {
      key,
      body: { first_name: "A", last_name: "B", email: "ab@x.example", date_of_birth: "1990-02-30", nationality: "Atlantis" },
    });
    expect(problem(res.body)).toEqual({ detail: "2 fields are not valid: date_of_birth, nationality.", fields: ["date_of_birth", "nationality"] });
  });

  it("says which ids a body may not carry because the path gives them", async () => {
    const res = await t.rest("PUT", `/v2/users/${user.user_id}`, { key, body: { id: "other", if_match: "x" } });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string; message: string }) => e.message)).toEqual([
      "id is not a known field. It is taken from the path or headers, not the body.",
      "if_match is not a known field. It is taken from the path or headers, not the body.",
    ]);
  });

  it("refuses unknown query parameters and lists enum values in the caller's case, never GraphQL's names", async () => {
    const unknown = await t.rest("GET", "/v2/users?colour=red&status=pending", { key });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual([
      {
        field: "colour",
        code: "unknown_parameter",
        message: "colour is not a known query parameter. Known query parameters: email, external_id, status, sort_fields, sort_order, page, records_per_page.",
      },
    ]);
    const lower = await t.rest("GET", "/v2/users?status=bogus", { key });
    expect(lower.body.detail).toBe("status must be one of active, closed, in_review, pending, rejected, suspended.");
    const upper = await t.rest("GET", "/v2/users?status=BOGUS", { key });
    expect(upper.body.detail).toBe("status must be one of ACTIVE, CLOSED, IN_REVIEW, PENDING, REJECTED, SUSPENDED.");
    const order = await t.rest("GET", "/v2/users?sort_order=up", { key });
    expect(order.body.errors).toEqual([{ field: "sort_order", code: "invalid", message: "sort_order must be one of asc, desc." }]);
    const countries = await t.rest("GET", "/payouts/remittances/utilities/countries?destination_country_code=PH,XX", { key });
    expect(countries.body.errors[0].field).toBe("destination_country_code[1]");
    for (const res of [lower, upper, order, countries]) expect(JSON.stringify(res.body)).not.toMatch(GRAPHQL_WORDS);
  });

  it("accepts enum values spelled as the document declares (upper, lower, kebab), refuses others, and keeps only the route's filters in paging links", async () => {
    const res = await t.rest("GET", "/v2/users?status=pending&records_per_page=1", { key });
    expect(res.status).toBe(200);
    expect(res.body.pagination.links.self).toBe("/v2/users?status=pending&records_per_page=1&page=1");
    for (const status of ["IN_REVIEW", "in_review", "in-review"]) expect((await t.rest("GET", `/v2/users?status=${status}`, { key })).status, status).toBe(200);
    const declared = (await t.rest("GET", "/openapi.json")).body.paths["/v2/users"].get.parameters.find((p: { name: string }) => p.name === "status");
    expect(declared.schema.enum).toEqual(expect.arrayContaining(["IN_REVIEW", "in_review", "in-review"]));
    for (const status of ["Pending", "IN-REVIEW"]) {
      expect(declared.schema.enum).not.toContain(status);
      expect((await t.rest("GET", `/v2/users?status=${status}`, { key })).status, status).toBe(400);
    }
  });

  it("sorts every list with sort_fields and sort_order, and keeps sort=-code on currencies", async () => {
    await t.rest("POST", "/v2/users", { key, body: { first_name: "Aaron", last_name: "Alpha", email: "aaron@conv.example" } });
    await t.checksSettled(); // its check runs move its risk: a page read twice (TEST_TRANSPORT=compare) must find it at rest
    const byName = await t.rest("GET", "/v2/users?sort_fields=last_name&sort_order=asc", { key });
    expect(byName.body.data.map((u: { last_name: string }) => u.last_name)).toEqual(["Alpha", "Conv"]);
    const newest = await t.rest("GET", "/v2/users", { key });
    expect(newest.body.data[0].last_name).toBe("Alpha");
    const codes = async (query: string) =>
      (await t.rest("GET", `/payouts/remittances/utilities/currencies?records_per_page=3&${query}`, { key })).body.data.map(
        (c: { currency_code: string }) => c.currency_code,
      );
    expect(await codes("sort=-code")).toEqual(await codes("sort_fields=currency_code&sort_order=DESC"));
    expect((await codes("sort_fields=currency_code"))[0]).toBe("AED");
    const countries = await t.rest("GET", "/payouts/remittances/utilities/countries?records_per_page=2&sort_fields=country_code&sort_order=desc", { key });
    expect(countries.body.data.map((c: { country_code: string }) => c.country_code)).toEqual(["ZW", "ZM"]);
    const corridors = await t.rest("GET", "/users/wallet/payouts/remittances/corridors?records_per_page=50&sort_fields=receiving_country&sort_order=DESC", {
      key,
    });
    const countriesSeen = corridors.body.data.map((c: { receiving_country: string }) => c.receiving_country);
    expect(countriesSeen).toEqual([...countriesSeen].sort().reverse());
  });

  it("answers 304 to If-None-Match with a user's current ETag, and 406 to an Accept it cannot serve", async () => {
    const held = await t.rest("GET", `/v2/users/${user.user_id}`, { key, headers: { "if-none-match": etag } });
    expect(held.status).toBe(304);
    expect(held.body).toBeNull();
    const xml = await t.rest("GET", `/v2/users/${user.user_id}`, { key, headers: { accept: "application/xml" } });
    expect(xml.status).toBe(406);
    expect(xml.headers.get("content-type")).toBe("application/problem+json");
    expect(xml.body).toMatchObject({ status: 406, code: "NOT_ACCEPTABLE" });
    expect((await t.rest("GET", `/v2/users/${user.user_id}`, { key, headers: { accept: "text/html, application/json;q=0.5" } })).status).toBe(200);
  });

  it("leaves updated_at and the ETag alone when a PUT changes nothing", async () => {
    const same = await t.rest("PUT", `/v2/users/${user.user_id}`, {
      key,
      body: { first_name: "Rita", residential_address: { line1: "1 Main St", city: "Singapore", country: "SGP" } },
    });
    expect(same.status).toBe(200);
    expect(same.headers.get("etag")).toBe(etag);
    expect(same.body.updated_at).toBe(user.updated_at);
    const changed = await t.rest("PUT", `/v2/users/${user.user_id}`, { key, body: { first_name: "Rina" } });
    expect(changed.headers.get("etag")).not.toBe(etag);
    expect(changed.body.updated_at).not.toBe(user.updated_at);
  });

  it("takes user_id from X-Auth-User-ID wherever a body takes user_id, and refuses two different users", async () => {
    const byHeader = await t.rest("POST", "/v2/users/verify", { key, body: {}, headers: { "x-auth-user-id": user.user_id } });
    expect(byHeader.status).toBe(422); // found, and still owes data
    expect(byHeader.body.code).toBe("REQUIREMENTS_DUE");
    const same = await t.rest("POST", "/v2/users/verify", { key, body: { user_id: user.user_id }, headers: { "x-auth-user-id": user.user_id } });
    expect(same.body.code).toBe("REQUIREMENTS_DUE");
    const differ = await t.rest("POST", "/v2/users/verify", {
      key,
      body: { user_id: user.user_id },
      headers: { "x-auth-user-id": "00000000-0000-4000-8000-000000000000" },
    });
    expect(differ.status).toBe(400);
    expect(differ.body.errors).toEqual([expect.objectContaining({ field: "user_id", code: "conflict" })]);
    const stranger = (await t.createClient("Stranger")).key;
    expect((await t.rest("POST", "/v2/users/verify", { key: stranger, body: {}, headers: { "x-auth-user-id": user.user_id } })).status).toBe(404);
  });

  it("answers GET / with a small index, without a key", async () => {
    const res = await t.rest("GET", "/");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: "Onboarding Gateway",
      version: expect.any(String),
      links: { graphql: "/graphql", openapi: "/openapi.json", docs: "/docs" },
    });
  });

  it("answers broken percent-encoding, nested lone surrogates and 10,000-deep bodies with 400, never 500", async () => {
    for (const id of ["%zz", "%", "%E0%A4%A"]) {
      const res = await t.rest("GET", `/v2/users/${id}`, { key });
      expect(res.status, id).toBe(400);
      expect(res.body.errors[0]).toMatchObject({ field: "user_id", code: "malformed_text" });
    }
    const surrogate = await t.rest("POST", "/v2/users", {
      key,
      body: '{"first_name":"a","last_name":"b","email":"s@x.example","residential_address":{"line1":"x\\udfffy","city":"c","country":"SG"}}',
      headers: { "content-type": "application/json" },
    });
    expect(surrogate.body.errors).toEqual([
      {
        field: "residential_address.line1",
        code: "malformed_text",
        message: "residential_address.line1 is not well-formed text (it holds a lone UTF-16 surrogate).",
      },
    ]);
    for (const body of [`{"first_name":${"[".repeat(10_000)}1${"]".repeat(10_000)}}`, `${"[".repeat(10_000)}${"]".repeat(10_000)}`]) {
      const res = await t.rest("PUT", `/v2/users/${user.user_id}`, { key, body, headers: { "content-type": "application/json" } });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("VALIDATION_FAILED");
    }
    const form = await t.rest("PUT", `/v2/users/${user.user_id}`, {
      key,
      body: `first_name${"[a]".repeat(40)}=x`,
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(form.status).toBe(400);
  });

  it("answers whatever a plugin throws as a 500 problem with an errorId and no stack", async () => {
    const yoga = createYoga({
      schema: t.app.yoga.getEnveloped().schema,
      plugins: [
        withErrorBoundary(
          {
            onRequest() {
              throw new Error("secret stack detail");
            },
          },
          createLogger("silent"),
        ),
      ],
    });
    const res = await yoga.fetch("http://x/v2/users");
    const text = await res.text();
    expect(res.status).toBe(500);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(JSON.parse(text)).toMatchObject({ code: "INTERNAL", status: 500, error_id: expect.any(String) });
    expect(text).not.toMatch(/secret|\bat |\.ts:/);
  });
});

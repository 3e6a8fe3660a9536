import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, startTestApp, type TestApp } from "../../../test/helpers/app.js";
import { LOOKUP_CACHE_CONTROL, LOOKUP_FIELDS as F } from "./remittance.routes.js";

const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
/** GraphQL camelCase → the REST shape, so both transports can be compared value for value */
const asRest = (value: any): any =>
  Array.isArray(value)
    ? value.map(asRest)
    : value && typeof value === "object"
      ? Object.fromEntries(Object.entries(value).map(([k, v]) => [snake(k), asRest(v)]))
      : value;
const nodes = (connection: any) => connection.edges.map((e: any) => e.node);

/** The seven lookup paths, each with a documented example and the same question asked in GraphQL. */
const SEVEN = [
  [
    "/users/wallets/payouts/remittances/corridors/PHL/institutions/mobile-wallet",
    `receivingInstitutions(receivingCountry: "PH", receivingInstitutionType: "MOBILE_WALLET") { totalCount edges { node { ${F.institution} } } }`,
  ],
  [
    "/users/wallets/payouts/remittances/BANK/branches/in-sbin?records_per_page=5&sort_order=desc",
    `branches(receivingInstitutionId: "in-sbin", receivingInstitutionType: "BANK", first: 5, sortOrder: "DESC") { totalCount edges { node { ${F.branch} } } }`,
  ],
  [
    "/payouts/remittances/utilities/countries?destination_country_code=PH,IN&receiving_institution_type=BANK&user_type=INDIVIDUAL&status=ACTIVE",
    `countries(destinationCountryCode: ["PH", "IN"], receivingInstitutionType: "BANK", userType: "INDIVIDUAL", status: "ACTIVE") { totalCount edges { node { ${F.country} } } }`,
  ],
  [
    "/payouts/remittances/utilities/currencies?search=peso&status=ACTIVE&page=1&records_per_page=5",
    `currencies(search: "peso", status: "ACTIVE", first: 5) { totalCount edges { node { ${F.currency} } } }`,
  ],
  [
    "/users/wallet/payouts/remittances/corridors?receiving_country=philippines&receiving_currency=PHP",
    `corridors(receivingCountry: "PH", receivingCurrency: "PHP") { totalCount edges { node { ${F.corridor} } } }`,
  ],
  [
    "/users/wallets/payouts/remittances/corridors/IND/details?receiving_institution_type=bank&receiving_currency=INR",
    `corridors(receivingCountry: "IN", receivingInstitutionType: "BANK", receivingCurrency: "INR") { totalCount edges { node { ${F.corridorDetails} } } }`,
  ],
  ["/users/wallet/payouts/remittances/corridors/ph-php-mobile-wallet", `corridor(id: "ph-php-mobile-wallet") { ${F.corridorDetails} }`],
] as const;

describe.each(backends)("remittance lookups on %s", (backend) => {
  let t: TestApp;
  let key: string;
  const get = (path: string, headers: Record<string, string> = {}) => t.rest("GET", path, { key, headers });

  beforeAll(async () => {
    t = await startTestApp(backend); // the app loads the shipped reference data at start
    key = (await t.createClient("Sender", ["lookups:read"])).key;
  });
  afterAll(() => t?.stop());

  it.each(SEVEN)("answers GET %s with real data, the same as GraphQL", async (path, query) => {
    const rest = await get(path);
    expect(rest.status).toBe(200);
    const gql = await t.gql(key, `{ ${query} }`);
    expect(gql.errors).toBeUndefined();
    const [field, value] = Object.entries(gql.data)[0] as [string, any];
    if (field === "corridor") return expect(asRest(value)).toEqual(rest.body);
    expect(rest.body.data.length).toBeGreaterThan(0);
    expect(asRest(nodes(value))).toEqual(rest.body.data);
    expect(rest.body.pagination.total_records).toBe(value.totalCount);
  });

  it("finds the pesos, accent- and case-insensitively, with correct paging totals", async () => {
    const ACTIVE_PESOS = ["ARS", "CLP", "COP", "CUC", "CUP", "DOP", "MXN", "PHP", "UYU"];
    const page1 = await get("/payouts/remittances/utilities/currencies?search=peso&status=ACTIVE&page=1&records_per_page=5");
    const page2 = await get("/payouts/remittances/utilities/currencies?search=PÉSO&status=active&page=2&records_per_page=5");
    expect(page1.body.pagination).toMatchObject({ page: 1, records_per_page: 5, total_records: 9, total_pages: 2 });
    expect(page1.body.pagination.links.next).toBe("/payouts/remittances/utilities/currencies?search=peso&status=ACTIVE&page=2&records_per_page=5");
    expect(page2.body.pagination).toMatchObject({ page: 2, total_records: 9, total_pages: 2 });
    expect([...page1.body.data, ...page2.body.data].map((c: any) => c.currency_code)).toEqual(ACTIVE_PESOS);
    expect(page1.body.data.find((c: any) => c.currency_code === "CLP")).toMatchObject({
      minor_units: 0,
      countries: [{ country_code: "CL", country_name: "Chile" }],
    });
    for (const records of [0, 101]) {
      const bad = await get(`/payouts/remittances/utilities/currencies?search=peso&records_per_page=${records}`);
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ code: "VALIDATION_FAILED", errors: [{ field: "records_per_page" }] });
    }
  });

  it("matches a currency by a country given as alpha-2, alpha-3 or name, takes % and _ literally, and sorts by -name", async () => {
    for (const search of ["PHL", "ph", "Philippines"]) {
      const res = await get(`/payouts/remittances/utilities/currencies?search=${search}`);
      expect(res.body.data.map((c: any) => c.currency_code)).toContain("PHP");
    }
    for (const wildcard of ["_", "%25", "p_so"]) expect((await get(`/payouts/remittances/utilities/currencies?search=${wildcard}`)).body.data).toEqual([]);
    const byName = await get("/payouts/remittances/utilities/currencies?search=bolivar&sort=-name");
    const names = byName.body.data.map((c: any) => c.currency_name);
    expect(names.length).toBeGreaterThan(0);
    expect(names.every((n: string) => /bolívar/i.test(n))).toBe(true);
    expect(names).toEqual([...names].sort().reverse());
  });

  it("answers 400 naming the parameter for unknown enum values, sorts and countries", async () => {
    const cases = [
      ["/users/wallet/payouts/remittances/corridors?receiving_institution_type=FOO", "receiving_institution_type"],
      ["/payouts/remittances/utilities/currencies?status=BAR", "status"],
      ["/payouts/remittances/utilities/currencies?sort=size", "sort"],
      ["/users/wallets/payouts/remittances/corridors/PH/institutions/BANK?sort_order=UP", "sort_order"],
      ["/users/wallets/payouts/remittances/corridors/PH/institutions/BANK?sort_fields=bic", "sort_fields"],
      ["/users/wallets/payouts/remittances/corridors/Atlantis/institutions/BANK", "receiving_country"],
      ["/payouts/remittances/utilities/countries?destination_country_code=PH,XX", "destination_country_code[1]"],
      ["/payouts/remittances/utilities/countries?user_type=ROBOT", "user_type"],
      ["/users/wallets/payouts/remittances/BANK/branches/in-sbin?page=0", "page"],
    ];
    for (const [path, field] of cases) {
      const res = await get(path);
      expect(res.status, path).toBe(400);
      expect(res.body, path).toMatchObject({ code: "VALIDATION_FAILED", errors: [{ field }] });
    }
    const gql = await t.gql(key, `{ corridors(receivingInstitutionType: "FOO") { totalCount } }`);
    expect(gql.errors?.[0].extensions).toMatchObject({ code: "VALIDATION_FAILED", fields: [{ field: "receivingInstitutionType" }] });
  });

  it("treats CARDS as a known type with no data yet", async () => {
    const res = await get("/users/wallets/payouts/remittances/corridors/PH/institutions/cards");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ data: [], pagination: { total_records: 0, total_pages: 0 } });
  });

  it("answers 404 for an unknown corridor or institution, on both transports", async () => {
    expect((await get("/users/wallet/payouts/remittances/corridors/xx-xxx-bank")).body).toMatchObject({ status: 404, code: "NOT_FOUND" });
    expect((await t.gql(key, `{ corridor(id: "xx-xxx-bank") { id } }`)).errors?.[0].extensions.code).toBe("NOT_FOUND");
    expect((await get("/users/wallets/payouts/remittances/BANK/branches/no-such-bank")).status).toBe(404);
    expect((await get("/users/wallets/payouts/remittances/MOBILE_WALLET/branches/in-sbin")).status).toBe(404); // a bank, not a wallet
    expect((await get("/users/wallets/payouts/remittances/CASH_PICKUP/branches/ph-cebuana-lhuillier")).status).toBe(200); // exists, no branches
  });

  it("sends an ETag and Cache-Control, and 304 for a matching If-None-Match", async () => {
    const path = "/payouts/remittances/utilities/currencies?status=ACTIVE";
    const first = await get(path);
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^W\/".+"$/);
    expect(first.headers.get("cache-control")).toBe(LOOKUP_CACHE_CONTROL);
    const again = await get(path, { "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
    expect((await get(path, { "if-none-match": 'W/"stale"' })).status).toBe(200);
  });

  it("filters and sorts institutions and branches", async () => {
    const asc = await get("/users/wallets/payouts/remittances/corridors/IN/institutions/BANK?status=active&records_per_page=100");
    const desc = await get(
      "/users/wallets/payouts/remittances/corridors/in/institutions/bank?status=ACTIVE&sort_fields=NAME&sort_order=desc&records_per_page=100",
    );
    expect(asc.body.data.length).toBeGreaterThan(20);
    expect(desc.body.data.map((i: any) => i.id)).toEqual(asc.body.data.map((i: any) => i.id).reverse());
    const named = await get("/users/wallets/payouts/remittances/corridors/India/institutions/BANK?name=state%20bank");
    expect(named.body.data.map((i: any) => i.id)).toContain("in-sbin");
    const lagos = await get("/users/wallets/payouts/remittances/bank/branches/ng-access-bank?city=LAGOS");
    expect(lagos.body.data).toEqual([expect.objectContaining({ city: "Lagos", code: "044" })]);
    const search = await get("/users/wallets/payouts/remittances/BANK/branches/in-sbin?search=sbin0000002");
    expect(search.body.data.map((b: any) => b.code)).toEqual(["SBIN0000002"]);
  });

  it("lists countries: all of ISO by default, payout destinations by filter", async () => {
    const all = await get("/payouts/remittances/utilities/countries");
    expect(all.body.pagination.total_records).toBeGreaterThanOrEqual(249);
    const cash = await get("/payouts/remittances/utilities/countries?receiving_institution_type=cash-pickup&status=ACTIVE&records_per_page=100");
    expect(cash.body.data.map((c: any) => c.country_code)).toEqual(["CO", "MX", "NP", "PH"]);
    const inactive = await get("/payouts/remittances/utilities/countries?status=inactive");
    expect(inactive.body.data.map((c: any) => c.country_code)).toEqual(["NG", "PH"]); // ng-usd-bank and ph-usd-bank
  });

  it("needs lookups:read and an API key", async () => {
    const other = (await t.createClient("No lookups", ["users:read"])).key;
    expect((await t.rest("GET", "/payouts/remittances/utilities/currencies", { key: other })).body).toMatchObject({ status: 403, code: "FORBIDDEN" });
    expect((await t.rest("GET", "/payouts/remittances/utilities/currencies")).status).toBe(401);
  });

  it("loads nested corridor → country → currencies and institutions in a bounded number of SQL statements", async () => {
    const query = (first: number) => `{ corridors(first: ${first}) { totalCount edges { node {
      id minAmount country { countryName currencies { currencyCode minorUnits } } institutions { totalCount edges { node { id name bic } } } } } } }`;
    await t.gql(key, query(1)); // warm: the API key lookup is cached after the first request
    const small = await t.app.database.countQueries(() => t.gql(key, query(2)));
    const large = await t.app.database.countQueries(() => t.gql(key, query(30))); // 28 shipped; a literal first counts in the cost limit
    expect(large.result.errors).toBeUndefined();
    const corridors = nodes(large.result.data.corridors);
    expect(corridors).toHaveLength(28); // every shipped corridor
    expect(corridors.find((c: any) => c.id === "in-inr-bank").institutions.totalCount).toBeGreaterThan(50);
    expect(nodes(corridors.find((c: any) => c.id === "in-inr-bank").institutions)).toHaveLength(10); // the default page
    // corridors, count, countries, country_currencies, currencies, institutions
    expect(large.queries.length).toBeLessThanOrEqual(6);
    expect(large.queries.length).toBe(small.queries.length);
  });
});

import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import cc from "currency-codes";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allAlpha2 } from "../../lib/countries.js";
import { ADMIN_KEY, backends, startTestApp, type TestApp } from "../../../test/helpers/app.js";
import { importReferenceFile, loadShippedReferenceData } from "./remittance.import.js";
import { alpha2OfIsoName } from "./remittance.iso.js";

const CSV = [
  "kind,id,name,type,country,bic,institution_id,code,city,address,receiving_country,receiving_currency,receiving_institution_type,min_amount,max_amount,delivery_min_hours,delivery_max_hours,delivery_description,required_fields",
  "institution,th-kbank,Kasikornbank,bank,THA,KASITHBK,,,,,,,,,,,,,",
  'branch,th-kbank-0001,Kasikornbank Phahon Yothin,,,,th-kbank,0001,Bangkok,"400/22 Phahon Yothin Road, Phaya Thai",,,,,,,,,',
  "branch,th-kbank-0002,Kasikornbank Chiang Mai,,,,th-kbank,0002,Chiang Mai,,,,,,,,,,",
  "corridor,th-thb-bank,,,,,,,,,Thailand,thb,BANK,10000,20000000,0,24,Within 24 hours,first_name|last_name|account_number",
].join("\n");

describe("ISO 4217 country names", () => {
  it("map to alpha-2 for every country, leaving only organisations and metals", () => {
    const unmapped = cc.countries().filter((name) => !alpha2OfIsoName(name));
    expect(
      unmapped.every((n) => /^zz|european union|monetary fund|sistema unitario|development bank/i.test(n)),
      unmapped.join("; "),
    ).toBe(true);
    expect(
      ["Korea (The Democratic People’s Republic Of)", "Korea (The Republic Of)", "Viet Nam", "Türki̇ye", "Cabo Verde", "Philippines (The)"].map(alpha2OfIsoName),
    ).toEqual(["KP", "KR", "VN", "TR", "CV", "PH"]);
  });
});

describe.each(backends)("remittance reference data on %s", (backend) => {
  let t: TestApp;
  let dir: string;
  let key: string;
  const file = async (name: string, text: string) => {
    const f = path.join(dir, name);
    await writeFile(f, text);
    return f;
  };
  const counts = async () => [await t.db.receivingInstitution.count(), await t.db.branch.count(), await t.db.corridor.count()];

  beforeAll(async () => {
    t = await startTestApp(backend); // the app loads the shipped reference data at start
    dir = await mkdtemp(path.join(tmpdir(), "remittance-"));
    key = (await t.createClient("Sender", ["lookups:read"])).key;
  });
  afterAll(async () => {
    await t?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("loads ISO data and the shipped catalogue at first start; after that it costs two count queries (countries, requirements)", async () => {
    expect(await counts()).toEqual([268, 710, 28]);
    expect(await t.db.currency.count()).toBe(cc.data.length);
    expect(await t.db.country.count()).toBe(allAlpha2().length); // 249 ISO codes, plus XK (Kosovo) as the package has it
    const again = await t.app.database.countQueries(() => loadShippedReferenceData(t.db));
    expect(again.result).toEqual({ loaded: false });
    expect(again.queries).toHaveLength(2);
    expect(await t.db.corridorRequirement.count()).toBe(28);
    expect((await t.db.receivingInstitution.findUnique({ where: { id: "in-sbin" } }))?.hasBranches).toBe(true);
  });

  it("keeps ISO facts: minor units, symbols, funds and metals inactive, countries per currency", async () => {
    const currency = (code: string) => t.db.currency.findUniqueOrThrow({ where: { code }, include: { countries: true } });
    expect(await currency("PHP")).toMatchObject({ minorUnits: 2, symbol: "₱", status: "ACTIVE", countries: [{ countryCode: "PH" }] });
    expect(await currency("JPY")).toMatchObject({ minorUnits: 0, status: "ACTIVE" });
    expect(await currency("BHD")).toMatchObject({ minorUnits: 3 });
    for (const code of ["BOV", "CLF", "USN", "XAU", "XTS"]) expect((await currency(code)).status, code).toBe("INACTIVE");
    expect((await currency("EUR")).countries.map((c) => c.countryCode)).toEqual(expect.arrayContaining(["DE", "FR", "VA"]));
  });

  it("imports a CSV catalogue by upsert and serves it at once", async () => {
    expect(await importReferenceFile(t.app.services, await file("thai.csv", CSV))).toEqual({ institutions: 1, branches: 2, corridors: 1, requirements: 0 });
    const corridor = await t.rest("GET", "/users/wallet/payouts/remittances/corridors/th-thb-bank", { key });
    expect(corridor.body).toMatchObject({ receiving_country: "TH", receiving_currency: "THB", min_amount: 10000, user_types: ["INDIVIDUAL", "BUSINESS"] });
    const branches = await t.rest("GET", "/users/wallets/payouts/remittances/bank/branches/th-kbank?search=phaya%20thai", { key });
    expect(branches.body.data).toEqual([
      { id: "th-kbank-0001", code: "0001", name: "Kasikornbank Phahon Yothin", city: "Bangkok", address: "400/22 Phahon Yothin Road, Phaya Thai" },
    ]);
    const banks = await t.rest("GET", "/users/wallets/payouts/remittances/corridors/TH/institutions/BANK", { key });
    expect(banks.body.data).toEqual([expect.objectContaining({ id: "th-kbank", bic: "KASITHBK", has_branches: true })]);
    expect(await importReferenceFile(t.app.services, await file("thai-again.csv", CSV.replace("Chiang Mai,", "Chiang Mai Nimman,")))).toMatchObject({
      branches: 2,
    });
    expect((await t.db.branch.findUniqueOrThrow({ where: { id: "th-kbank-0002" } })).name).toBe("Kasikornbank Chiang Mai Nimman");
    expect(await t.db.auditEntry.count({ where: { action: "reference.imported" } })).toBe(2);
  });

  it("refuses a CSV with a bad row, naming its line, and writes nothing", async () => {
    const before = await counts();
    const bad = CSV.replace("th-kbank", "th-scb")
      .replace(",0002,", ",,")
      .replace("10000,20000000", "30000000,20000000")
      .replace(/th-thb-bank/, "th-thb-bank-2");
    await expect(importReferenceFile(t.app.services, await file("bad.csv", bad))).rejects.toMatchObject({
      code: "VALIDATION_FAILED",
      fields: [expect.objectContaining({ field: "rows.4.code", code: "required" }), expect.objectContaining({ field: "rows.5.min_amount" })],
    });
    expect(await counts()).toEqual(before);
    expect(await t.db.receivingInstitution.findUnique({ where: { id: "th-scb" } })).toBeNull();
    await expect(importReferenceFile(t.app.services, await file("cols.csv", "kind,id,colour\n"))).rejects.toMatchObject({ fields: [{ field: "columns" }] });
  });

  it("refuses JSON rows that refer to nothing or take another corridor's place, and writes nothing", async () => {
    const before = await counts();
    const lists = {
      institutions: [{ id: "ph-new-bank", name: "New Bank", type: "BANK", country: "PH" }],
      branches: [{ id: "xx-1", institution_id: "no-such-bank", name: "Nowhere", code: "1" }],
      corridors: [
        {
          id: "ph-php-bank-2",
          receiving_country: "PH",
          receiving_currency: "PHP",
          receiving_institution_type: "BANK",
          min_amount: 1,
          max_amount: 2,
          delivery_estimate: { min_hours: 0, max_hours: 1, description: "Fast" },
          required_fields: ["first_name"],
        },
      ],
    };
    await expect(importReferenceFile(t.app.services, await file("bad.json", JSON.stringify(lists)))).rejects.toMatchObject({
      code: "VALIDATION_FAILED",
      fields: [expect.objectContaining({ field: "branches.0.institution_id" }), expect.objectContaining({ field: "corridors.0.id", code: "conflict" })],
    });
    expect(await counts()).toEqual(before);
  });

  it("lets the operator upsert rows through GraphQL with the import's checks", async () => {
    const mutation = `mutation($input: UpsertCorridorInput!) { upsertCorridor(input: $input) { id receivingInstitutionType maxAmount country { alpha3Code } } }`;
    const input = {
      id: "th-thb-mobile-wallet",
      receivingCountry: "th",
      receivingCurrency: "THB",
      receivingInstitutionType: "MOBILE_WALLET",
      minAmount: 100,
      maxAmount: 5_000_000_000,
      deliveryEstimate: { minHours: 0, maxHours: 1, description: "Within 1 hour" },
      requiredFields: ["mobile_number"],
    };
    const ok = await t.gql(ADMIN_KEY, mutation, { input });
    expect(ok.data.upsertCorridor).toEqual({
      id: "th-thb-mobile-wallet",
      receivingInstitutionType: "MOBILE_WALLET",
      maxAmount: 5_000_000_000,
      country: { alpha3Code: "THA" },
    });
    expect((await t.gql(key, mutation, { input })).errors?.[0].extensions.code).toBe("FORBIDDEN");
    const bad = await t.gql(ADMIN_KEY, mutation, { input: { ...input, minAmount: 6_000_000_000 } });
    expect(bad.errors?.[0].extensions).toMatchObject({ code: "VALIDATION_FAILED", fields: [{ field: "minAmount" }] });
    const moved = await t.gql(
      ADMIN_KEY,
      `mutation { upsertBranch(input: { id: "ng-solo-1", institutionId: "in-sbin", name: "Moved", code: "SBIN0999999" }) { id } }`,
    );
    expect(moved.errors).toBeUndefined();
    const loner = await t.db.receivingInstitution.create({
      data: { id: "ng-solo", name: "Solo", nameKey: "solo", type: "BANK", countryCode: "NG", status: "ACTIVE", hasBranches: true },
    });
    await t.db.branch.update({ where: { id: "ng-solo-1" }, data: { institutionId: loner.id } });
    await t.gql(ADMIN_KEY, `mutation { upsertBranch(input: { id: "ng-solo-1", institutionId: "in-sbin", name: "Moved back", code: "SBIN0999999" }) { id } }`);
    expect((await t.db.receivingInstitution.findUniqueOrThrow({ where: { id: "ng-solo" } })).hasBranches).toBe(false);
    const branch = await t.gql(ADMIN_KEY, `mutation { upsertBranch(input: { id: "x-1", institutionId: "no-such-bank", name: "X", code: "1" }) { id } }`);
    expect(branch.errors?.[0].extensions).toMatchObject({ code: "VALIDATION_FAILED", fields: [{ field: "institutionId", code: "not_found" }] });
  });

  it("takes in the operator's mutations the enums the queries return", async () => {
    const read = await t.gql(
      key,
      `{ receivingInstitutions(receivingCountry: "IN", name: "State Bank of India") { edges { node { id name type country status } } } }`,
    );
    const sbi = read.data.receivingInstitutions.edges.map((e: any) => e.node).find((n: any) => n.id === "in-sbin");
    const write = (status: string) =>
      t.gql(
        ADMIN_KEY,
        `mutation { upsertReceivingInstitution(input: { id: "${sbi.id}", name: "${sbi.name}", type: ${sbi.type}, country: "${sbi.country}", status: ${status} }) { id status type } }`,
      );
    const inactive = await write("INACTIVE");
    expect(inactive.errors).toBeUndefined();
    expect(inactive.data.upsertReceivingInstitution).toEqual({ id: "in-sbin", status: "INACTIVE", type: "BANK" });
    const wrong = await write("SLEEPING");
    expect(wrong.errors?.[0].extensions.code).toBe("VALIDATION_FAILED");
    expect((await write("ACTIVE")).data.upsertReceivingInstitution.status).toBe("ACTIVE");
    const corridor = await t.gql(
      ADMIN_KEY,
      `mutation { upsertCorridor(input: { id: "th-thb-cash", receivingCountry: "TH", receivingCurrency: "THB", receivingInstitutionType: CASH_PICKUP,
      minAmount: 100, maxAmount: 1000, deliveryEstimate: { minHours: 0, maxHours: 1, description: "Within 1 hour" }, requiredFields: ["first_name"], userTypes: [INDIVIDUAL], status: INACTIVE }) { userTypes status receivingInstitutionType } }`,
    );
    expect(corridor.data.upsertCorridor).toEqual({ userTypes: ["INDIVIDUAL"], status: "INACTIVE", receivingInstitutionType: "CASH_PICKUP" });
  });
});

describe("cli reference import", () => {
  it("imports a CSV into the embedded database and prints the counts as JSON", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "og-cli-ref-"));
    const csv = path.join(dir, "catalogue.csv");
    await writeFile(csv, CSV);
    const { stdout } = await promisify(execFile)("npx", ["tsx", "src/cli/main.ts", "reference", "import", csv], {
      env: { ...process.env, DATA_DIR: path.join(dir, "data"), DATABASE_URL: "", NODE_ENV: "test" },
      cwd: path.resolve(import.meta.dirname, "../../.."),
    });
    expect(JSON.parse(stdout).imported).toEqual({ institutions: 1, branches: 2, corridors: 1, requirements: 0 });
    await rm(dir, { recursive: true, force: true });
  }, 60_000);
});

describe("shared lookup cache", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.stop());

  it("answers a repeated lookup from memory, never to a key without the scope, and forgets on an admin change", async () => {
    const reader = (await t.createClient("Reader", ["lookups:read"])).key;
    const usersOnly = (await t.createClient("Users", ["users:read"])).key;
    const path = "/users/wallet/payouts/remittances/corridors?receiving_country=THA";
    const first = await t.app.database.countQueries(() => t.rest("GET", path, { key: reader }));
    expect(first.result.body.data).toEqual([]);
    expect(first.queries.length).toBeGreaterThan(0);
    const second = await t.app.database.countQueries(() => t.rest("GET", path, { key: reader }));
    expect(second.result.body).toEqual(first.result.body);
    expect(second.result.headers.get("etag")).toBe(first.result.headers.get("etag"));
    expect(second.queries.filter((q) => !q.includes("api_keys"))).toEqual([]);
    expect((await t.rest("GET", path, { key: usersOnly })).status).toBe(403);

    const input = {
      id: "th-thb-bank",
      receivingCountry: "TH",
      receivingCurrency: "THB",
      receivingInstitutionType: "BANK",
      minAmount: 100,
      maxAmount: 1_000_000,
      deliveryEstimate: { minHours: 0, maxHours: 24, description: "Within 24 hours" },
      requiredFields: ["account_number"],
    };
    const upsert = await t.gql(ADMIN_KEY, `mutation($input: UpsertCorridorInput!) { upsertCorridor(input: $input) { id } }`, { input });
    expect(upsert.errors).toBeUndefined();
    // the change arrives through the event bus (Redis when configured): poll briefly
    let ids: string[] = [];
    for (let i = 0; i < 50 && !ids.length; i++, await new Promise((r) => setTimeout(r, 20)))
      ids = (await t.rest("GET", path, { key: reader })).body.data.map((c: any) => c.id);
    expect(ids).toEqual(["th-thb-bank"]);
  });

  it("runs a lookup once for requests that miss it together, each answered in full and with its own request id", async () => {
    const reader = (await t.createClient("Crowd", ["lookups:read"])).key;
    const lookup = (search: string) => `/payouts/remittances/utilities/currencies?search=${search}&records_per_page=5`;
    const statements = (queries: string[]) => queries.filter((q) => !q.includes("api_keys"));
    await t.rest("GET", lookup("euro"), { key: reader }); // the key is cached: what follows counts lookups only
    const alone = await t.app.database.countQueries(() => t.rest("GET", lookup("yen"), { key: reader }));
    expect(alone.result.status).toBe(200);
    expect(statements(alone.queries).length).toBeGreaterThan(0);
    const crowd = await t.app.database.countQueries(() => Promise.all(Array.from({ length: 8 }, () => t.rest("GET", lookup("peso"), { key: reader }))));
    expect(statements(crowd.queries)).toHaveLength(statements(alone.queries).length);
    expect(crowd.result[0].body.data.map((c: { currency_code: string }) => c.currency_code)).toContain("ARS");
    for (const res of crowd.result) expect([res.status, res.body]).toEqual([200, crowd.result[0].body]);
    // one reply shared by the crowd, then by the hits after it: each answer still carries its own request id
    const hits = await Promise.all(Array.from({ length: 8 }, () => t.rest("GET", lookup("peso"), { key: reader })));
    for (const answers of [crowd.result, hits]) expect(new Set(answers.map((res) => res.headers.get("x-request-id"))).size).toBe(8);
  });
});

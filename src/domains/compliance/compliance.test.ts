import { execFile } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, startTestApp, type TestApp } from "../../../test/helpers/app.js";
import { OPERATOR } from "../../principal.js";
import { importRuleSet, importRuleSetFile, loadShippedRuleSets } from "./compliance.import.js";
import { compileRuleSet, evaluate, parseRuleSet, unsatisfiedGroups } from "./compliance.rules.js";
import { requirementsNow, requirementsOf } from "./compliance.service.js";
import { eventually } from "../../../test/helpers/eventually.js";

const root = path.resolve(import.meta.dirname, "../../..");
const shipped = async (country: string) => JSON.parse(await readFile(path.join(root, "data/compliance", `${country}.json`), "utf8"));
const REQ = "requirements { currentlyDue eventuallyDue errors { field code message } }";
/** the same fields for every user: only the country of residence differs */
const SAME = { first_name: "Lee", last_name: "Tan", email: "lee@example.com", phone_number: "+6591234567", date_of_birth: "1990-05-01" };

describe("rule set files", () => {
  it("ships DEFAULT and at least ten jurisdictions, each valid and each rule noted as a source or a product choice", async () => {
    for (const country of ["DEFAULT", "SG", "MY", "PH", "IN", "AE", "GB", "US", "DE", "FR", "NG"]) {
      const body = parseRuleSet(await shipped(country));
      expect(body.country).toBe(country);
      for (const rule of ["required_fields", "documents", "formats", "minimum_age", "phone_verification_required", "rescreening_interval_days"])
        expect(body.notes?.[rule]?.length, `${country} ${rule}`).toBeGreaterThan(10);
      expect(body.notes?.required_fields, country).toMatch(/^Source: /);
      expect(body.notes?.minimum_age, country).toMatch(/^Product choice/);
    }
  });

  it("refuses a bad file whole, naming each field", () => {
    const bad = {
      country: "XX",
      version: 0,
      effective_from: "2026-02-30",
      name: "x",
      required_fields: ["shoe_size"],
      eventually_due_fields: [],
      documents: [{ name: "id", one_of: ["CAR"] }],
      formats: { postal_code: "([", tax_id: null },
      minimum_age: 18,
      phone_verification_required: true,
      email_verification_required: "no",
      rescreening_interval_days: 365,
      colour: "red",
    };
    try {
      parseRuleSet(bad);
      expect.unreachable();
    } catch (error: any) {
      expect(error.code).toBe("VALIDATION_FAILED");
      expect(error.fields.map((f: any) => f.field).sort()).toEqual([
        "colour",
        "country",
        "documents.0.one_of.0",
        "effective_from",
        "email_verification_required",
        "formats.postal_code",
        "required_fields.0",
        "version",
      ]);
    }
  });

  it("lets one document meet one group only, and ignores expired and deleted ones", () => {
    const groups = [
      { name: "identity", one_of: ["PASSPORT", "DRIVING_LICENSE"] as any },
      { name: "address", one_of: ["DRIVING_LICENSE", "PROOF_OF_ADDRESS"] as any },
    ];
    const now = new Date("2026-06-01");
    const doc = (documentType: string, status = "ACTIVE", expiryDate: Date | null = null) => ({ documentType, status, expiryDate });
    expect(unsatisfiedGroups(groups, [doc("DRIVING_LICENSE")], now).map((g) => g.name)).toEqual(["address"]);
    expect(unsatisfiedGroups(groups, [doc("DRIVING_LICENSE"), doc("PASSPORT")], now)).toEqual([]); // licence moves to address
    expect(unsatisfiedGroups(groups, [doc("PASSPORT", "DELETED"), doc("PROOF_OF_ADDRESS", "ACTIVE", new Date("2026-05-31"))], now).length).toBe(2);
  });

  it("reports format errors, under-age users and an unreadable tax id", async () => {
    const sg = compileRuleSet({ country: "SG", version: 1, effectiveFrom: new Date(0), body: parseRuleSet(await shipped("SG")) });
    const r = evaluate(
      sg,
      {
        firstName: "A",
        lastName: "B",
        dateOfBirth: new Date("2015-01-01"),
        nationality: "SG",
        residentialAddress: { postalCode: "SW1A 1AA" },
        taxId: "123",
        emailVerified: false,
        phoneVerified: false,
        documents: [],
      },
      new Date("2026-06-01"),
    );
    expect(r.errors.map((e) => [e.field, e.code])).toEqual([
      ["residential_address.postal_code", "invalid_format"],
      ["tax_id", "invalid_format"],
      ["date_of_birth", "under_minimum_age"],
    ]);
    expect(r.currentlyDue).toEqual(expect.arrayContaining(["tax_id", "date_of_birth", "residential_address.postal_code", "phone_number"]));
    expect(evaluate(sg, { taxId: undefined, emailVerified: false, phoneVerified: false, documents: [] }, new Date()).errors[0]).toMatchObject({
      field: "tax_id",
      code: "unreadable",
    });
  });
});

describe.each(backends)("compliance requirements on %s", (backend) => {
  let t: TestApp;
  let key: string;
  let clientId: string;
  const user = async (country: string, extra: Record<string, unknown> = {}) => {
    const res = await t.rest("POST", "/v2/users", {
      key,
      body: { ...SAME, email: `${country}.${Math.random()}@example.com`, country_of_residence: country, ...extra },
    });
    expect(res.status).toBe(201);
    return res.body;
  };
  const addDocument = (userId: string, documentType: string, extra: Record<string, unknown> = {}) =>
    t.db.document.create({
      data: {
        clientId,
        userId,
        documentType: documentType as any,
        fileName: "scan.png",
        mimeType: "image/png",
        sizeBytes: 1,
        sha256: "0".repeat(64),
        ...extra,
      },
    });
  const due = async (id: string) => (await t.rest("GET", `/v2/users/${id}`, { key })).body.requirements;
  const gqlDue = async (id: string) => (await t.gql(key, `query($id: ID!) { user(id: $id) { ${REQ} } }`, { id })).data.user.requirements;

  beforeAll(async () => {
    t = await startTestApp(backend);
    ({ key, clientId } = await t.createClient("Compliance"));
  });
  afterAll(() => t?.stop());

  it("makes a Singapore and a UK user with the same fields owe different things, until each has what its rules ask", async () => {
    const sg = await user("SG");
    const gb = await user("GBR");
    expect(sg.requirements.currently_due).toEqual([
      "nationality",
      "residential_address",
      "residential_address.postal_code",
      "documents.identity",
      "documents.address",
      "phone_verified",
    ]);
    expect(gb.requirements.currently_due).toEqual([
      "residential_address",
      "residential_address.postal_code",
      "documents.identity",
      "documents.address",
      "phone_verified",
    ]);
    expect(await gqlDue(sg.user_id)).toEqual({ currentlyDue: sg.requirements.currently_due, eventuallyDue: sg.requirements.eventually_due, errors: [] });

    // the same two documents: a UK photocard licence proves identity; Singapore wants a passport or NRIC
    for (const u of [sg, gb]) {
      await addDocument(u.user_id, "DRIVING_LICENSE");
      await addDocument(u.user_id, "PROOF_OF_ADDRESS");
    }
    expect((await due(sg.user_id)).currently_due).toContain("documents.identity");
    expect((await due(gb.user_id)).currently_due).not.toContain("documents.identity");

    // a Singapore postal code is not a UK postcode
    await t.rest("PUT", `/v2/users/${gb.user_id}`, {
      key,
      body: { residential_address: { line1: "10 Downing St", city: "London", postal_code: "018989", country: "GB" } },
    });
    expect((await due(gb.user_id)).errors).toEqual([
      { field: "residential_address.postal_code", code: "invalid_format", message: expect.stringContaining("GB") },
    ]);

    await t.rest("PUT", `/v2/users/${gb.user_id}`, {
      key,
      body: { residential_address: { line1: "10 Downing St", city: "London", postal_code: "SW1A 2AA", country: "GB" } },
    });
    await t.gql(key, `mutation($input: UpdateUserInput!) { updateUser(input: $input) { id } }`, {
      input: { id: sg.user_id, nationality: "SGP", residentialAddress: { line1: "1 Marina Blvd", city: "Singapore", postalCode: "018989", country: "SG" } },
    });
    await addDocument(sg.user_id, "PASSPORT", { expiryDate: new Date(Date.now() + 365 * 86_400_000) });
    await t.db.user.updateMany({ where: { id: { in: [sg.user_id, gb.user_id] } }, data: { phoneVerified: true } }); // OTP is another domain's
    for (const u of [sg, gb]) {
      expect((await due(u.user_id)).currently_due).toEqual([]);
      expect((await gqlDue(u.user_id)).currentlyDue).toEqual([]);
    }
  });

  it("counts only ACTIVE documents that have not expired", async () => {
    const u = await user("DE", {
      nationality: "DE",
      residential_address: { line1: "Unter den Linden 1", city: "Berlin", postal_code: "10117", country: "DE" },
    });
    await t.db.user.update({ where: { id: u.user_id }, data: { phoneVerified: true } });
    await addDocument(u.user_id, "PASSPORT", { expiryDate: new Date("2020-01-01") });
    await addDocument(u.user_id, "NATIONAL_ID", { status: "DELETED" });
    expect((await due(u.user_id)).currently_due).toEqual(["documents.identity"]);
    await addDocument(u.user_id, "NATIONAL_ID", { expiryDate: new Date(Date.now() + 86_400_000 * 30) });
    expect((await due(u.user_id)).currently_due).toEqual([]);
  });

  it("answers GET /v2/compliance/requirements?country= (alpha-2 or alpha-3) as GraphQL does, DEFAULT for a country without rules", async () => {
    const rest = await t.rest("GET", "/v2/compliance/requirements?country=sgp", { key });
    expect(rest.status).toBe(200);
    expect(rest.body).toMatchObject({
      country: "SG",
      rule_set: {
        country: "SG",
        version: 1,
        minimum_age: 18,
        phone_verification_required: true,
        formats: { postal_code: "^\\d{6}$" },
        documents: [
          { name: "identity", one_of: ["PASSPORT", "NATIONAL_ID"] },
          { name: "address", one_of: ["PROOF_OF_ADDRESS"] },
        ],
      },
      currently_due: expect.arrayContaining(["first_name", "nationality", "documents.identity", "phone_number", "phone_verified"]),
    });
    expect(rest.body.rule_set.notes.required_fields).toContain("MAS Notice 626");
    const gql = await t.gql(key, `{ complianceRequirements(country: "SG") { country currentlyDue ruleSet { country version minimumAge notes } } }`);
    expect(gql.data.complianceRequirements).toMatchObject({ country: "SG", currentlyDue: rest.body.currently_due, ruleSet: { country: "SG", minimumAge: 18 } });
    expect((await t.rest("GET", "/v2/compliance/requirements?country=BR", { key })).body).toMatchObject({ country: "BR", rule_set: { country: "DEFAULT" } });
    expect((await t.rest("GET", "/v2/compliance/requirements?country=GB", { key })).body.rule_set.notes.required_fields).toContain("JMLSG");
    expect((await t.rest("GET", "/v2/compliance/requirements?country=US", { key })).body.rule_set.notes.required_fields).toContain("31 CFR 1020.220");
    for (const query of ["?country=XX", "?country=", ""]) {
      const bad = await t.rest("GET", `/v2/compliance/requirements${query}`, { key });
      expect(bad.status, query).toBe(400);
      expect(bad.body, query).toMatchObject({ code: "VALIDATION_FAILED" });
    }
    expect((await t.rest("GET", "/v2/compliance/requirements?country=XX", { key })).body.errors).toEqual([expect.objectContaining({ field: "country" })]);
    expect((await t.rest("GET", "/v2/compliance/requirements", { key })).body).toMatchObject({
      detail: "country is required.",
      errors: [{ field: "country", code: "required" }],
    });
  });

  it("lists for every shipped country exactly what its rule set asks of a new user, over REST and GraphQL (tax_id only where required)", async () => {
    for (const country of ["DEFAULT", "SG", "MY", "PH", "IN", "AE", "GB", "US", "DE", "FR", "NG"]) {
      const body = parseRuleSet(await shipped(country));
      const owed = [
        ...body.required_fields,
        ...(body.phone_verification_required ? ["phone_number"] : []),
        ...(body.email_verification_required ? ["email"] : []),
        ...body.documents.map((group) => `documents.${group.name}`),
        ...(body.phone_verification_required ? ["phone_verified"] : []),
        ...(body.email_verification_required ? ["email_verified"] : []),
      ];
      const asked = country === "DEFAULT" ? "BR" : country;
      const rest = await t.rest("GET", `/v2/compliance/requirements?country=${asked}`, { key });
      expect(new Set(rest.body.currently_due), country).toEqual(new Set(owed));
      expect(rest.body.currently_due.includes("tax_id"), country).toBe(body.required_fields.includes("tax_id"));
      const gql = await t.gql(key, `{ complianceRequirements(country: "${asked}") { currentlyDue } }`);
      expect(gql.data.complianceRequirements.currentlyDue, country).toEqual(rest.body.currently_due);
    }
  });

  it("computes a read's requirements without waiting once the rule sets are loaded, and waits again after a change", async () => {
    const book = t.app.services.compliance;
    const facts = { countryOfResidence: "SG", emailVerified: false, phoneVerified: false };
    await book.inForce("SG");
    expect(book.inForceNow("SG")?.country).toBe("SG");
    const now = requirementsNow(t.app.services, facts);
    expect(now).not.toBeInstanceOf(Promise);
    expect(now).toEqual((({ rules: _, ...rest }) => rest)(await requirementsOf(t.app.services, facts)));
    book.invalidate(); // what compliance.updated and a changed stamp do
    expect(book.inForceNow("SG")).toBeNull();
    expect(requirementsNow(t.app.services, facts)).toBeInstanceOf(Promise);
    await book.inForce("SG");
    expect(book.inForceNow("SG")?.country).toBe("SG");
  });

  it("applies a new rule-set version imported by the CLI to an existing user, with no restart", async () => {
    const u = await user("FR", { residential_address: { line1: "1 Rue de Rivoli", city: "Paris", postal_code: "75001", country: "FR" } });
    await addDocument(u.user_id, "PASSPORT");
    await t.db.user.update({ where: { id: u.user_id }, data: { phoneVerified: true } });
    expect((await due(u.user_id)).currently_due).toEqual([]);
    await due(u.user_id); // the rule sets are cached now

    const file = path.join(await mkdtemp(path.join(tmpdir(), "og-rules-")), "FR-v2.json");
    const v2 = { ...(await shipped("FR")), version: 2, required_fields: [...(await shipped("FR")).required_fields, "nationality", "tax_id"] };
    await writeFile(file, JSON.stringify(v2));
    if (backend === "postgres") {
      // the real CLI in its own process, on the server's schema: it can only reach the server through the database
      const { stdout } = await promisify(execFile)("node", ["--import", "tsx", "src/cli/main.ts", "compliance", "import", file], {
        cwd: root,
        env: { ...process.env, DATABASE_SCHEMA: t.schemaName!, ENCRYPTION_KEY: "0".repeat(64), REDIS_URL: "", NODE_ENV: "test" },
      });
      expect(JSON.parse(stdout).imported).toMatchObject({ country: "FR", version: 2, unchanged: false });
    } else {
      // PGlite is single-process: the CLI's own function, with no event bus, as the CLI runs it
      expect(await importRuleSetFile(t.app.services, file)).toMatchObject({ country: "FR", version: 2, unchanged: false });
    }
    const currentlyDue = await eventually(
      async () => (await due(u.user_id)).currently_due as string[],
      (d) => d.length > 0,
      10_000,
      200,
    );
    expect(currentlyDue).toEqual(["nationality", "tax_id"]);
    expect((await t.rest("GET", "/v2/compliance/requirements?country=FR", { key })).body.rule_set.version).toBe(2);
    const versions = await t.db.complianceRuleSet.findMany({
      where: { country: "FR" },
      orderBy: { version: "asc" },
      select: { version: true, supersededBy: true },
    });
    expect(versions).toEqual([
      { version: 1, supersededBy: 2 },
      { version: 2, supersededBy: null },
    ]);
  });

  it("takes an import through the event bus at once, refuses an old version and writes nothing for a bad file", async () => {
    const u = await user("MY", { nationality: "MY", residential_address: { line1: "1 Jalan", city: "KL", postal_code: "50450", country: "MY" } });
    await t.db.user.update({ where: { id: u.user_id }, data: { phoneVerified: true } });
    await due(u.user_id);
    const writer = { principal: OPERATOR, requestId: "test", events: t.app.services.events };
    const v2 = parseRuleSet({ ...(await shipped("MY")), version: 2, minimum_age: 40 });
    await importRuleSet(t.app.services, writer, v2);
    // the event is delivered asynchronously (through Redis when configured)
    const errors = await eventually(
      async () => (await due(u.user_id)).errors as { field: string; code: string }[],
      (e) => e.length > 0,
      15_000,
      50,
    );
    expect(errors).toContainEqual(expect.objectContaining({ field: "date_of_birth", code: "under_minimum_age" }));
    expect(await importRuleSet(t.app.services, writer, v2)).toMatchObject({ unchanged: true });
    await expect(importRuleSet(t.app.services, writer, parseRuleSet({ ...(await shipped("MY")), version: 2, minimum_age: 30 }))).rejects.toMatchObject({
      code: "VALIDATION_FAILED",
      fields: [{ field: "version" }],
    });
    const before = await t.db.complianceRuleSet.count();
    const file = path.join(await mkdtemp(path.join(tmpdir(), "og-rules-")), "bad.json");
    await writeFile(file, JSON.stringify({ ...(await shipped("MY")), version: 3, formats: { postal_code: "(" } }));
    await expect(importRuleSetFile(t.app.services, file)).rejects.toMatchObject({ fields: [{ field: "formats.postal_code" }, { field: "formats.tax_id" }] });
    expect(await t.db.complianceRuleSet.count()).toBe(before);
  });

  it("loads nothing twice at start, and names a shipped file whose content changed without a new version", async () => {
    expect(await loadShippedRuleSets(t.db)).toEqual({ loaded: [], stale: [] });
    await t.db.complianceRuleSet.update({ where: { country_version: { country: "NG", version: 1 } }, data: { checksum: "edited" } });
    expect(await loadShippedRuleSets(t.db)).toEqual({ loaded: [], stale: ["NG@1"] });
  });
});

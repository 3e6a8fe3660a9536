/**
 * A legacy (v1) caller, scripted: HTTP Basic with the key as user name, form bodies with bracket
 * nesting, the seed's paths. Every change is then read back through v2 and GraphQL.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../../test/helpers/app.js";
import { ConfigError, loadConfig, V1_DEPRECATED_AT } from "../config.js";

const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a2d6c9a90000000049454e44ae426082",
  "hex",
);

/** `{address: {line1: "x"}}` → `address[line1]=x`, as the vendor's callers encode. */
function form(body: Record<string, unknown>, prefix = "", out = new URLSearchParams()) {
  for (const [k, v] of Object.entries(body)) {
    const name = prefix ? `${prefix}[${k}]` : k;
    if (v && typeof v === "object") form(v as Record<string, unknown>, name, out);
    else out.append(name, String(v));
  }
  return out;
}

const basic = (key: string) => `Basic ${Buffer.from(`${key}:`).toString("base64")}`;
const address = (line1: string) => ({ line1, city: "Singapore", postal_code: "049315", country: "SG" });

describe("v1 (legacy) routes", () => {
  let t: TestApp;
  let key: string;
  let clientId: string;
  let other: string;
  /** A v1 call as a legacy client makes it: Basic auth, a form body. */
  const v1 = (method: string, path: string, body: Record<string, unknown>, k = key, headers: Record<string, string> = {}) =>
    t.rest(method, path, {
      body: form(body).toString(),
      headers: { authorization: basic(k), "content-type": "application/x-www-form-urlencoded", ...headers },
    });
  const json = (method: string, path: string, body: unknown, k = key) => t.rest(method, path, { key: k, body });
  const newUser = async (k = key, active = false) => {
    const id = (await json("POST", "/v2/users", { first_name: "Ann", last_name: "Lee", email: `${randomUUID()}@example.com` }, k)).body.user_id as string;
    if (active) await t.db.user.update({ where: { id }, data: { status: "ACTIVE" } }); // KYC approval is the checks domain's
    return id;
  };

  beforeAll(async () => {
    t = await startTestApp("pglite", { V1_SUNSET: "2027-03-31" });
    ({ key, clientId } = await t.createClient("Legacy caller"));
    ({ key: other } = await t.createClient("Someone else"));
  });
  afterAll(() => t.stop());

  const expectDeprecated = (res: { headers: Headers }, successor: string) => {
    expect(res.headers.get("deprecation")).toBe(`@${V1_DEPRECATED_AT.getTime() / 1000}`);
    expect(res.headers.get("sunset")).toBe("Wed, 31 Mar 2027 00:00:00 GMT");
    expect(res.headers.get("link")).toBe(`<${successor}>; rel="successor-version"`);
  };

  it("runs the whole v1 flow with form bodies and HTTP Basic, and v2 reads every change", async () => {
    const created = await v1("POST", "/v1/users", {
      first_name: "Lee",
      last_name: "Tan",
      email: `${randomUUID()}@example.com`,
      date_of_birth: "1990-02-03",
      residential_address: address("1 Old Road"),
    });
    expect(created.status).toBe(201);
    expectDeprecated(created, "/v2/users");
    const userId = created.body.user_id;

    const updated = await v1("PUT", "/v1/users", { user_id: userId, middle_name: "Kai", phone_number: "+6591234567" });
    expect(updated).toMatchObject({ status: 200, body: { user_id: userId, middle_name: "Kai" } });
    expectDeprecated(updated, "/v2/users");
    // X-Auth-User-ID names the user instead of the body; both given and different is 400
    const byHeader = await v1("PUT", "/v1/users", { last_name: "Header" }, key, { "x-auth-user-id": userId });
    expect(byHeader).toMatchObject({ status: 200, body: { user_id: userId, last_name: "Header" } });
    const clash = await v1("PUT", "/v1/users", { user_id: userId, last_name: "X" }, key, { "x-auth-user-id": randomUUID() });
    expect(clash).toMatchObject({ status: 400, body: { errors: [{ field: "user_id", code: "conflict" }] } });

    const residential = await v1("PUT", "/v1/users/addresses/residential", { user_id: userId, address: address("2 New Road") });
    expect(residential).toMatchObject({ status: 200, body: { residential_address: { line1: "2 New Road" } } });
    const billing = await v1("PUT", "/v1/users/addresses/billing/", { user_id: userId, address: { ...address("9 Bill St"), line2: "#02-01" } });
    expect(billing).toMatchObject({ status: 200, body: { billing_address: { line1: "9 Bill St", line2: "#02-01" } } });

    const doc = await v1("POST", "/v1/users/authentications/documents", {
      user_id: userId,
      document_type: "passport",
      document_number: "E1234567",
      issuing_country: "SGP",
      expiry_date: "2030-01-14",
      file: { file_name: "passport.png", content_base64: PNG.toString("base64") },
    });
    expect(doc).toMatchObject({
      status: 201,
      body: { user_id: userId, document_type: "PASSPORT", document_number: "****4567", file: { mime_type: "image/png" } },
    });
    expectDeprecated(doc, "/v2/users/authentications/documents");
    const docUpdate = await v1("PUT", "/v1/users/authentications/documents", { document_id: doc.body.document_id, expiry_date: "2031-05-06" });
    expect(docUpdate).toMatchObject({ status: 200, body: { document_id: doc.body.document_id, expiry_date: "2031-05-06" } });

    await t.db.user.update({ where: { id: userId }, data: { status: "ACTIVE" } }); // KYC approval is the checks domain's
    const wallet = await v1("POST", "/v1/users/wallets", { user_id: userId, currency: "sgd" });
    expect(wallet.status).toBe(201);
    expect(wallet.body).toEqual({ wallet_id: expect.any(String), user_id: userId, currency: "SGD", status: "ACTIVE" });
    expectDeprecated(wallet, "/v2/users/wallets");
    const card = await v1("POST", "/v1/users/wallets/cards/", { wallet_id: wallet.body.wallet_id, card_type: "VIRTUAL" });
    expect(card.status).toBe(201);
    expect(card.body).toEqual({ card_id: expect.any(String), wallet_id: wallet.body.wallet_id, card_type: "VIRTUAL", status: "REQUESTED" });
    expectDeprecated(card, "/v2/users/wallets/cards");
    const noSlash = await v1("POST", "/v1/users/wallets/cards", { wallet_id: wallet.body.wallet_id, card_type: "physical" });
    expect(noSlash).toMatchObject({ status: 201, body: { card_type: "PHYSICAL", status: "REQUESTED" } });

    // JSON bodies reach the same operations
    const viaJson = await t.rest("PUT", "/v1/users", { body: { user_id: userId, locale: "en-SG" }, headers: { authorization: basic(key) } });
    expect(viaJson).toMatchObject({ status: 200, body: { locale: "en-SG" } });

    const v2 = await json("GET", `/v2/users/${userId}`, undefined);
    expect(v2.body).toMatchObject({
      first_name: "Lee",
      middle_name: "Kai",
      last_name: "Header",
      phone_number: "+6591234567",
      date_of_birth: "1990-02-03",
      locale: "en-SG",
      status: "ACTIVE",
      residential_address: { line1: "2 New Road", city: "Singapore", postal_code: "049315", country: "SG" },
      billing_address: { line1: "9 Bill St", line2: "#02-01" },
    });
    const docs = await json("GET", `/v2/users/authentications/documents?user_id=${userId}`, undefined);
    expect(docs.body.data).toMatchObject([{ document_id: doc.body.document_id, expiry_date: "2031-05-06" }]);
    const graph = await t.gql(key, `query($id: ID!) { user(id: $id) { wallets { id currency cards { id cardType } } } }`, { id: userId });
    expect(graph.data.user.wallets).toEqual([
      {
        id: wallet.body.wallet_id,
        currency: "SGD",
        cards: expect.arrayContaining([
          { id: card.body.card_id, cardType: "VIRTUAL" },
          { id: noSlash.body.card_id, cardType: "PHYSICAL" },
        ]),
      },
    ]);

    const metrics = await (await t.app.fetch("/metrics")).text();
    expect(metrics).toContain(`v1_requests_total{route="POST /v1/users",client_id="${clientId}"} 1`);
    expect(metrics).toContain(`v1_requests_total{route="PUT /v1/users",client_id="${clientId}"} 4`);
    expect(metrics).toContain(`v1_requests_total{route="POST /v1/users/wallets/cards/",client_id="${clientId}"} 2`);
  });

  it("rejects bad input on each v1 path with the same problem+json code as its v2 twin, with the deprecation headers", async () => {
    const userId = await newUser(key, true);
    const pending = await newUser();
    const walletId = (await json("POST", "/v2/users/wallets", { user_id: userId, currency: "EUR" })).body.wallet_id;
    const pairs: [v1: [string, string, Record<string, unknown>], v2: [string, string, Record<string, unknown>], code: string, status: number][] = [
      [
        ["POST", "/v1/users", { email: "not-an-email", last_name: "X" }],
        ["POST", "/v2/users", { email: "not-an-email", last_name: "X" }],
        "VALIDATION_FAILED",
        400,
      ],
      [["POST", "/v1/users", { nickname: "x" }], ["POST", "/v2/users", { nickname: "x" }], "VALIDATION_FAILED", 400],
      [
        ["PUT", "/v1/users", { user_id: userId, date_of_birth: "2999-01-01" }],
        ["PUT", `/v2/users/${userId}`, { date_of_birth: "2999-01-01" }],
        "VALIDATION_FAILED",
        400,
      ],
      [["PUT", "/v1/users", { user_id: userId, status: "PENDING" }], ["PUT", `/v2/users/${userId}`, { status: "PENDING" }], "INVALID_STATE_TRANSITION", 409],
      [
        ["PUT", "/v1/users/addresses/residential", { user_id: userId, address: { line1: "x", city: "y", country: "ZZ" } }],
        ["PUT", `/v2/users/${userId}`, { residential_address: { line1: "x", city: "y", country: "ZZ" } }],
        "VALIDATION_FAILED",
        400,
      ],
      [
        ["PUT", "/v1/users/addresses/billing", { user_id: userId, address: { city: "y", country: "SG" } }],
        ["PUT", `/v2/users/${userId}`, { billing_address: { city: "y", country: "SG" } }],
        "VALIDATION_FAILED",
        400,
      ],
      [
        ["POST", "/v1/users/authentications/documents", { user_id: userId, document_type: "DIPLOMA", file: { content_base64: "eA==" } }],
        ["POST", "/v2/users/authentications/documents", { user_id: userId, document_type: "DIPLOMA", file: { content_base64: "eA==" } }],
        "VALIDATION_FAILED",
        400,
      ],
      [
        ["PUT", "/v1/users/authentications/documents", { document_id: "nope", expiry_date: "2031-01-01" }],
        ["PUT", "/v2/users/authentications/documents", { document_id: "nope", expiry_date: "2031-01-01" }],
        "NOT_FOUND",
        404,
      ],
      [
        ["POST", "/v1/users/wallets", { user_id: userId, currency: "XAU" }],
        ["POST", "/v2/users/wallets", { user_id: userId, currency: "XAU" }],
        "CURRENCY_NOT_SUPPORTED",
        422,
      ],
      [
        ["POST", "/v1/users/wallets", { user_id: pending, currency: "SGD" }],
        ["POST", "/v2/users/wallets", { user_id: pending, currency: "SGD" }],
        "USER_NOT_ACTIVE",
        409,
      ],
      [
        ["POST", "/v1/users/wallets/cards/", { wallet_id: walletId, card_type: "PLASTIC" }],
        ["POST", "/v2/users/wallets/cards", { wallet_id: walletId, card_type: "PLASTIC" }],
        "VALIDATION_FAILED",
        400,
      ],
      [["POST", "/v1/users/wallets/cards/", { card_type: "VIRTUAL" }], ["POST", "/v2/users/wallets/cards", { card_type: "VIRTUAL" }], "VALIDATION_FAILED", 400],
    ];
    for (const [[m1, p1, b1], [m2, p2, b2], code, status] of pairs) {
      const old = await v1(m1, p1, b1);
      const now = await json(m2, p2, b2);
      expect({ path: p1, status: old.status, code: old.body.code, type: old.headers.get("content-type") }).toEqual({
        path: p1,
        status,
        code,
        type: "application/problem+json",
      });
      expect({ path: p2, status: now.status, code: now.body.code }).toEqual({ path: p2, status, code });
      expect(old.body.errors?.map((e: { code: string }) => e.code)).toEqual(now.body.errors?.map((e: { code: string }) => e.code));
      expect(old.headers.get("deprecation")).toMatch(/^@\d+$/);
      expect(old.headers.get("link")).toMatch(/rel="successor-version"/);
    }
    // an address route takes only the user and the address, named as the caller sent them
    const extra = await v1("PUT", "/v1/users/addresses/residential", { user_id: userId, address: address("x"), email: "a@b.co" });
    expect(extra).toMatchObject({ status: 400, body: { code: "VALIDATION_FAILED", errors: [{ field: "email", code: "unknown_parameter" }] } });
    const missing = await v1("PUT", "/v1/users/addresses/billing", { user_id: userId });
    expect(missing).toMatchObject({ status: 400, body: { errors: [{ field: "address", code: "required" }] } });
    const badCountry = await v1("PUT", "/v1/users/addresses/billing", { user_id: userId, address: { line1: "x", city: "y", country: "ZZ" } });
    expect(badCountry.body.errors[0].field).toBe("address.country");
  });

  it("names the successor on answers other plugins give: 401, and an Idempotency-Key replay", async () => {
    const anonymous = await t.rest("POST", "/v1/users", { body: "first_name=x", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(anonymous.status).toBe(401);
    expectDeprecated(anonymous, "/v2/users");
    const body = { first_name: "Rey", last_name: "Play", email: `${randomUUID()}@example.com` };
    const idem = { "idempotency-key": randomUUID() };
    const first = await v1("POST", "/v1/users", body, key, idem);
    const again = await v1("POST", "/v1/users", body, key, idem);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.user_id).toBe(first.body.user_id);
    expectDeprecated(again, "/v2/users");
  });

  it("answers 404 on every v1 path for another client's user, document, wallet", async () => {
    const theirs = await newUser(other, true);
    const theirDoc = (
      await json(
        "POST",
        "/v2/users/authentications/documents",
        {
          user_id: theirs,
          document_type: "PASSPORT",
          document_number: "E7654321",
          issuing_country: "SG",
          file: { file_name: "p.png", content_base64: PNG.toString("base64") },
        },
        other,
      )
    ).body.document_id;
    const theirWallet = (await json("POST", "/v2/users/wallets", { user_id: theirs, currency: "SGD" }, other)).body.wallet_id;
    expect(theirDoc && theirWallet).toBeTruthy();
    const calls: [string, string, Record<string, unknown>][] = [
      ["PUT", "/v1/users", { user_id: theirs, first_name: "Mine" }],
      ["PUT", "/v1/users/addresses/residential", { user_id: theirs, address: address("x") }],
      ["PUT", "/v1/users/addresses/billing", { user_id: theirs, address: address("x") }],
      [
        "POST",
        "/v1/users/authentications/documents",
        { user_id: theirs, document_type: "PROOF_OF_ADDRESS", file: { file_name: "p.png", content_base64: PNG.toString("base64") } },
      ],
      ["PUT", "/v1/users/authentications/documents", { document_id: theirDoc, expiry_date: "2031-01-01" }],
      ["POST", "/v1/users/wallets", { user_id: theirs, currency: "USD" }],
      ["POST", "/v1/users/wallets/cards/", { wallet_id: theirWallet, card_type: "VIRTUAL" }],
    ];
    for (const [method, path, body] of calls) {
      const res = await v1(method, path, body);
      expect({ path, status: res.status, code: res.body.code }).toEqual({ path, status: 404, code: "NOT_FOUND" });
    }
    const untouched = await json("GET", `/v2/users/${theirs}`, undefined, other);
    expect(untouched.body).toMatchObject({ first_name: "Ann", residential_address: null });
    expect(await t.db.wallet.count({ where: { userId: theirs } })).toBe(1);
    expect(await t.db.card.count({ where: { walletId: theirWallet } })).toBe(0);
  });
});

describe("V1_ENABLED=0", () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp("pglite", { V1_ENABLED: "0" });
    ({ key } = await t.createClient("Late migrator"));
  });
  afterAll(() => t.stop());

  it("answers 410 problem+json on every v1 path, with the headers naming the successor, and leaves v2 on", async () => {
    const paths: [string, string][] = [
      ["POST", "/v1/users"],
      ["PUT", "/v1/users"],
      ["PUT", "/v1/users/addresses/residential"],
      ["PUT", "/v1/users/addresses/billing"],
      ["POST", "/v1/users/authentications/documents"],
      ["PUT", "/v1/users/authentications/documents"],
      ["POST", "/v1/users/wallets"],
      ["POST", "/v1/users/wallets/cards/"],
      ["POST", "/v1/users/wallets/cards"],
    ];
    for (const [method, path] of paths) {
      const res = await t.rest(method, path, {
        body: "first_name=x",
        headers: { authorization: basic(key), "content-type": "application/x-www-form-urlencoded" },
      });
      expect({ path, status: res.status, code: res.body.code, type: res.headers.get("content-type") }).toEqual({
        path,
        status: 410,
        code: "V1_GONE",
        type: "application/problem+json",
      });
      expect(res.headers.get("link")).toMatch(/^<\/v2\/users[^>]*>; rel="successor-version"$/);
      expect(res.headers.get("sunset")).toBe("Wed, 30 Jun 2027 00:00:00 GMT");
    }
    expect(await t.db.user.count()).toBe(0);
    expect((await t.rest("POST", "/v2/users", { key, body: { first_name: "A", last_name: "B", email: "a@example.com" } })).status).toBe(201);
  });

  it("refuses a bad V1_ENABLED or V1_SUNSET at start, naming the variable", () => {
    expect(() => loadConfig({ V1_ENABLED: "yes" })).toThrow(ConfigError);
    expect(() => loadConfig({ V1_SUNSET: "next year" })).toThrow(/V1_SUNSET/);
    expect(() => loadConfig({ V1_SUNSET: "2027-02-30" })).toThrow(/V1_SUNSET/);
    expect(loadConfig({ V1_SUNSET: "2028-01-01T12:00:00Z" }).v1Sunset.toISOString()).toBe("2028-01-01T12:00:00.000Z");
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { thrown } from "../../../test/helpers/refusal.js";
import { arg, checkRow, parseArgs, parseCurrencySort, ROW_KINDS, type RowKind, rowFields, searchKey, USER_TYPES } from "./remittance.rules.js";

type Problem = { field: string; code: string; message: string };
/** A checker's answer and the problems it pushed. */
const checked = (check: (raw: unknown, field: string, errors: Problem[]) => unknown, raw: unknown, field = "f") => {
  const errors: Problem[] = [];
  const value = check(raw, field, errors);
  return { value, errors: errors.map((e) => [e.field, e.code]) };
};
/** checkRow as the CSV import names fields (`rows.3.min_amount`). */
const row = (kind: RowKind, input: Record<string, unknown>) => {
  const errors: Problem[] = [];
  const out = checkRow(kind, input, (f) => `rows.3.${f.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`, errors);
  return { out, errors, fields: errors.map((e) => e.field) };
};

const INSTITUTION = { id: "bdo-ph", name: "BDO Unibank", type: "BANK", country: "PH", bic: "BNORPHMM" };
const BRANCH = { id: "bdo-ph-makati", institutionId: "bdo-ph", name: "Makati", code: "0042" };
const CORRIDOR = {
  id: "sg-ph-bank",
  receivingCountry: "PH",
  receivingCurrency: "PHP",
  receivingInstitutionType: "BANK",
  minAmount: 100,
  maxAmount: 500_000,
  deliveryMinHours: 0,
  deliveryMaxHours: 24,
  deliveryDescription: "Same day",
  requiredFields: ["account_number", "account_name"],
};

describe("searchKey: the accent-free key searches meet at", () => {
  it('"Peso Uruguayo", "PESO" and "péso" all meet at "peso"', () => {
    expect(searchKey("Peso Uruguayo").startsWith("peso")).toBe(true);
    expect(searchKey("PESO")).toBe("peso");
    expect(searchKey("péso")).toBe("peso");
  });

  it("joins the given parts with one space, skipping missing ones", () => {
    expect(searchKey("São  Paulo", null, undefined, "", "  Branco ")).toBe("sao paulo branco");
    expect(searchKey()).toBe("");
  });

  it("removes the diacritics of precomposed letters; a letter of its own such as ł stays", () => {
    expect(searchKey("Ñandú Łódź Crème Brûlée")).toBe("nandu łodz creme brulee");
  });

  it("a key is its own key (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (text) => {
        const key = searchKey(text);
        expect(searchKey(key)).toBe(key);
      }),
    );
  });

  it("does not depend on case (property)", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        expect(searchKey(text.toUpperCase())).toBe(searchKey(text.toLowerCase()));
      }),
    );
  });
});

describe("arg: each lookup filter's checker", () => {
  it("an institution type is taken in any case, with - or _", () => {
    expect(checked(arg.type, "mobile-wallet")).toEqual({ value: "MOBILE_WALLET", errors: [] });
    expect(checked(arg.type, "Cash_Pickup")).toEqual({ value: "CASH_PICKUP", errors: [] });
    expect(checked(arg.type, " bank ")).toEqual({ value: "BANK", errors: [] });
  });

  it("an unknown value is refused listing the allowed ones the way the caller wrote theirs", () => {
    const lower: Problem[] = [];
    arg.type("boat", "receiving_institution_type", lower);
    expect(lower).toEqual([
      { field: "receiving_institution_type", code: "invalid", message: "receiving_institution_type must be one of bank, mobile_wallet, cash_pickup, cards." },
    ]);
    const upper: Problem[] = [];
    arg.status("Paused", "status", upper);
    expect(upper[0]?.message).toBe("status must be one of ACTIVE, INACTIVE.");
  });

  it("a user type is INDIVIDUAL or BUSINESS", () => {
    expect(USER_TYPES).toEqual(["INDIVIDUAL", "BUSINESS"]);
    expect(checked(arg.userType, "business").value).toBe("BUSINESS");
    expect(checked(arg.userType, "person").errors).toEqual([["f", "invalid"]]);
  });

  it("a country is alpha-2, alpha-3 or its English name, stored alpha-2", () => {
    for (const raw of ["PH", "ph", "PHL", "Philippines", " philippines "]) expect(checked(arg.country, raw).value, raw).toBe("PH");
    for (const raw of ["XX", "Narnia", "P"]) expect(checked(arg.country, raw, "country").errors, raw).toEqual([["country", "invalid"]]);
  });

  it("a list of countries may be repeated or comma-separated; each bad one is named by its place", () => {
    expect(checked(arg.countries, ["SG,MY", "PHL"]).value).toEqual(["SG", "MY", "PH"]);
    expect(checked(arg.countries, ["SG,Narnia", "XX"], "destination_country_code")).toEqual({
      value: undefined,
      errors: [
        ["destination_country_code.1", "invalid"],
        ["destination_country_code.2", "invalid"],
      ],
    });
  });

  it("a search text is the search key, and nothing when it is only spaces", () => {
    expect(arg.text("  Makati  City ")).toBe("makati city");
    expect(arg.text("   ")).toBeUndefined();
  });

  it("a contains term escapes LIKE's wildcards, so 100% matches only 100%", () => {
    expect(arg.like("100%_off\\")).toBe("100\\%\\_off\\\\");
    expect(arg.like("Bánco")).toBe("banco");
    expect(arg.like("")).toBeUndefined();
  });

  it("a currency is three letters, stored upper case", () => {
    expect(checked(arg.currency, " php ").value).toBe("PHP");
    for (const raw of ["pesos", "PH", "P1P"]) expect(checked(arg.currency, raw, "currency").errors, raw).toEqual([["currency", "invalid"]]);
  });
});

describe("parseArgs: a lookup's arguments, checked together", () => {
  const checks = { status: arg.status, country: arg.country, search: arg.like };

  it("checks only the arguments given: null, empty text and empty lists are not given", () => {
    expect(parseArgs({ status: null, country: "", search: undefined }, checks)).toEqual({});
    expect(parseArgs({ country: [] }, { country: arg.countries })).toEqual({});
  });

  it("returns the normalised values", () => {
    expect(parseArgs({ status: "active", country: "PHL", search: "BDO" }, checks)).toEqual({ status: "ACTIVE", country: "PH", search: "bdo" });
  });

  it("ignores arguments it has no checker for", () => {
    expect(parseArgs({ status: "active", page: 2 }, checks)).toEqual({ status: "ACTIVE" });
  });

  it("refuses every bad argument at once", () => {
    const error = thrown(() => parseArgs({ status: "paused", country: "Narnia", search: "x" }, checks));
    expect(error?.code).toBe("VALIDATION_FAILED");
    expect(error?.fields?.map((f) => f.field)).toEqual(["status", "country"]);
  });
});

describe("parseCurrencySort: sort=code|name|-code|-name", () => {
  it("sorts by code ascending when no sort is given", () => {
    expect(parseCurrencySort(null)).toEqual({ field: "code", order: "asc" });
    expect(parseCurrencySort("")).toEqual({ field: "code", order: "asc" });
  });

  it.each([
    ["code", "code", "asc"],
    ["-code", "code", "desc"],
    ["name", "name", "asc"],
    ["-name", "name", "desc"],
    ["+name", "name", "asc"],
    [" -NAME ", "name", "desc"],
  ])("%j sorts by %s %s", (sort, field, order) => {
    expect(parseCurrencySort(sort)).toEqual({ field, order });
  });

  it.each(["price", "-", "--code", "code,name"])("refuses %j, naming the sort field", (sort) => {
    expect(thrown(() => parseCurrencySort(sort))).toMatchObject({ code: "VALIDATION_FAILED", fields: [{ field: "sort", code: "invalid" }] });
  });
});

describe("checkRow: an imported or edited institution", () => {
  it("a complete institution comes out whole, its optional fields null", () => {
    expect(row("institution", INSTITUTION)).toEqual({
      out: {
        kind: "institution",
        row: { ...INSTITUTION, localCode: null, localCodeType: null, status: null, source: null },
      },
      errors: [],
      fields: [],
    });
  });

  it("normalises its type, country and status", () => {
    const { out } = row("institution", { ...INSTITUTION, type: "mobile-wallet", country: "Philippines", status: "inactive", bic: null });
    expect(out?.row).toMatchObject({ type: "MOBILE_WALLET", country: "PH", status: "INACTIVE", bic: null });
  });

  it("names each missing required field as the caller wrote it", () => {
    const { out, errors } = row("institution", {});
    expect(out).toBeUndefined();
    expect(errors.map((e) => [e.field, e.code])).toEqual([
      ["rows.3.id", "required"],
      ["rows.3.name", "required"],
      ["rows.3.type", "required"],
      ["rows.3.country", "required"],
    ]);
    expect(errors[0]?.message).toBe("rows.3.id is required.");
  });

  it("an id is a lower-case slug of at most 100 characters", () => {
    for (const id of ["a", "bdo-ph", "x.y_z-1", "a".repeat(100)]) expect(row("institution", { ...INSTITUTION, id }).errors, id).toEqual([]);
    for (const id of ["BDO", "-bdo", "bdo ph", "a".repeat(101), "bdø"]) expect(row("institution", { ...INSTITUTION, id }).fields, id).toEqual(["rows.3.id"]);
  });

  it("a BIC is 8 or 11 characters and carries the institution's country in letters 5-6", () => {
    expect(row("institution", { ...INSTITUTION, bic: "BNORPHMMXXX" }).errors).toEqual([]);
    for (const bic of ["BNORPHM", "BNORPHMMXX", "bnorphmm", "BN0RPHMM"])
      expect(row("institution", { ...INSTITUTION, bic }).fields, bic).toEqual(["rows.3.bic"]);
    const elsewhere = row("institution", { ...INSTITUTION, bic: "DBSSSGSG" });
    expect(elsewhere.errors).toEqual([
      { field: "rows.3.bic", code: "invalid", message: "rows.3.bic must carry the institution's country (PH) in letters 5-6." },
    ]);
  });

  it("texts are trimmed and bounded", () => {
    expect(row("institution", { ...INSTITUTION, name: "  BDO  " }).out?.row).toMatchObject({ name: "BDO" });
    expect(row("institution", { ...INSTITUTION, name: "   " }).fields).toEqual(["rows.3.name"]);
    expect(row("institution", { ...INSTITUTION, name: "n".repeat(201) }).fields).toEqual(["rows.3.name"]);
    expect(row("institution", { ...INSTITUTION, localCode: "c".repeat(33) }).fields).toEqual(["rows.3.local_code"]);
  });
});

describe("checkRow: an imported or edited branch", () => {
  it("a branch needs its institution, name and code; city and address are optional", () => {
    expect(row("branch", BRANCH).out).toEqual({ kind: "branch", row: { ...BRANCH, city: null, address: null } });
    expect(row("branch", { id: "b" }).fields).toEqual(["rows.3.institution_id", "rows.3.name", "rows.3.code"]);
  });
});

describe("checkRow: an imported or edited corridor", () => {
  it("a complete corridor comes out whole", () => {
    expect(row("corridor", CORRIDOR)).toMatchObject({ out: { kind: "corridor", row: { ...CORRIDOR, userTypes: null, status: null } }, errors: [] });
  });

  it("takes the delivery estimate nested, as the API shows it", () => {
    const { deliveryMinHours, deliveryMaxHours, deliveryDescription, ...rest } = CORRIDOR;
    const { out } = row("corridor", { ...rest, deliveryEstimate: { minHours: 2, maxHours: 48, description: "Within two days" } });
    expect(out?.row).toMatchObject({ deliveryMinHours: 2, deliveryMaxHours: 48, deliveryDescription: "Within two days" });
  });

  it("amounts and hours are whole numbers, also when a CSV cell spells them as text", () => {
    expect(row("corridor", { ...CORRIDOR, minAmount: " 250 ", maxAmount: "1000" }).out?.row).toMatchObject({ minAmount: 250, maxAmount: 1000 });
    for (const minAmount of [-1, 1.5, "1.5", "1e3", "ten", Number.MAX_SAFE_INTEGER + 2, true])
      expect(row("corridor", { ...CORRIDOR, minAmount }).fields, String(minAmount)).toEqual(["rows.3.min_amount"]);
  });

  it("a delivery takes at most a year of hours", () => {
    expect(row("corridor", { ...CORRIDOR, deliveryMaxHours: 24 * 365 }).errors).toEqual([]);
    expect(row("corridor", { ...CORRIDOR, deliveryMaxHours: 24 * 365 + 1 }).fields).toEqual(["rows.3.delivery_max_hours"]);
  });

  it("the minimum may equal the maximum but not exceed it, for amounts and for hours", () => {
    expect(row("corridor", { ...CORRIDOR, minAmount: 500, maxAmount: 500, deliveryMinHours: 24 }).errors).toEqual([]);
    const { errors } = row("corridor", { ...CORRIDOR, minAmount: 501, maxAmount: 500, deliveryMinHours: 25 });
    expect(errors).toEqual([
      { field: "rows.3.min_amount", code: "invalid", message: "rows.3.min_amount must not exceed the maximum amount." },
      { field: "rows.3.delivery_min_hours", code: "invalid", message: "rows.3.delivery_min_hours must not exceed the maximum hours." },
    ]);
  });

  it("compares minimum and maximum only once each is valid", () => {
    expect(row("corridor", { ...CORRIDOR, minAmount: 900, maxAmount: "lots" }).fields).toEqual(["rows.3.max_amount"]);
  });

  it("required fields are snake_case names, each kept once; user types are checked one by one", () => {
    const { out } = row("corridor", { ...CORRIDOR, requiredFields: ["iban", "iban", "account_name"], userTypes: ["individual", "BUSINESS"] });
    expect(out?.row).toMatchObject({ requiredFields: ["iban", "account_name"], userTypes: ["INDIVIDUAL", "BUSINESS"] });
    const bad = row("corridor", { ...CORRIDOR, requiredFields: ["iban", "AccountName"], userTypes: ["robot"] });
    expect(bad.fields).toEqual(["rows.3.required_fields.1", "rows.3.user_types.0"]);
    expect(row("corridor", { ...CORRIDOR, requiredFields: "iban" }).fields).toEqual(["rows.3.required_fields"]);
  });

  it("a currency is three letters, upper-cased", () => {
    expect(row("corridor", { ...CORRIDOR, receivingCurrency: "php" }).out?.row).toMatchObject({ receivingCurrency: "PHP" });
    expect(row("corridor", { ...CORRIDOR, receivingCurrency: "peso" }).fields).toEqual(["rows.3.receiving_currency"]);
  });

  it("pushes after problems already found, leaving them as they were", () => {
    const errors: Problem[] = [{ field: "rows.2.id", code: "required", message: "earlier" }];
    expect(checkRow("corridor", { ...CORRIDOR, id: "OK" }, (f) => f, errors)).toBeUndefined();
    expect(errors.map((e) => e.field)).toEqual(["rows.2.id", "id"]);
    expect(checkRow("corridor", CORRIDOR, (f) => f, errors)).toBeDefined();
    expect(errors).toHaveLength(2);
  });
});

describe("ROW_KINDS and rowFields: the columns of each kind", () => {
  it("are institutions, branches and corridors", () => {
    expect(ROW_KINDS).toEqual(["institution", "branch", "corridor"]);
  });

  it("an empty row of a kind is refused on that kind's columns only, and a complete one holds each column", () => {
    const complete: Record<RowKind, Record<string, unknown>> = { institution: INSTITUTION, branch: BRANCH, corridor: CORRIDOR };
    for (const kind of ROW_KINDS) {
      const columns = rowFields(kind);
      const { fields } = row(kind, {});
      for (const f of fields) expect(columns.map((c) => `rows.3.${c.replace(/[A-Z]/g, (x) => `_${x.toLowerCase()}`)}`)).toContain(f);
      const out = row(kind, complete[kind]).out;
      expect(Object.keys(out?.row ?? {}).sort(), kind).toEqual([...columns].sort());
    }
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { thrown } from "../../../test/helpers/refusal.js";
import { maskTail } from "../../lib/masking.js";
import { type Address, checkStatusMove, checkUserFields, etagOf, type UserInput, type UserStatusValue } from "./users.rules.js";

/** The fields a refusal of `input` names, as [field, code] pairs. */
const problems = (input: UserInput, creating = false) => {
  const error = thrown(() => checkUserFields(input, { creating }));
  expect(error?.code).toBe("VALIDATION_FAILED");
  return error!.fields!.map((f) => [f.field, f.code]);
};
const update = (input: UserInput) => checkUserFields(input, { creating: false });
const NEW = { firstName: "Ana", lastName: "Cruz", email: "ana.cruz@example.com" };
const ADDRESS: Address = { line1: "1 Raffles Place", city: "Singapore", country: "SG" };

describe("checkUserFields: creating a user", () => {
  it("accepts a first name, a last name and one contact, trimmed", () => {
    expect(checkUserFields({ firstName: "  Ana ", lastName: "Cruz ", email: " ana.cruz@example.com " }, { creating: true })).toEqual(NEW);
    expect(checkUserFields({ firstName: "Ana", lastName: "Cruz", phoneNumber: "+6591234567" }, { creating: true })).toEqual({
      firstName: "Ana",
      lastName: "Cruz",
      phoneNumber: "+6591234567",
    });
  });

  it("needs a first name, a last name, and an email or a phone number, all reported at once", () => {
    const error = thrown(() => checkUserFields({}, { creating: true }));
    expect(error?.code).toBe("VALIDATION_FAILED");
    expect(error?.fields?.map((f) => [f.field, f.code])).toEqual([
      ["firstName", "required"],
      ["lastName", "required"],
      ["email", "required"],
    ]);
    expect(error?.fields?.[2]?.message).toBe("email or phoneNumber is required.");
  });

  it("a phone number alone is contact enough", () => {
    expect(() => checkUserFields({ firstName: "Ana", lastName: "Cruz", phoneNumber: "+6591234567" }, { creating: true })).not.toThrow();
  });

  it("an invalid email still counts as given: it is refused for its format, not as missing", () => {
    expect(problems({ firstName: "Ana", lastName: "Cruz", email: "nope" }, true)).toEqual([["email", "invalid"]]);
  });

  it("a first name sent as null on creation is refused", () => {
    expect(problems({ ...NEW, firstName: null }, true)).toContainEqual(["firstName", "required"]);
  });
});

describe("checkUserFields: updating a user", () => {
  it("checks only what is sent: an empty update is no change", () => {
    expect(update({})).toEqual({});
  });

  it("null clears an optional field", () => {
    expect(update({ middleName: null, taxId: null, billingAddress: null, email: null })).toEqual({
      middleName: null,
      taxId: null,
      billingAddress: null,
      email: null,
    });
  });

  it.each(["firstName", "lastName"] as const)("%s cannot be cleared", (field) => {
    const error = thrown(() => update({ [field]: null }));
    expect(error?.fields).toEqual([{ field, code: "required", message: `${field} is required and cannot be cleared.` }]);
  });

  it("reports every bad field in one refusal, each by its name", () => {
    const error = thrown(() => update({ email: "x", phoneNumber: "123", nationality: "XX", dateOfBirth: "1990-13-01", taxId: "!" }));
    expect(error?.fields?.map((f) => f.field)).toEqual(["email", "phoneNumber", "dateOfBirth", "nationality", "taxId"]);
    expect(error?.message).toBe("5 fields are not valid: email, phoneNumber, dateOfBirth, nationality, taxId.");
  });

  it("passes a status through untouched: the status move rule judges it", () => {
    expect(update({ status: "CLOSED" })).toEqual({ status: "CLOSED" });
  });
});

describe("checkUserFields: each field's rule", () => {
  it.each([
    ["firstName", 100],
    ["middleName", 100],
    ["lastName", 100],
    ["externalId", 128],
  ] as const)("%s is 1 to %i characters after trimming", (field, max) => {
    expect(update({ [field]: "x".repeat(max) })).toEqual({ [field]: "x".repeat(max) });
    expect(problems({ [field]: "x".repeat(max + 1) })).toEqual([[field, "invalid"]]);
    expect(problems({ [field]: "   " })).toEqual([[field, "invalid"]]);
    expect(problems({ [field]: "" })).toEqual([[field, "invalid"]]);
  });

  it("an email must be an address of at most 254 characters", () => {
    expect(update({ email: "Ana.Cruz+kyc@Example.com" })).toEqual({ email: "Ana.Cruz+kyc@Example.com" });
    const long = `${"a".repeat(64)}@${"b".repeat(185)}.com`;
    expect(long.length).toBe(254);
    expect(update({ email: long })).toEqual({ email: long });
    expect(problems({ email: `a${long}` })).toEqual([["email", "invalid"]]);
    for (const email of ["ana", "ana@", "@example.com", "ana cruz@example.com", "ana@example"])
      expect(problems({ email }), email).toEqual([["email", "invalid"]]);
  });

  it("a phone number is stored in E.164 form", () => {
    expect(update({ phoneNumber: "+65 9123 4567" })).toEqual({ phoneNumber: "+6591234567" });
    expect(update({ phoneNumber: "+1 (415) 555-2671" })).toEqual({ phoneNumber: "+14155552671" });
  });

  it.each(["91234567", "0065 9123 4567", "+6512", "+999 1234 5678", "phone", " +6591234567"])(
    "a phone number %j without a leading + or not a real number is refused",
    (phoneNumber) => {
      expect(problems({ phoneNumber })).toEqual([["phoneNumber", "invalid"]]);
    },
  );

  it.each(["nationality", "countryOfResidence"] as const)("%s takes alpha-2 or alpha-3 in any case and stores alpha-2", (field) => {
    expect(update({ [field]: "sgp" })).toEqual({ [field]: "SG" });
    expect(update({ [field]: " ph " })).toEqual({ [field]: "PH" });
    for (const value of ["XX", "Singapore", "S", "SGPX"]) expect(problems({ [field]: value }), value).toEqual([[field, "invalid"]]);
  });

  it("a date of birth is a real past date written YYYY-MM-DD, from 1900 on", () => {
    expect(update({ dateOfBirth: "1990-05-01" })).toEqual({ dateOfBirth: new Date("1990-05-01T00:00:00.000Z") });
    expect(update({ dateOfBirth: "1900-01-01" })).toEqual({ dateOfBirth: new Date("1900-01-01T00:00:00.000Z") });
    for (const dateOfBirth of ["1990-02-30", "01/05/1990", "1990-5-1", "1899-12-31", "2999-01-01"])
      expect(problems({ dateOfBirth }), dateOfBirth).toEqual([["dateOfBirth", "invalid"]]);
  });

  it("says why a date of birth is refused", () => {
    expect(thrown(() => update({ dateOfBirth: "2999-01-01" }))?.message).toBe("dateOfBirth must be in the past.");
    expect(thrown(() => update({ dateOfBirth: "1899-12-31" }))?.message).toBe("dateOfBirth must be after 1900-01-01.");
    expect(thrown(() => update({ dateOfBirth: "1990-02-30" }))?.message).toBe("dateOfBirth must be a real date written YYYY-MM-DD.");
  });

  it("a locale is a BCP 47 tag, stored in its canonical case", () => {
    expect(update({ locale: "EN-sg" })).toEqual({ locale: "en-SG" });
    expect(update({ locale: "zh-hant-tw" })).toEqual({ locale: "zh-Hant-TW" });
    for (const locale of ["en_SG", "x", "english please"]) expect(problems({ locale }), locale).toEqual([["locale", "invalid"]]);
  });

  it("a tax id loses its spaces and dashes and is 4 to 32 letters or digits", () => {
    expect(update({ taxId: "S1234-567 D" })).toEqual({ taxId: "S1234567D" });
    expect(update({ taxId: "abcd" })).toEqual({ taxId: "abcd" });
    expect(update({ taxId: "A".repeat(32) })).toEqual({ taxId: "A".repeat(32) });
    for (const taxId of ["abc", "A".repeat(33), "S123.456", "----"]) expect(problems({ taxId }), taxId).toEqual([["taxId", "invalid"]]);
  });

  it("an address comes out trimmed, with its optional parts null and its country alpha-2", () => {
    expect(update({ residentialAddress: { line1: " 1 Raffles Place ", city: "Singapore ", country: "sgp" } })).toEqual({
      residentialAddress: { line1: "1 Raffles Place", line2: null, city: "Singapore", state: null, postalCode: null, country: "SG" },
    });
    expect(update({ billingAddress: { ...ADDRESS, line2: "#10-01", state: "Central", postalCode: "048616" } })).toEqual({
      billingAddress: { ...ADDRESS, line2: "#10-01", state: "Central", postalCode: "048616" },
    });
  });

  it("each bad part of an address is named by its path", () => {
    const error = thrown(() => update({ residentialAddress: { line1: "", city: "x".repeat(101), postalCode: "1".repeat(21), country: "Narnia" } }));
    expect(error?.fields?.map((f) => f.field)).toEqual([
      "residentialAddress.line1",
      "residentialAddress.city",
      "residentialAddress.postalCode",
      "residentialAddress.country",
    ]);
  });

  it("an address missing its required parts is refused, not stored half", () => {
    expect(problems({ billingAddress: {} as Address }).map(([f]) => f)).toEqual(["billingAddress.line1", "billingAddress.city", "billingAddress.country"]);
  });
});

describe("checkStatusMove: who may move a user's status where", () => {
  const STATUSES: UserStatusValue[] = ["PENDING", "IN_REVIEW", "ACTIVE", "REJECTED", "SUSPENDED", "CLOSED"];
  /** What verification and risk move (byCaller false). */
  const BY_SYSTEM = new Set([
    "PENDING→IN_REVIEW",
    "PENDING→CLOSED",
    "IN_REVIEW→ACTIVE",
    "IN_REVIEW→REJECTED",
    "IN_REVIEW→CLOSED",
    "ACTIVE→SUSPENDED",
    "ACTIVE→CLOSED",
    "SUSPENDED→ACTIVE",
    "SUSPENDED→CLOSED",
    "REJECTED→CLOSED",
  ]);
  /** A person (an operator's result) may also undo a rejection. */
  const BY_PERSON = new Set([...BY_SYSTEM, "REJECTED→ACTIVE"]);
  /** A caller may only close a user. */
  const BY_CALLER = new Set(STATUSES.filter((s) => s !== "CLOSED").map((s) => `${s}→CLOSED`));
  const pairs = STATUSES.flatMap((from) => STATUSES.filter((to) => to !== from).map((to) => ({ from, to })));
  const modes = [
    { who: "verification", options: { byCaller: false }, allowed: BY_SYSTEM },
    { who: "a person", options: { byCaller: false, byPerson: true }, allowed: BY_PERSON },
    { who: "a caller", options: { byCaller: true }, allowed: BY_CALLER },
  ];

  for (const { who, options, allowed } of modes) {
    describe(`moved by ${who}`, () => {
      const split = (keep: boolean) => pairs.filter(({ from, to }) => allowed.has(`${from}→${to}`) === keep).map(({ from, to }) => [from, to] as const);
      it.each(split(true))(`a %s user can be moved to %s by ${who}`, (from, to) => {
        expect(thrown(() => checkStatusMove(from, to, options))).toBeUndefined();
      });
      it.each(split(false))(`a %s user cannot be moved to %s by ${who}`, (from, to) => {
        expect(thrown(() => checkStatusMove(from, to, options))).toMatchObject({ code: "INVALID_STATE_TRANSITION" });
      });
    });
  }

  it("staying where it is, is no move, for anyone", () => {
    for (const status of STATUSES) for (const { options } of modes) expect(thrown(() => checkStatusMove(status, status, options))).toBeUndefined();
  });

  it("a caller who tries another status is told that only CLOSED is theirs to set", () => {
    expect(thrown(() => checkStatusMove("SUSPENDED", "ACTIVE", { byCaller: true }))?.message).toBe(
      "status can only be set to CLOSED by a caller; ACTIVE follows from verification.",
    );
  });

  it("a caller cannot undo a rejection even when the request also counts as a person's", () => {
    expect(thrown(() => checkStatusMove("REJECTED", "ACTIVE", { byCaller: true, byPerson: true }))).toMatchObject({ code: "INVALID_STATE_TRANSITION" });
  });

  it("a refused move names both statuses, with the right article", () => {
    expect(thrown(() => checkStatusMove("IN_REVIEW", "SUSPENDED", { byCaller: false }))?.message).toBe("An IN_REVIEW user cannot move to SUSPENDED.");
    expect(thrown(() => checkStatusMove("PENDING", "ACTIVE", { byCaller: false }))?.message).toBe("A PENDING user cannot move to ACTIVE.");
  });

  it("a CLOSED user stays closed whoever asks", () => {
    for (const to of STATUSES.filter((s) => s !== "CLOSED"))
      for (const { options } of modes) expect(thrown(() => checkStatusMove("CLOSED", to, options))?.code).toBe("INVALID_STATE_TRANSITION");
  });
});

describe("maskTail: what callers see of a tax id or document number", () => {
  it("stars everything but the last four characters", () => {
    expect(maskTail("567D")).toBe("****567D");
  });

  it("shows nothing when nothing is stored", () => {
    expect(maskTail(null)).toBeNull();
    expect(maskTail("")).toBeNull();
  });
});

describe("etagOf: the version a caller read, for If-Match", () => {
  const id = "0b6f1c2e-7d4a-4f3b-9e1a-2c5d8f7a9b10";

  it("is a strong, quoted ETag of the id's first eight characters and the version", () => {
    expect(etagOf({ id, version: 3 })).toBe('"0b6f1c2e-3"');
  });

  it("changes with every version of the same user (property)", () => {
    fc.assert(
      fc.property(fc.nat(), fc.nat(), (a, b) => {
        fc.pre(a !== b);
        expect(etagOf({ id, version: a })).not.toBe(etagOf({ id, version: b }));
      }),
    );
  });
});

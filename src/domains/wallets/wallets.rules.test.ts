import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type CardStatusValue, checkCardMove, checkCurrencyCode, checkIssuedCard } from "./wallets.rules.js";

/** The error `run` throws (undefined when it throws none), so its code and fields can be compared. */
const thrown = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error as Error & { code?: string; fields?: unknown[] };
  }
  return undefined;
};

describe("checkCurrencyCode: a currency is written as an ISO 4217 alpha-3 code", () => {
  it("takes any case and surrounding spaces and gives the code in upper case", () => {
    expect(checkCurrencyCode("sgd")).toBe("SGD");
    expect(checkCurrencyCode("  Usd ")).toBe("USD");
    expect(checkCurrencyCode("EUR")).toBe("EUR");
  });

  it("turns any three ASCII letters into their upper-case code (property)", () => {
    const letters = fc.string({ unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"), minLength: 3, maxLength: 3 });
    fc.assert(
      fc.property(letters, (code) => {
        expect(checkCurrencyCode(code)).toBe(code.toUpperCase());
      }),
    );
  });

  it.each(["", "US", "USDT", "U5D", "us d", "€€€", "123", "S G D"])("refuses %j, naming the currency field", (raw) => {
    expect(thrown(() => checkCurrencyCode(raw))).toMatchObject({
      code: "VALIDATION_FAILED",
      fields: [{ field: "currency", code: "invalid_format" }],
    });
  });
});

describe("checkCardMove: a card is REQUESTED, then ACTIVE (the provider), and CANCELLED is final", () => {
  const STATUSES: CardStatusValue[] = ["REQUESTED", "ACTIVE", "CANCELLED"];
  const ALLOWED = new Set(["REQUESTED→ACTIVE", "REQUESTED→CANCELLED", "ACTIVE→CANCELLED"]);
  const table = STATUSES.flatMap((from) => STATUSES.map((to) => [from, to] as const));

  it.each(table.filter(([from, to]) => ALLOWED.has(`${from}→${to}`)))("a %s card can become %s", (from, to) => {
    expect(thrown(() => checkCardMove(from, to))).toBeUndefined();
  });

  it.each(table.filter(([from, to]) => !ALLOWED.has(`${from}→${to}`)))("a %s card cannot become %s", (from, to) => {
    expect(thrown(() => checkCardMove(from, to))).toMatchObject({ code: "INVALID_STATE_TRANSITION" });
  });

  it("says which card move was refused, in plain English", () => {
    expect(thrown(() => checkCardMove("ACTIVE", "REQUESTED"))?.message).toBe("An ACTIVE card cannot become REQUESTED.");
    expect(thrown(() => checkCardMove("CANCELLED", "ACTIVE"))?.message).toBe("A CANCELLED card cannot become ACTIVE.");
  });
});

describe("checkIssuedCard: a provider reports only the last four digits and the expiry month", () => {
  it("passes a well-formed report through unchanged", () => {
    const card = { last4: "0042", expiry: "2029-12" };
    expect(checkIssuedCard(card)).toBe(card);
    expect(checkIssuedCard({ last4: "9999", expiry: "2030-01" })).toEqual({ last4: "9999", expiry: "2030-01" });
  });

  it.each([
    { last4: "123", expiry: "2029-12" },
    { last4: "12345", expiry: "2029-12" },
    { last4: "4111111111111111", expiry: "2029-12" },
    { last4: "12a4", expiry: "2029-12" },
    { last4: "1234", expiry: "2029-13" },
    { last4: "1234", expiry: "2029-00" },
    { last4: "1234", expiry: "2029-1" },
    { last4: "1234", expiry: "29-12" },
    { last4: "1234", expiry: "2029/12" },
    { last4: "1234", expiry: "2029-12-31" },
  ])("refuses a malformed report %j", (card) => {
    expect(thrown(() => checkIssuedCard(card))).toBeInstanceOf(Error);
  });

  it("a malformed report is the provider's fault, not the caller's: a plain Error (masked as INTERNAL), not a DomainError", () => {
    const error = thrown(() => checkIssuedCard({ last4: "1", expiry: "x" }));
    expect(error?.name).toBe("Error");
    expect(error?.code).toBeUndefined();
  });

  it("accepts every month 01 to 12 (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1000, max: 9999 }), (digits, month, year) => {
        const card = { last4: String(digits).padStart(4, "0"), expiry: `${year}-${String(month).padStart(2, "0")}` };
        expect(checkIssuedCard(card)).toEqual(card);
      }),
    );
  });
});

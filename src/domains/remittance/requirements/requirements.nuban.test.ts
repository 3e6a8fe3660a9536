/** The CBN NUBAN check digit (requirements.nuban.ts) on the standard's worked example and the code lengths banks-ng uses. */
import { describe, expect, it } from "vitest";
import { isValidNuban, nubanCheckDigit } from "./requirements.nuban.js";

describe("NUBAN", () => {
  it("gives the CBN's worked example: bank 011, serial 000001457 → 0000014579", () => {
    expect(nubanCheckDigit("011", "000001457")).toBe(9);
    expect(isValidNuban("0000014579", "011")).toBe(true);
  });

  it("weights a 3-digit bank code as 000 + code, a 5-digit one as 9 + code, a 6-digit one as is", () => {
    // 15 digits weighted 3,7,3 repeating; check digit = (10 − sum mod 10) mod 10
    const byHand = (code6: string, serial: string) => {
      const sum = [...(code6 + serial)].reduce((s, d, i) => s + Number(d) * [3, 7, 3][i % 3], 0);
      return (10 - (sum % 10)) % 10;
    };
    expect(nubanCheckDigit("058", "012345678")).toBe(byHand("000058", "012345678"));
    expect(nubanCheckDigit("50515", "512345678")).toBe(byHand("950515", "512345678"));
    expect(nubanCheckDigit("999992", "812345678")).toBe(byHand("999992", "812345678"));
    // banks-ng's "00103" is Globus Bank's CBN code 103
    expect(nubanCheckDigit("00103", "100000001")).toBe(byHand("000103", "100000001"));
  });

  it("refuses malformed input instead of guessing", () => {
    expect(nubanCheckDigit("58", "012345678")).toBeUndefined();
    expect(nubanCheckDigit("058", "01234567")).toBeUndefined();
    expect(nubanCheckDigit("05A", "012345678")).toBeUndefined();
    expect(isValidNuban("012345678", "058")).toBe(false);
    expect(isValidNuban("0123456785", "058")).toBe(true);
    expect(isValidNuban("0123456786", "058")).toBe(false);
  });
});

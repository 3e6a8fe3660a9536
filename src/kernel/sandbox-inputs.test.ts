import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isMagic, SANDBOX_INPUTS } from "./sandbox-inputs.js";

const TEXT_MAGIC = [
  SANDBOX_INPUTS.rejectLastName,
  SANDBOX_INPUTS.reviewLastName,
  SANDBOX_INPUTS.alertAddressLine,
  SANDBOX_INPUTS.invalidDocumentNumber,
  SANDBOX_INPUTS.failingWebhookPath,
];

describe("isMagic: a sandbox value is recognised however an integrator typed it", () => {
  it.each(TEXT_MAGIC)("%s is recognised as written", (magic) => {
    expect(isMagic(magic, magic)).toBe(true);
  });

  it("ignores case and surrounding spaces", () => {
    expect(isMagic("  sandboxreject ", SANDBOX_INPUTS.rejectLastName)).toBe(true);
    expect(isMagic("SANDBOXREVIEW", SANDBOX_INPUTS.reviewLastName)).toBe(true);
    expect(isMagic("\tsandboxInvalid\n", SANDBOX_INPUTS.invalidDocumentNumber)).toBe(true);
  });

  it("keeps holding under any re-casing and padding of the magic value (property)", () => {
    const space = fc.constantFrom(" ", "\t", "\n", "\u00a0");
    fc.assert(
      fc.property(fc.constantFrom(...TEXT_MAGIC), fc.array(fc.boolean()), fc.array(space), fc.array(space), (magic, upper, before, after) => {
        const recased = [...magic].map((c, i) => (upper[i] ? c.toUpperCase() : c.toLowerCase())).join("");
        expect(isMagic(`${before.join("")}${recased}${after.join("")}`, magic)).toBe(true);
      }),
    );
  });

  it("never matches a missing or empty value: a user without a last name is not a sandbox trigger", () => {
    for (const magic of TEXT_MAGIC) {
      expect(isMagic(null, magic)).toBe(false);
      expect(isMagic(undefined, magic)).toBe(false);
      expect(isMagic("", magic)).toBe(false);
      expect(isMagic("   ", magic)).toBe(false);
    }
  });

  it("is the whole value, not a part of it: a real name containing the word triggers nothing", () => {
    expect(isMagic("SandboxRejected", SANDBOX_INPUTS.rejectLastName)).toBe(false);
    expect(isMagic("Mr SandboxReject", SANDBOX_INPUTS.rejectLastName)).toBe(false);
    expect(isMagic("Sandbox Reject", SANDBOX_INPUTS.rejectLastName)).toBe(false);
    expect(isMagic("SandboxRejec", SANDBOX_INPUTS.rejectLastName)).toBe(false);
  });

  it("adding any visible character to a magic value makes it an ordinary value (property)", () => {
    const visible = fc.string({ minLength: 1, maxLength: 5 }).filter((s) => s.trim().length > 0);
    fc.assert(
      fc.property(fc.constantFrom(...TEXT_MAGIC), visible, fc.boolean(), (magic, extra, atEnd) => {
        expect(isMagic(atEnd ? `${magic}${extra}` : `${extra}${magic}`, magic)).toBe(false);
      }),
    );
  });

  it("one magic value does not stand for another", () => {
    expect(isMagic(SANDBOX_INPUTS.rejectLastName, SANDBOX_INPUTS.reviewLastName)).toBe(false);
    expect(isMagic(SANDBOX_INPUTS.reviewLastName, SANDBOX_INPUTS.rejectLastName)).toBe(false);
  });
});

describe("SANDBOX_INPUTS: values an integrator can actually send", () => {
  it("the magic last names differ from each other whatever the case, so each reaches one outcome", () => {
    const names = [SANDBOX_INPUTS.rejectLastName, SANDBOX_INPUTS.reviewLastName].map((n) => n.toLowerCase());
    expect(new Set(names).size).toBe(names.length);
  });

  it("the stand-in OTP code has the shape of a real code (six digits)", () => {
    expect(SANDBOX_INPUTS.anyOtpCode).toMatch(/^\d{6}$/);
  });

  it("the undeliverable destinations are an E.164 number and an email address", () => {
    expect(SANDBOX_INPUTS.undeliverable.SMS).toMatch(/^\+[1-9]\d{6,14}$/);
    expect(SANDBOX_INPUTS.undeliverable.EMAIL).toMatch(/^[^@\s]+@[^@\s]+\.[a-z]+$/);
  });

  it("the failing webhook path is a path ending, so it can end any endpoint URL", () => {
    expect(SANDBOX_INPUTS.failingWebhookPath).toMatch(/^\/[a-z0-9-]+$/);
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { thrown, rejection } from "../../../test/helpers/refusal.js";
import { DOCUMENT_TYPES } from "../../kernel/document-types.js";
import {
  type CheckedFields,
  checkDocumentFields,
  checkFile,
  type DocumentFields,
  documentStatus,
  lastFour,
  MAX_DOCUMENT_BYTES,
  MAX_FILE_BYTES_PER_REQUEST,
  MAX_UPLOAD_BODY_BYTES,
} from "./documents.rules.js";

const problems = (input: DocumentFields, current: CheckedFields | null = null) => {
  const error = thrown(() => checkDocumentFields(input, current));
  expect(error?.code).toBe("VALIDATION_FAILED");
  return error!.fields!.map((f) => [f.field, f.code]);
};
const day = (date: string) => new Date(`${date}T00:00:00.000Z`);

const IDENTITY = ["PASSPORT", "NATIONAL_ID", "DRIVING_LICENSE", "RESIDENCE_PERMIT"] as const;
const PASSPORT = { documentType: "PASSPORT", documentNumber: "E1234567", issuingCountry: "SG" } as const;

/** The first bytes of each accepted kind of file: enough for the content to be recognised. */
const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489", "hex");
const PDF = Buffer.from("%PDF-1.4\n%\u00e2\u00e3\u00cf\u00d3\n1 0 obj\n<<>>\nendobj\n", "latin1");
const JPEG = Buffer.from("ffd8ffe000104a46494600010100000100010000ffdb", "hex");
const b64 = (bytes: Buffer) => bytes.toString("base64");

describe("checkDocumentFields: creating a document", () => {
  it("an identity document needs its type, number and issuing country, normalised", () => {
    expect(checkDocumentFields({ documentType: "PASSPORT", documentNumber: "  E1234567 ", issuingCountry: "sgp" }, null)).toEqual(PASSPORT);
  });

  it("needs a document type", () => {
    expect(problems({ documentNumber: "E1234567" })).toEqual([["documentType", "required"]]);
  });

  it.each(IDENTITY)("a %s needs a number and an issuing country", (documentType) => {
    const error = thrown(() => checkDocumentFields({ documentType }, null));
    expect(error?.fields).toEqual([
      { field: "documentNumber", code: "required", message: `documentNumber is required for a ${documentType}.` },
      { field: "issuingCountry", code: "required", message: `issuingCountry is required for a ${documentType}.` },
    ]);
  });

  it.each(DOCUMENT_TYPES.filter((t) => !(IDENTITY as readonly string[]).includes(t)))("a %s needs neither number nor country", (documentType) => {
    expect(checkDocumentFields({ documentType }, null)).toEqual({ documentType });
  });

  it("keeps only the fields written", () => {
    expect(checkDocumentFields({ documentType: "SELFIE", issueDate: "2025-01-02" }, null)).toEqual({ documentType: "SELFIE", issueDate: day("2025-01-02") });
  });
});

describe("checkDocumentFields: each field's rule", () => {
  it("a document number is 1 to 64 letters or digits, with spaces, '-', '/' and '.' allowed inside", () => {
    for (const documentNumber of ["A", "7", "E1234567", "AB 12-34/5.6", "x".repeat(64)])
      expect(checkDocumentFields({ ...PASSPORT, documentNumber }, null).documentNumber, documentNumber).toBe(documentNumber);
    for (const documentNumber of ["", "   ", "-123", "123-", "12_34", "x".repeat(65), "N°123", "12\n34"])
      expect(problems({ ...PASSPORT, documentNumber }), JSON.stringify(documentNumber)).toEqual([["documentNumber", "invalid"]]);
  });

  it("a refused document number is never repeated in the message: it is personal data", () => {
    const error = thrown(() => checkDocumentFields({ ...PASSPORT, documentNumber: "SECRET-99-" }, null));
    expect(error?.message).not.toContain("SECRET");
    expect(JSON.stringify(error?.fields)).not.toContain("SECRET");
  });

  it("an issuing country is alpha-2 or alpha-3, stored alpha-2", () => {
    expect(checkDocumentFields({ ...PASSPORT, issuingCountry: "phl" }, null).issuingCountry).toBe("PH");
    for (const issuingCountry of ["XX", "Philippines", ""])
      expect(problems({ ...PASSPORT, issuingCountry }), issuingCountry).toEqual([["issuingCountry", "invalid"]]);
  });

  it("dates are real dates written YYYY-MM-DD", () => {
    expect(checkDocumentFields({ ...PASSPORT, issueDate: "2020-02-29", expiryDate: "2030-02-28" }, null)).toMatchObject({
      issueDate: day("2020-02-29"),
      expiryDate: day("2030-02-28"),
    });
    expect(problems({ ...PASSPORT, issueDate: "2021-02-29", expiryDate: "28/02/2030" })).toEqual([
      ["issueDate", "invalid"],
      ["expiryDate", "invalid"],
    ]);
  });

  it("an issue date cannot be in the future", () => {
    expect(problems({ ...PASSPORT, issueDate: "2999-01-01" })).toEqual([["issueDate", "invalid"]]);
  });

  it("an expiry date must be after the issue date, not on it", () => {
    expect(problems({ ...PASSPORT, issueDate: "2020-01-01", expiryDate: "2020-01-01" })).toEqual([["expiryDate", "invalid"]]);
    expect(problems({ ...PASSPORT, issueDate: "2020-01-01", expiryDate: "2019-12-31" })).toEqual([["expiryDate", "invalid"]]);
    expect(checkDocumentFields({ ...PASSPORT, issueDate: "2020-01-01", expiryDate: "2020-01-02" }, null).expiryDate).toEqual(day("2020-01-02"));
  });

  it("an expired document may still be recorded: an expiry in the past is no refusal", () => {
    expect(checkDocumentFields({ ...PASSPORT, expiryDate: "2001-01-01" }, null).expiryDate).toEqual(day("2001-01-01"));
  });

  it("reports malformed fields all at once, before judging how they combine", () => {
    expect(problems({ documentType: "PASSPORT", documentNumber: "-", issuingCountry: "XX", issueDate: "x", expiryDate: "y" })).toEqual([
      ["documentNumber", "invalid"],
      ["issuingCountry", "invalid"],
      ["issueDate", "invalid"],
      ["expiryDate", "invalid"],
    ]);
  });
});

describe("checkDocumentFields: updating a document judges it as it will be", () => {
  const stored: CheckedFields = { ...PASSPORT, issueDate: day("2020-01-01"), expiryDate: day("2030-01-01") };

  it("an update returns only what it writes", () => {
    expect(checkDocumentFields({ documentNumber: "K7654321" }, stored)).toEqual({ documentNumber: "K7654321" });
    expect(checkDocumentFields({}, stored)).toEqual({});
  });

  it("the document type cannot be cleared", () => {
    expect(problems({ documentType: null }, stored)).toEqual([["documentType", "required"]]);
  });

  it("an identity document's number and country cannot be cleared", () => {
    expect(problems({ documentNumber: null, issuingCountry: null }, stored)).toEqual([
      ["documentNumber", "required"],
      ["issuingCountry", "required"],
    ]);
  });

  it("a document that stops being an identity document may lose its number", () => {
    expect(checkDocumentFields({ documentType: "OTHER", documentNumber: null }, stored)).toEqual({ documentType: "OTHER", documentNumber: null });
  });

  it("becoming an identity document needs what one needs", () => {
    expect(problems({ documentType: "NATIONAL_ID" }, { documentType: "OTHER", documentNumber: null, issuingCountry: null })).toEqual([
      ["documentNumber", "required"],
      ["issuingCountry", "required"],
    ]);
  });

  it("a new expiry date is compared with the stored issue date, and a new issue date with the stored expiry", () => {
    expect(problems({ expiryDate: "2019-06-01" }, stored)).toEqual([["expiryDate", "invalid"]]);
    expect(problems({ issueDate: "2030-06-01" }, stored).map(([f]) => f)).toContain("expiryDate");
    expect(checkDocumentFields({ issueDate: null, expiryDate: "2019-06-01" }, stored)).toEqual({ issueDate: null, expiryDate: day("2019-06-01") });
  });
});

describe("checkFile: the file is judged by its bytes", () => {
  it.each([
    ["a PNG", PNG, "image/png", "document.png"],
    ["a PDF", PDF, "application/pdf", "document.pdf"],
    ["a JPEG", JPEG, "image/jpeg", "document.jpg"],
  ])("accepts %s sent as base64, named by its type when it has no name", async (_, bytes, mimeType, fileName) => {
    expect(await checkFile({ contentBase64: b64(bytes) })).toEqual({ fileName, mimeType, bytes });
  });

  it("accepts a multipart upload, taking its name", async () => {
    const upload = new File([PDF], "passport scan.pdf", { type: "application/pdf" });
    expect(await checkFile({ upload })).toEqual({ fileName: "passport scan.pdf", mimeType: "application/pdf", bytes: PDF });
  });

  it("a given file name wins over the upload's", async () => {
    const upload = new File([PNG], "IMG_0001.png", { type: "image/png" });
    expect((await checkFile({ upload, fileName: " selfie.png " })).fileName).toBe("selfie.png");
  });

  it("takes the file one way only, base64 or multipart", async () => {
    const none = await rejection(checkFile({}));
    expect(none).toMatchObject({ code: "VALIDATION_FAILED", fields: [{ field: "file", code: "required" }] });
    const both = await rejection(checkFile({ contentBase64: b64(PNG), upload: new File([PNG], "a.png") }));
    expect(both).toMatchObject({ code: "VALIDATION_FAILED", fields: [{ field: "file", code: "required" }] });
  });

  it("forgives whitespace in base64 (line-wrapped encoders) but not other characters", async () => {
    const wrapped = b64(PDF).replace(/(.{8})/g, "$1\n");
    expect((await checkFile({ contentBase64: wrapped })).bytes).toEqual(PDF);
    for (const contentBase64 of [`${b64(PDF)}!`, b64(PDF).replace(/=+$/, ""), "JVBERi0x-_"])
      expect(await rejection(checkFile({ contentBase64 })), contentBase64).toMatchObject({
        code: "VALIDATION_FAILED",
        fields: [{ field: "file.contentBase64", code: "invalid" }],
      });
  });

  it("refuses an empty file", async () => {
    expect(await rejection(checkFile({ contentBase64: "" }))).toMatchObject({ fields: [{ field: "file", code: "empty" }] });
    expect(await rejection(checkFile({ upload: new File([], "empty.pdf") }))).toMatchObject({ fields: [{ field: "file", code: "empty" }] });
  });

  it("refuses content that is not a PDF, JPEG or PNG, whatever it claims", async () => {
    const text = Buffer.from("just some text, not a scan");
    expect(await rejection(checkFile({ contentBase64: b64(text), mimeType: "application/pdf" }))).toMatchObject({ code: "UNSUPPORTED_MEDIA_TYPE" });
    const gif = Buffer.from("GIF89a\u0001\u0000\u0001\u0000\u0000\u0000\u0000;", "latin1");
    expect(await rejection(checkFile({ contentBase64: b64(gif) }))).toMatchObject({ code: "UNSUPPORTED_MEDIA_TYPE" });
  });

  it("refuses a declared type the content contradicts", async () => {
    const error = await rejection(checkFile({ contentBase64: b64(PNG), mimeType: "application/pdf" }));
    expect(error).toMatchObject({ code: "UNSUPPORTED_MEDIA_TYPE" });
    expect(error?.message).toBe("The file's content is image/png, not application/pdf as declared; send the right mime_type or leave it out.");
    const upload = new File([PDF], "x.png", { type: "image/png" });
    expect(await rejection(checkFile({ upload }))).toMatchObject({ code: "UNSUPPORTED_MEDIA_TYPE" });
  });

  it("takes a declared type in any case, with parameters, image/jpg for image/jpeg, and octet-stream as no claim", async () => {
    expect((await checkFile({ contentBase64: b64(PDF), mimeType: "Application/PDF; charset=binary" })).mimeType).toBe("application/pdf");
    expect((await checkFile({ contentBase64: b64(JPEG), mimeType: "image/jpg" })).mimeType).toBe("image/jpeg");
    expect((await checkFile({ contentBase64: b64(PNG), mimeType: "application/octet-stream" })).mimeType).toBe("image/png");
  });

  it("keeps a file name's base only, without control characters or quotes, at most 255 characters", async () => {
    const named = async (fileName: string) => (await checkFile({ contentBase64: b64(PDF), fileName })).fileName;
    expect(await named("C:\\Users\\ana\\passport.pdf")).toBe("passport.pdf");
    expect(await named("../../etc/passwd")).toBe("passwd");
    expect(await named('scan"\u0000\u001f\u007f.pdf')).toBe("scan.pdf");
    expect(await named(`${"n".repeat(300)}.pdf`)).toHaveLength(255);
    expect(await named("folder/")).toBe("document.pdf");
    expect(await named("   ")).toBe("document.pdf");
  });

  it("accepts a file of exactly 10 MiB and refuses one byte more", async () => {
    const largest = Buffer.alloc(MAX_DOCUMENT_BYTES);
    PNG.copy(largest);
    expect((await checkFile({ contentBase64: b64(largest) })).bytes.length).toBe(MAX_DOCUMENT_BYTES);
    const over = Buffer.alloc(MAX_DOCUMENT_BYTES + 1);
    PNG.copy(over);
    expect(await rejection(checkFile({ contentBase64: b64(over) }))).toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
    expect(await rejection(checkFile({ upload: new File([over], "big.png") }))).toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
  });

  it("refuses base64 that is far too large before decoding it, even if malformed", async () => {
    const huge = `${"A".repeat(MAX_DOCUMENT_BYTES * 2)}!`;
    expect(await rejection(checkFile({ contentBase64: huge }))).toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
  });
});

describe("the size bounds agree with each other", () => {
  it("a REST body can carry the largest file in base64, and a request can read two of them", () => {
    expect(4 * Math.ceil(MAX_DOCUMENT_BYTES / 3)).toBeLessThan(MAX_UPLOAD_BODY_BYTES);
    expect(MAX_FILE_BYTES_PER_REQUEST).toBe(2 * MAX_DOCUMENT_BYTES);
    expect(MAX_DOCUMENT_BYTES).toBe(10 * 1024 * 1024);
  });
});

describe("documentStatus: the status a document shows today", () => {
  const today = new Date("2026-06-01T15:00:00.000Z");

  it("an ACTIVE document is valid through its expiry date and EXPIRED from the next day (UTC)", () => {
    expect(documentStatus({ status: "ACTIVE", expiryDate: day("2026-06-01") }, today)).toBe("ACTIVE");
    expect(documentStatus({ status: "ACTIVE", expiryDate: day("2026-05-31") }, today)).toBe("EXPIRED");
    expect(documentStatus({ status: "ACTIVE", expiryDate: day("2026-06-01") }, new Date("2026-06-02T00:00:00.000Z"))).toBe("EXPIRED");
  });

  it("a document without an expiry date does not expire", () => {
    expect(documentStatus({ status: "ACTIVE", expiryDate: null }, new Date("2999-01-01T00:00:00.000Z"))).toBe("ACTIVE");
  });

  it.each(["DELETED", "INVALID", "EXPIRED"] as const)("a stored %s stays so, whatever its expiry", (status) => {
    expect(documentStatus({ status, expiryDate: day("2999-01-01") }, today)).toBe(status);
    expect(documentStatus({ status, expiryDate: null }, today)).toBe(status);
  });

  it("an ACTIVE document expires exactly when today passes its expiry date (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: -1000, max: 1000 }), fc.integer({ min: 0, max: 86_399_999 }), (days, msOfDay) => {
        const expiry = new Date(day("2026-06-01").getTime() + days * 86_400_000);
        const now = new Date(day("2026-06-01").getTime() + msOfDay);
        expect(documentStatus({ status: "ACTIVE", expiryDate: expiry }, now)).toBe(days < 0 ? "EXPIRED" : "ACTIVE");
      }),
    );
  });
});

describe("lastFour: all that is ever shown of a document number", () => {
  it("is the last four letters or digits, separators left out", () => {
    expect(lastFour("E1234567")).toBe("4567");
    expect(lastFour("AB 12-3/4.5")).toBe("2345");
    expect(lastFour("A1")).toBe("A1");
  });

  it("never holds more than four characters, all letters or digits (property)", () => {
    fc.assert(
      fc.property(fc.string(), (documentNumber) => {
        expect(lastFour(documentNumber)).toMatch(/^[A-Za-z0-9]{0,4}$/);
      }),
    );
  });
});

import type { GraphQLResolveInfo } from "graphql";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../config.js";
import { releaseRequestCaches } from "../context.js";
import { MAX_DOCUMENT_BYTES } from "../domains/documents/documents.rules.js";
import { createBytePool, spendFileBytes, type WorkLimits } from "./work-budget.js";

const during = (operation: "query" | "mutation" | "subscription") => ({ operation: { operation } }) as GraphQLResolveInfo;
const request = (workLimits: WorkLimits) => ({ workLimits, workSpent: { rows: 0, fileBytes: 0 } });
const codeOf = (fn: () => void) => {
  try {
    fn();
    return null;
  } catch (error) {
    return [(error as { code?: string }).code, (error as { meta?: unknown }).meta];
  }
};

describe("the file bytes requests are reading", () => {
  it("MAX_FILE_BYTES_IN_FLIGHT is two of the largest files unless set, and never below one", () => {
    expect(loadConfig({}).maxFileBytesInFlight).toBe(2 * MAX_DOCUMENT_BYTES);
    expect(loadConfig({ MAX_FILE_BYTES_IN_FLIGHT: String(MAX_DOCUMENT_BYTES) }).maxFileBytesInFlight).toBe(MAX_DOCUMENT_BYTES);
    expect(() => loadConfig({ MAX_FILE_BYTES_IN_FLIGHT: String(MAX_DOCUMENT_BYTES - 1) })).toThrow(ConfigError);
  });

  it("are bounded per request and for the process together, and given back when an execution ends", () => {
    const limits: WorkLimits = { rows: 10, fileBytes: 100, fileBytesInFlight: createBytePool(150) };
    const [a, b] = [request(limits), request(limits)];
    expect(codeOf(() => spendFileBytes(a, during("query"), 100))).toBeNull();
    // the process holds 100 of 150: b's 60 must wait, and is told when to come back
    expect(codeOf(() => spendFileBytes(b, during("query"), 60))).toEqual(["UNAVAILABLE", { retryAfter: 1 }]);
    releaseRequestCaches(a);
    releaseRequestCaches(a); // a second release gives nothing back twice
    expect(codeOf(() => spendFileBytes(b, during("mutation"), 60))).toBeNull();
    expect(codeOf(() => spendFileBytes(request(limits), during("query"), 90))).toBeNull();
    expect(codeOf(() => spendFileBytes(request(limits), during("query"), 1))).toEqual(["UNAVAILABLE", { retryAfter: 1 }]);
    // one request's own share: 60 + 50 is over its 100
    expect(codeOf(() => spendFileBytes(b, during("query"), 50))).toEqual(["RESULT_TOO_LARGE", { limit: 100 }]);
    // a subscription's events are not counted: its context lives as long as it does
    expect(codeOf(() => spendFileBytes(request(limits), during("subscription"), 1000))).toBeNull();
  });
});

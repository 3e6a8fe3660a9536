import { describe, expect, it } from "vitest";
import { DomainError } from "./errors.js";
import { found, foundOr404 } from "./found.js";

const ID = "7b0c8f8e-2a4d-4c55-9a57-0f1e2d3c4b5a";

describe("foundOr404", () => {
  it("returns the row the lookup finds, having passed it the id", async () => {
    const asked: string[] = [];
    expect(
      await foundOr404("wallet", ID, async (id) => {
        asked.push(id);
        return { id };
      }),
    ).toEqual({ id: ID });
    expect(asked).toEqual([ID]);
  });

  it("is NOT_FOUND with the usual text when the lookup finds nothing", async () => {
    const error = await foundOr404("wallet", ID, async () => null).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ code: "NOT_FOUND", message: "No wallet with that id exists." });
  });

  it("is NOT_FOUND without a lookup when the id is not a UUID", async () => {
    let calls = 0;
    await expect(
      foundOr404("webhook endpoint", "1 or 1=1", async () => {
        calls += 1;
        return {};
      }),
    ).rejects.toMatchObject({ code: "NOT_FOUND", message: "No webhook endpoint with that id exists." });
    expect(calls).toBe(0);
  });
});

describe("found", () => {
  it("passes a row through and turns null into NOT_FOUND", async () => {
    expect(await Promise.resolve({ id: "ph-bdo" }).then(found("corridor"))).toEqual({ id: "ph-bdo" });
    await expect(Promise.resolve(null).then(found("corridor"))).rejects.toMatchObject({ code: "NOT_FOUND", message: "No corridor with that id exists." });
  });
});

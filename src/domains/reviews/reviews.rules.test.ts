import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type CompletedRun,
  decidedStatus,
  decisionErrors,
  hitLevel,
  hitsOf,
  NOT_CLOSED,
  needsReview,
  needsSecondReviewer,
  noteErrors,
  REVIEW_REASON_CODES,
  reviewRiskOf,
  samePerson,
  UNDECIDED,
} from "./reviews.rules.js";

type Outcome = "CLEAR" | "REJECT" | "ESCALATE";
type Status = CompletedRun["status"];

const screening = (matches: unknown, status: Status = "CONSIDER"): CompletedRun => ({
  id: "run-1",
  clientId: "client-1",
  userId: "user-1",
  type: "SANCTIONS_SCREENING",
  status,
  trigger: "VERIFICATION",
  decidedBy: "SYSTEM",
  result: { matches },
});
const runOf = (type: CompletedRun["type"], status: Status, extra: Partial<CompletedRun> = {}): CompletedRun => ({
  ...screening([]),
  type,
  status,
  result: {},
  ...extra,
});
const MATCH = { list: "OFAC-SDN", listVersion: "2024-05-03", entryId: "SDN-1", entryHash: "e", subjectHash: "s", score: 0.91 };

/** A configured reason code given with `outcome` (and, with `only`, with no other outcome). */
const reasonFor = (outcome: Outcome, only = false) => {
  const reason = REVIEW_REASON_CODES().find((r) => r.outcomes.includes(outcome) && (!only || r.outcomes.length === 1));
  if (!reason) throw new Error(`no reason code is configured for ${outcome}`);
  return reason.code;
};
const fieldsOf = (errors: { field: string; code: string }[]) => errors.map((e) => [e.field, e.code]);

describe("REVIEW_REASON_CODES: the configured reasons a reviewer gives", () => {
  it("has a reason for each outcome, each code once", () => {
    const codes = REVIEW_REASON_CODES();
    for (const outcome of ["CLEAR", "REJECT", "ESCALATE"] as const)
      expect(
        codes.some((r) => r.outcomes.includes(outcome)),
        outcome,
      ).toBe(true);
    expect(new Set(codes.map((r) => r.code)).size).toBe(codes.length);
  });

  it("each reason has a label and names only real outcomes", () => {
    for (const r of REVIEW_REASON_CODES()) {
      expect(r.label.length, r.code).toBeGreaterThan(0);
      expect(r.outcomes.length, r.code).toBeGreaterThan(0);
      for (const o of r.outcomes) expect(["CLEAR", "REJECT", "ESCALATE"]).toContain(o);
    }
  });
});

describe("hitsOf: the hits of a screening run a person must look at", () => {
  it("are the run's matches, as recorded", () => {
    expect(hitsOf(screening([MATCH]))).toEqual([MATCH]);
  });

  it("leave out suppressed matches", () => {
    expect(
      hitsOf(
        screening([
          { ...MATCH, suppressed: true },
          { ...MATCH, entryId: "SDN-2" },
        ]),
      ).map((h) => h.entryId),
    ).toEqual(["SDN-2"]);
  });

  it("only a screening run has hits", () => {
    expect(hitsOf({ ...screening([MATCH]), type: "KYC" })).toEqual([]);
    expect(hitsOf({ ...screening([MATCH]), type: "TRANSACTION_MONITORING" })).toEqual([]);
  });

  it("a run without a list of matches has none", () => {
    for (const result of [null, {}, { matches: "SDN-1" }, { matches: { 0: MATCH } }]) expect(hitsOf({ ...screening([]), result })).toEqual([]);
  });

  it("keep an upstream provider's match that names an entry, filling in what it lacks", () => {
    expect(hitsOf(screening([{ entryId: "UP-7", name: "Someone", score: 0.5 }]))).toEqual([
      { entryId: "UP-7", name: "Someone", list: "upstream", listVersion: "unknown", entryHash: "", subjectHash: "", score: 0.5 },
    ]);
  });

  it("drop matches that name no entry", () => {
    expect(hitsOf(screening([null, "SDN-1", 7, {}, { entryId: "" }, { entryId: 42 }, { ...MATCH, entryId: undefined }]))).toEqual([]);
  });

  it("keep a score within 0..1, reading one that is not a finite number as 0", () => {
    const scores = [1.5, -0.2, Number.NaN, Number.POSITIVE_INFINITY, "0.9", 0.3].map((score, i) => ({ entryId: `E${i}`, score }));
    expect(hitsOf(screening(scores)).map((h) => h.score)).toEqual([1, 0, 0, 0, 0, 0.3]);
  });

  it("cut what a provider sent to 200 characters", () => {
    const [hit] = hitsOf(screening([{ entryId: "x".repeat(500), list: "l".repeat(300) }]));
    expect(hit?.entryId).toHaveLength(200);
    expect(hit?.list).toHaveLength(200);
  });
});

describe("needsReview: which completed runs need a person", () => {
  it("a screening with hits does; one whose matches are all suppressed does not", () => {
    expect(needsReview(screening([MATCH]), "IN_REVIEW")).toBe(true);
    expect(needsReview(screening([{ ...MATCH, suppressed: true }]), "IN_REVIEW")).toBe(false);
    expect(needsReview(screening([]), "ACTIVE")).toBe(false);
  });

  it.each(["CONSIDER", "REJECTED"] as const)("a monitoring alert (%s) does", (status) => {
    expect(needsReview(runOf("TRANSACTION_MONITORING", status), "ACTIVE")).toBe(true);
    expect(needsReview(runOf("TRANSACTION_MONITORING", status), "PENDING")).toBe(true);
  });

  it("KYC to consider does once the user asked to be verified, not before (it is the integrator's to collect)", () => {
    expect(needsReview(runOf("KYC", "CONSIDER"), "PENDING")).toBe(false);
    for (const status of ["IN_REVIEW", "ACTIVE", "SUSPENDED", "REJECTED"]) expect(needsReview(runOf("KYC", "CONSIDER"), status), status).toBe(true);
  });

  it.each(["CLEAR", "ERROR"] as const)("a %s run does not", (status) => {
    for (const type of ["KYC", "SANCTIONS_SCREENING", "TRANSACTION_MONITORING"] as const)
      expect(needsReview({ ...runOf(type, status), result: { matches: [MATCH] } }, "IN_REVIEW")).toBe(false);
  });

  it("a person's own result needs no other person; an upstream provider's does", () => {
    expect(needsReview({ ...screening([MATCH]), decidedBy: "OPERATOR" }, "IN_REVIEW")).toBe(false);
    expect(needsReview({ ...runOf("TRANSACTION_MONITORING", "REJECTED"), decidedBy: "OPERATOR" }, "ACTIVE")).toBe(false);
    expect(needsReview({ ...screening([MATCH]), decidedBy: "PROVIDER" }, "IN_REVIEW")).toBe(true);
  });
});

describe("reviewRiskOf: where a review sits in the queue (highest first)", () => {
  it("a confirmed hit is 100", () => {
    expect(reviewRiskOf(runOf("SANCTIONS_SCREENING", "REJECTED", { result: { score: 0.2 } }))).toBe(100);
  });

  it("a possible screening or monitoring finding is at least 70, or its score when higher, at most 100", () => {
    expect(reviewRiskOf(runOf("SANCTIONS_SCREENING", "CONSIDER", { result: { score: 0.3 } }))).toBe(70);
    expect(reviewRiskOf(runOf("SANCTIONS_SCREENING", "CONSIDER", { result: null }))).toBe(70);
    expect(reviewRiskOf(runOf("TRANSACTION_MONITORING", "CONSIDER", { result: { score: 0.86 } }))).toBe(86);
    expect(reviewRiskOf(runOf("TRANSACTION_MONITORING", "CONSIDER", { result: { score: 3 } }))).toBe(100);
  });

  it.todo(
    "a KYC finding sits where the user's risk score counts it (riskOf gives KYC CONSIDER its score, no floor of 70; reviewRiskOf floors every CONSIDER at 70 though its comment says it counts as the user's risk score does)",
  );
});

describe("UNDECIDED and NOT_CLOSED: which reviews still wait", () => {
  it("an OPEN or ESCALATED review waits for a decision; one PENDING_APPROVAL has one and waits for approval", () => {
    expect([...UNDECIDED].sort()).toEqual(["ESCALATED", "OPEN"]);
    expect([...NOT_CLOSED].sort()).toEqual(["ESCALATED", "OPEN", "PENDING_APPROVAL"]);
    expect(NOT_CLOSED).not.toContain("CLOSED");
  });
});

describe("noteErrors: a decision's or an approval's note", () => {
  it("is at most 2000 characters", () => {
    expect(noteErrors(null)).toEqual([]);
    expect(noteErrors(undefined)).toEqual([]);
    expect(noteErrors("")).toEqual([]);
    expect(noteErrors("n".repeat(2000))).toEqual([]);
    expect(noteErrors("n".repeat(2001))).toEqual([{ field: "note", code: "too_long", message: "note: at most 2000 characters." }]);
  });
});

describe("decisionErrors: what a decision on a review must hold", () => {
  const hits = ["hit-1", "hit-2"];
  const falsePositives = hits.map((hitId) => ({ hitId, decision: "FALSE_POSITIVE" as const }));

  it("a CLEAR with every hit a false positive and a reason for clearing is complete", () => {
    expect(decisionErrors({ outcome: "CLEAR", reasonCode: reasonFor("CLEAR"), hits: falsePositives }, hits)).toEqual([]);
  });

  it("a REJECT with at least one true match and a reason for rejecting is complete", () => {
    const decided = [
      { hitId: "hit-1", decision: "TRUE_MATCH" as const },
      { hitId: "hit-2", decision: "FALSE_POSITIVE" as const },
    ];
    expect(decisionErrors({ outcome: "REJECT", reasonCode: reasonFor("REJECT"), hits: decided }, hits)).toEqual([]);
  });

  it("an ESCALATE needs no hit decided", () => {
    expect(decisionErrors({ outcome: "ESCALATE", reasonCode: reasonFor("ESCALATE") }, hits)).toEqual([]);
  });

  it("a review without hits (KYC, monitoring) is cleared or rejected with a reason alone", () => {
    expect(decisionErrors({ outcome: "CLEAR", reasonCode: reasonFor("CLEAR") }, [])).toEqual([]);
    expect(decisionErrors({ outcome: "REJECT", reasonCode: reasonFor("REJECT") }, [])).toEqual([]);
  });

  it("needs an outcome and a reason code", () => {
    expect(fieldsOf(decisionErrors({}, []))).toEqual([
      ["outcome", "required"],
      ["reasonCode", "required"],
    ]);
  });

  it("refuses a reason code that is not configured", () => {
    expect(fieldsOf(decisionErrors({ outcome: "CLEAR", reasonCode: "because" }, []))).toEqual([["reasonCode", "invalid"]]);
  });

  it("refuses a reason code given for another outcome", () => {
    const errors = decisionErrors({ outcome: "CLEAR", reasonCode: reasonFor("REJECT", true) }, []);
    expect(fieldsOf(errors)).toEqual([["reasonCode", "not_allowed"]]);
    expect(errors[0]?.message).toMatch(/ is for .*REJECT.*, not CLEAR\.$/);
  });

  it("a CLEAR must decide every hit", () => {
    const errors = decisionErrors({ outcome: "CLEAR", reasonCode: reasonFor("CLEAR"), hits: falsePositives.slice(0, 1) }, hits);
    expect(fieldsOf(errors)).toEqual([["hits", "required"]]);
    expect(errors[0]?.message).toContain("hit-2");
  });

  it("a review with a TRUE_MATCH hit cannot be cleared", () => {
    const decided = [
      { hitId: "hit-1", decision: "TRUE_MATCH" as const },
      { hitId: "hit-2", decision: "FALSE_POSITIVE" as const },
    ];
    expect(fieldsOf(decisionErrors({ outcome: "CLEAR", reasonCode: reasonFor("CLEAR"), hits: decided }, hits))).toEqual([["hits", "not_allowed"]]);
  });

  it("a REJECT of a review with hits needs a TRUE_MATCH among them", () => {
    expect(fieldsOf(decisionErrors({ outcome: "REJECT", reasonCode: reasonFor("REJECT"), hits: falsePositives }, hits))).toEqual([["hits", "required"]]);
  });

  it("refuses decisions on hits the review does not hold, and a hit decided twice", () => {
    const unknown = decisionErrors({ outcome: "ESCALATE", reasonCode: reasonFor("ESCALATE"), hits: [{ hitId: "hit-9", decision: "FALSE_POSITIVE" }] }, hits);
    expect(fieldsOf(unknown)).toEqual([["hits", "invalid"]]);
    expect(unknown[0]?.message).toBe("Not hits of this review: hit-9.");
    const twice = decisionErrors(
      {
        outcome: "ESCALATE",
        reasonCode: reasonFor("ESCALATE"),
        hits: [
          { hitId: "hit-1", decision: "FALSE_POSITIVE" },
          { hitId: "hit-1", decision: "TRUE_MATCH" },
        ],
      },
      hits,
    );
    expect(twice.map((e) => e.message)).toEqual(["Each hit may be decided once."]);
  });

  it("refuses a note over 2000 characters", () => {
    expect(fieldsOf(decisionErrors({ outcome: "ESCALATE", reasonCode: reasonFor("ESCALATE"), note: "n".repeat(2001) }, []))).toEqual([["note", "too_long"]]);
  });

  it("reports every problem in one list", () => {
    const errors = decisionErrors(
      { outcome: "CLEAR", reasonCode: reasonFor("REJECT", true), note: "n".repeat(2001), hits: [{ hitId: "hit-1", decision: "TRUE_MATCH" }] },
      hits,
    );
    expect(fieldsOf(errors)).toEqual([
      ["reasonCode", "not_allowed"],
      ["note", "too_long"],
      ["hits", "required"],
      ["hits", "not_allowed"],
    ]);
  });
});

describe("hitLevel: how strong a hit is", () => {
  it("is the matcher's verdict on the hit when it recorded one", () => {
    expect(hitLevel({ ...MATCH, status: "REJECTED" }, "CONSIDER")).toBe("REJECTED");
    expect(hitLevel({ ...MATCH, status: "CONSIDER" }, "REJECTED")).toBe("CONSIDER");
  });

  it("otherwise takes the status of the run that found it, CONSIDER at the least", () => {
    expect(hitLevel({ entryId: "UP-1" }, "REJECTED")).toBe("REJECTED");
    expect(hitLevel({ entryId: "UP-1", status: "CLEAR" }, "CONSIDER")).toBe("CONSIDER");
    expect(hitLevel(null, "REJECTED")).toBe("REJECTED");
    expect(hitLevel("SDN-1", "CLEAR")).toBe("CONSIDER");
  });
});

describe("needsSecondReviewer: four eyes", () => {
  const RISKS = [null, "LOW", "MEDIUM", "HIGH"];
  const HELD: Status[][] = [[], ["CONSIDER"], ["REJECTED"], ["CONSIDER", "REJECTED"], ["CONSIDER", "CONSIDER"]];
  const table = (["CLEAR", "REJECT", "ESCALATE"] as const).flatMap((outcome) =>
    RISKS.flatMap((riskApart) =>
      HELD.map((held) => ({
        outcome,
        riskApart,
        held,
        waits: outcome === "REJECT" || (outcome === "CLEAR" && (riskApart === "HIGH" || held.includes("REJECTED"))),
      })),
    ),
  );

  const named = (waits: boolean) =>
    table.filter((row) => row.waits === waits).map((row) => [row.outcome, row.riskApart ?? "unknown", row.held.join(" and ") || "none", row] as const);

  it.each(named(true))("%s with the user's risk apart %s and findings %s waits for a second reviewer", (outcome, _risk, _held, row) => {
    expect(needsSecondReviewer(outcome, row)).toBe(true);
  });

  it.each(named(false))("%s with the user's risk apart %s and findings %s takes effect at once", (outcome, _risk, _held, row) => {
    expect(needsSecondReviewer(outcome, row)).toBe(false);
  });

  it("a weaker finding added later never hides a stronger one: clearing any finding that rejected the user needs four eyes (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom<Status>("CONSIDER", "REJECTED")), fc.array(fc.constantFrom<Status>("CONSIDER")), (before, after) => {
        const held = [...before, "REJECTED" as const, ...after];
        expect(needsSecondReviewer("CLEAR", { riskApart: "LOW", held })).toBe(true);
      }),
    );
  });
});

describe("samePerson: who counts as the same reviewer", () => {
  it("the same identity is one person", () => {
    expect(samePerson({ id: "r1", email: null }, { id: "r1", email: null })).toBe(true);
  });

  it("two identities with one email, whatever its case and spaces, are one person", () => {
    expect(samePerson({ id: "r1", email: "Ana@Example.com" }, { id: "r2", email: " ana@example.com " })).toBe(true);
  });

  it("two identities with different emails are two people", () => {
    expect(samePerson({ id: "r1", email: "ana@example.com" }, { id: "r2", email: "ben@example.com" })).toBe(false);
  });

  it("identities without an email are told apart by id alone", () => {
    expect(samePerson({ id: "r1", email: null }, { id: "r2", email: null })).toBe(false);
    expect(samePerson({ id: "r1", email: "" }, { id: "r2", email: "" })).toBe(false);
    expect(samePerson({ id: "r1", email: "ana@example.com" }, { id: "r2", email: null })).toBe(false);
  });

  it("is symmetric (property)", () => {
    const person = fc.record({
      id: fc.constantFrom("r1", "r2", "r3"),
      email: fc.option(fc.constantFrom("ana@example.com", "ANA@example.com ", "ben@example.com", "")),
    });
    fc.assert(
      fc.property(person, person, (a, b) => {
        expect(samePerson(a, b)).toBe(samePerson(b, a));
      }),
    );
  });
});

describe("decidedStatus: what a decision records on the user's checks", () => {
  it("CLEAR records CLEAR and REJECT records REJECTED", () => {
    expect(decidedStatus("CLEAR")).toBe("CLEAR");
    expect(decidedStatus("REJECT")).toBe("REJECTED");
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ASSESSED_CHECKS,
  assessByType,
  CHECK_EVENT,
  CHECK_TYPES,
  checksForChange,
  reasonsErrors,
  riskAssessmentStatus,
  riskOf,
  statusAfterChecks,
} from "./checks.rules.js";

type Type = (typeof CHECK_TYPES)[number];
type Status = "QUEUED" | "RUNNING" | "CLEAR" | "CONSIDER" | "REJECTED" | "ERROR";
type Decider = "SYSTEM" | "OPERATOR" | "PROVIDER";
type Run = { id: string; type: Type; status: Status; createdAt: Date; completedAt: Date | null; decidedBy: Decider | null; result?: unknown };

const t0 = Date.parse("2026-03-01T00:00:00.000Z");
let ids = 0;
/** A run created at minute `at`; a completed one completes a minute later and is decided by `by` (SYSTEM unless told). */
const run = (type: Type, status: Status, at: number, by: Decider | null = "SYSTEM", result?: unknown): Run => {
  const pending = status === "QUEUED" || status === "RUNNING";
  return {
    id: `run-${++ids}`,
    type,
    status,
    createdAt: new Date(t0 + at * 60_000),
    completedAt: pending ? null : new Date(t0 + (at + 1) * 60_000),
    decidedBy: pending ? null : by,
    result,
  };
};
const verdictOf = (runs: Run[], type: Type) => assessByType(runs).get(type)?.verdict;
const completed = (type: Type, status: Status, score?: number) => ({ type, status, createdAt: new Date(t0), result: score === undefined ? {} : { score } });
const verdicts = (entries: [Type, Status][]) => new Map(entries.map(([type, status]) => [type, completed(type, status)]));
const ALL_CLEAR: [Type, Status][] = CHECK_TYPES.map((type) => [type, "CLEAR"]);

describe("CHECK_TYPES and CHECK_EVENT", () => {
  it("a verification runs KYC, sanctions screening and transaction monitoring", () => {
    expect(CHECK_TYPES).toEqual(["KYC", "SANCTIONS_SCREENING", "TRANSACTION_MONITORING"]);
  });

  it("each type's completed run raises check.<type>.updated", () => {
    for (const type of CHECK_TYPES) expect(CHECK_EVENT[type]).toBe(`check.${type.toLowerCase()}.updated`);
  });
});

describe("riskAssessmentStatus: the user's risk assessment, from the verdict on each type", () => {
  it("is UNKNOWN before any run", () => {
    expect(riskAssessmentStatus([])).toBe("UNKNOWN");
  });

  it("is CLEARED when every type that ran is CLEAR", () => {
    expect(riskAssessmentStatus(CHECK_TYPES.map((type, i) => run(type, "CLEAR", i)))).toBe("CLEARED");
    expect(riskAssessmentStatus([run("KYC", "CLEAR", 0)])).toBe("CLEARED");
  });

  it("is REJECTED on a confirmed hit, whatever the other types say", () => {
    expect(riskAssessmentStatus([run("KYC", "QUEUED", 0), run("SANCTIONS_SCREENING", "REJECTED", 1), run("TRANSACTION_MONITORING", "CONSIDER", 2)])).toBe(
      "REJECTED",
    );
  });

  it.each(["QUEUED", "RUNNING", "CONSIDER", "ERROR"] as const)("is PENDING while a type is %s (waiting for a result or a retry)", (status) => {
    expect(riskAssessmentStatus([run("KYC", "CLEAR", 0), run("SANCTIONS_SCREENING", status, 1)])).toBe("PENDING");
  });

  it("follows each type's newest automatic run: a later CLEAR replaces an earlier automatic CONSIDER", () => {
    expect(riskAssessmentStatus([run("KYC", "CONSIDER", 0), run("KYC", "CLEAR", 5)])).toBe("CLEARED");
    expect(riskAssessmentStatus([run("KYC", "CLEAR", 0), run("KYC", "CONSIDER", 5)])).toBe("PENDING");
  });
});

describe("assessByType: a person's decision stands; an automatic run may add a hit, never clear one", () => {
  it("without a person's or provider's decision, the newest run is the verdict and the newest completed run is weighed", () => {
    const done = run("KYC", "CONSIDER", 0);
    const queued = run("KYC", "QUEUED", 5);
    const assessed = assessByType([done, queued]).get("KYC")!;
    expect(assessed).toEqual({ standing: null, verdict: queued, weighed: [done] });
  });

  it("a type with only a queued run has nothing weighed yet", () => {
    const queued = run("KYC", "QUEUED", 0);
    expect(assessByType([queued]).get("KYC")).toEqual({ standing: null, verdict: queued, weighed: [] });
  });

  it("assesses each type apart", () => {
    const kyc = run("KYC", "CLEAR", 0);
    const screening = run("SANCTIONS_SCREENING", "REJECTED", 1);
    const assessed = assessByType([kyc, screening]);
    expect([...assessed.keys()].sort()).toEqual(["KYC", "SANCTIONS_SCREENING"]);
    expect(assessed.get("KYC")?.verdict).toBe(kyc);
    expect(assessed.get("SANCTIONS_SCREENING")?.verdict).toBe(screening);
  });

  it("an operator's CLEAR supersedes the automatic hit it was made after", () => {
    const hit = run("SANCTIONS_SCREENING", "REJECTED", 0);
    const cleared = run("SANCTIONS_SCREENING", "CLEAR", 5, "OPERATOR");
    expect(assessByType([hit, cleared]).get("SANCTIONS_SCREENING")).toEqual({ standing: cleared, verdict: cleared, weighed: [cleared] });
  });

  it("an automatic run after an operator's CLEAR cannot clear, but can add a hit", () => {
    const cleared = run("SANCTIONS_SCREENING", "CLEAR", 0, "OPERATOR");
    const laterHit = run("SANCTIONS_SCREENING", "CONSIDER", 5);
    expect(assessByType([cleared, laterHit]).get("SANCTIONS_SCREENING")).toEqual({ standing: cleared, verdict: laterHit, weighed: [cleared, laterHit] });
    const rejected = run("SANCTIONS_SCREENING", "REJECTED", 0, "OPERATOR");
    const laterClear = run("SANCTIONS_SCREENING", "CLEAR", 5);
    expect(assessByType([rejected, laterClear]).get("SANCTIONS_SCREENING")).toEqual({ standing: rejected, verdict: rejected, weighed: [rejected, laterClear] });
  });

  it("a later automatic run of equal severity leaves the person's decision as the verdict", () => {
    const considered = run("KYC", "CONSIDER", 0, "OPERATOR");
    const again = run("KYC", "CONSIDER", 5);
    expect(verdictOf([considered, again], "KYC")).toBe(considered);
  });

  it("a failed automatic run after a decision changes nothing", () => {
    const cleared = run("KYC", "CLEAR", 0, "OPERATOR");
    expect(verdictOf([cleared, run("KYC", "ERROR", 5)], "KYC")).toBe(cleared);
  });

  it("a run still to complete after a decision could be worse: it is the verdict, unless the decision rejected", () => {
    const cleared = run("KYC", "CLEAR", 0, "OPERATOR");
    const queued = run("KYC", "QUEUED", 5);
    expect(assessByType([cleared, queued]).get("KYC")).toEqual({ standing: cleared, verdict: queued, weighed: [cleared] });
    const rejected = run("KYC", "REJECTED", 0, "OPERATOR");
    expect(verdictOf([rejected, run("KYC", "RUNNING", 5)], "KYC")).toBe(rejected);
  });

  it("a person's decision outranks a provider's, even a newer one: only a person changes a person's decision", () => {
    const person = run("SANCTIONS_SCREENING", "CONSIDER", 0, "OPERATOR");
    const provider = run("SANCTIONS_SCREENING", "CLEAR", 5, "PROVIDER");
    const assessed = assessByType([person, provider]).get("SANCTIONS_SCREENING")!;
    expect(assessed.standing).toBe(person);
    expect(assessed.verdict).toBe(person);
  });

  it("a provider's decision stands against later automatic runs when no person decided", () => {
    const provider = run("TRANSACTION_MONITORING", "CLEAR", 0, "PROVIDER");
    const auto = run("TRANSACTION_MONITORING", "CLEAR", 5);
    expect(assessByType([provider, auto]).get("TRANSACTION_MONITORING")?.standing).toBe(provider);
    const worse = run("TRANSACTION_MONITORING", "REJECTED", 9);
    expect(verdictOf([provider, auto, worse], "TRANSACTION_MONITORING")).toBe(worse);
  });

  it("the newest of a person's decisions is the one that stands", () => {
    const first = run("KYC", "REJECTED", 0, "OPERATOR");
    const second = run("KYC", "CLEAR", 5, "OPERATOR");
    expect(verdictOf([second, first], "KYC")).toBe(second);
  });

  it("the latest run of each type and decider (ASSESSED_CHECKS) is enough for the same assessment (property)", () => {
    expect(ASSESSED_CHECKS.distinct).toEqual(["type", "decidedBy"]);
    expect(ASSESSED_CHECKS.orderBy).toEqual({ createdAt: "desc" });
    const anyRun = fc.record({
      type: fc.constantFrom(...CHECK_TYPES),
      status: fc.constantFrom<Status>("QUEUED", "RUNNING", "CLEAR", "CONSIDER", "REJECTED", "ERROR"),
      by: fc.constantFrom<Decider>("SYSTEM", "OPERATOR", "PROVIDER"),
      completesAfter: fc.integer({ min: 1, max: 30 }),
    });
    fc.assert(
      fc.property(fc.array(anyRun, { maxLength: 15 }), (specs) => {
        // distinct creation times, as rows of one user have
        const runs = specs.map((s, i) => {
          const r = run(s.type, s.status, i * 2, s.by);
          return r.completedAt ? { ...r, completedAt: new Date(r.createdAt.getTime() + s.completesAfter * 60_000) } : r;
        });
        const newestFirst = [...runs].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
        const seen = new Set<string>();
        const selected = newestFirst.filter((r) => {
          const key = `${r.type}/${r.decidedBy}`;
          if (seen.has(key)) return false;
          seen.add(key);
          return true;
        });
        expect(assessByType(selected)).toEqual(assessByType(runs));
        expect(riskAssessmentStatus(selected)).toBe(riskAssessmentStatus(runs));
      }),
    );
  });
});

describe("riskOf: risk_score and risk_level from the latest completed run of each type", () => {
  const score = (...runs: ReturnType<typeof completed>[]) => riskOf(runs);

  it("is nothing until a run has a result", () => {
    expect(riskOf([])).toBeNull();
    expect(score(completed("KYC", "QUEUED"), completed("SANCTIONS_SCREENING", "ERROR"))).toBeNull();
  });

  it("a confirmed hit is 100, HIGH", () => {
    expect(score(completed("KYC", "REJECTED", 0.1))).toEqual({ riskScore: 100, riskLevel: "HIGH" });
  });

  it.each(["SANCTIONS_SCREENING", "TRANSACTION_MONITORING"] as const)("a possible %s match is at least 70, or its score when higher", (type) => {
    expect(score(completed(type, "CONSIDER"))).toEqual({ riskScore: 70, riskLevel: "HIGH" });
    expect(score(completed(type, "CONSIDER", 0.2))).toEqual({ riskScore: 70, riskLevel: "HIGH" });
    expect(score(completed(type, "CONSIDER", 0.93))).toEqual({ riskScore: 93, riskLevel: "HIGH" });
  });

  it("KYC owing something counts its score, with no floor", () => {
    expect(score(completed("KYC", "CONSIDER", 0.4))).toEqual({ riskScore: 40, riskLevel: "MEDIUM" });
    expect(score(completed("KYC", "CONSIDER"))).toEqual({ riskScore: 0, riskLevel: "LOW" });
  });

  it("a clear monitoring run counts its profile risk; a clear name or KYC check adds nothing", () => {
    expect(score(completed("TRANSACTION_MONITORING", "CLEAR", 0.55))).toEqual({ riskScore: 55, riskLevel: "MEDIUM" });
    expect(score(completed("KYC", "CLEAR", 0.9), completed("SANCTIONS_SCREENING", "CLEAR", 0.9))).toEqual({ riskScore: 0, riskLevel: "LOW" });
  });

  it("is the highest of the runs' parts", () => {
    expect(score(completed("KYC", "CONSIDER", 0.45), completed("TRANSACTION_MONITORING", "CLEAR", 0.2), completed("SANCTIONS_SCREENING", "CLEAR"))).toEqual({
      riskScore: 45,
      riskLevel: "MEDIUM",
    });
  });

  it.each([
    [0.39, "LOW"],
    [0.4, "MEDIUM"],
    [0.69, "MEDIUM"],
    [0.7, "HIGH"],
  ] as const)("a score of %d reads %s (MEDIUM from 40, HIGH from 70)", (value, level) => {
    expect(score(completed("TRANSACTION_MONITORING", "CLEAR", value))?.riskLevel).toBe(level);
  });

  it("a score past 1 counts as 100, and one that is not a number as 0", () => {
    expect(score(completed("TRANSACTION_MONITORING", "CLEAR", 1.7))?.riskScore).toBe(100);
    expect(riskOf([{ type: "TRANSACTION_MONITORING", status: "CLEAR", createdAt: new Date(t0), result: { score: "high" } }])?.riskScore).toBe(0);
    expect(riskOf([{ type: "TRANSACTION_MONITORING", status: "CLEAR", createdAt: new Date(t0), result: null }])?.riskScore).toBe(0);
  });

  it("is always a whole number from 0 to 100 with the level it reads as (property)", () => {
    const anyCompleted = fc.record({
      type: fc.constantFrom(...CHECK_TYPES),
      status: fc.constantFrom<Status>("QUEUED", "RUNNING", "CLEAR", "CONSIDER", "REJECTED", "ERROR"),
      score: fc.double({ min: 0, max: 1, noNaN: true }),
    });
    fc.assert(
      fc.property(fc.array(anyCompleted, { maxLength: 6 }), (runs) => {
        const risk = riskOf(runs.map((r) => completed(r.type, r.status, r.score)));
        if (!risk) return;
        expect(Number.isInteger(risk.riskScore)).toBe(true);
        expect(risk.riskScore).toBeGreaterThanOrEqual(0);
        expect(risk.riskScore).toBeLessThanOrEqual(100);
        expect(risk.riskLevel).toBe(risk.riskScore >= 70 ? "HIGH" : risk.riskScore >= 40 ? "MEDIUM" : "LOW");
        if (runs.some((r) => r.status === "REJECTED")) expect(risk.riskScore).toBe(100);
      }),
    );
  });
});

describe("statusAfterChecks: where the user's status and kyc_status go once runs complete", () => {
  it.each([
    ["IN_REVIEW", "REJECTED"],
    ["ACTIVE", "SUSPENDED"],
    ["SUSPENDED", "SUSPENDED"],
  ] as const)("a confirmed hit moves a %s user to %s, KYC REJECTED", (from, to) => {
    expect(statusAfterChecks(from, verdicts([...ALL_CLEAR, ["TRANSACTION_MONITORING", "REJECTED"]]))).toEqual({ status: to, kycStatus: "REJECTED" });
  });

  it("a confirmed hit outweighs a possible match", () => {
    expect(
      statusAfterChecks(
        "ACTIVE",
        verdicts([
          ["SANCTIONS_SCREENING", "CONSIDER"],
          ["KYC", "REJECTED"],
        ]),
      ),
    ).toEqual({
      status: "SUSPENDED",
      kycStatus: "REJECTED",
    });
  });

  it.each([
    ["IN_REVIEW", "IN_REVIEW"],
    ["ACTIVE", "SUSPENDED"],
    ["SUSPENDED", "SUSPENDED"],
  ] as const)("a possible sanctions match leaves a %s user %s, NEEDS_REVIEW", (from, to) => {
    expect(statusAfterChecks(from, verdicts([...ALL_CLEAR, ["SANCTIONS_SCREENING", "CONSIDER"]]))).toEqual({ status: to, kycStatus: "NEEDS_REVIEW" });
  });

  it.each(["KYC", "TRANSACTION_MONITORING"] as const)("a possible %s finding waits for a result without suspending an ACTIVE user", (type) => {
    expect(statusAfterChecks("ACTIVE", verdicts([...ALL_CLEAR, [type, "CONSIDER"]]))).toEqual({ status: "ACTIVE", kycStatus: "NEEDS_REVIEW" });
    expect(statusAfterChecks("IN_REVIEW", verdicts([...ALL_CLEAR, [type, "CONSIDER"]]))).toEqual({ status: "IN_REVIEW", kycStatus: "NEEDS_REVIEW" });
  });

  it.each([
    ["IN_REVIEW", "ACTIVE"],
    ["SUSPENDED", "ACTIVE"],
    ["ACTIVE", "ACTIVE"],
  ] as const)("all three types CLEAR move a %s user to %s, APPROVED", (from, to) => {
    expect(statusAfterChecks(from, verdicts(ALL_CLEAR))).toEqual({ status: to, kycStatus: "APPROVED" });
  });

  it("nothing is decided while a type has not run, is queued, running or failed", () => {
    expect(
      statusAfterChecks(
        "IN_REVIEW",
        verdicts([
          ["KYC", "CLEAR"],
          ["SANCTIONS_SCREENING", "CLEAR"],
        ]),
      ),
    ).toBeNull();
    for (const status of ["QUEUED", "RUNNING", "ERROR"] as const)
      expect(statusAfterChecks("IN_REVIEW", verdicts([...ALL_CLEAR, ["KYC", status]])), status).toBeNull();
  });

  it("a user who has not submitted verification (PENDING) or is CLOSED keeps its status, whatever the runs say (property)", () => {
    const verdictSet = fc.array(fc.tuple(fc.constantFrom(...CHECK_TYPES), fc.constantFrom<Status>("QUEUED", "CLEAR", "CONSIDER", "REJECTED", "ERROR")));
    fc.assert(
      fc.property(fc.constantFrom("PENDING" as const, "CLOSED" as const), verdictSet, fc.boolean(), (status, entries, byPerson) => {
        expect(statusAfterChecks(status, verdicts(entries), { byPerson })).toBeNull();
      }),
    );
  });

  it("a REJECTED user is cleared back to ACTIVE only by a person's result with all three types CLEAR", () => {
    expect(statusAfterChecks("REJECTED", verdicts(ALL_CLEAR), { byPerson: true })).toEqual({ status: "ACTIVE", kycStatus: "APPROVED" });
    expect(statusAfterChecks("REJECTED", verdicts(ALL_CLEAR))).toBeNull();
    expect(statusAfterChecks("REJECTED", verdicts(ALL_CLEAR.slice(0, 2)), { byPerson: true })).toBeNull();
    expect(statusAfterChecks("REJECTED", verdicts([...ALL_CLEAR, ["KYC", "CONSIDER"]]), { byPerson: true })).toBeNull();
  });

  it("a REJECTED user stays rejected on any automatic result (property)", () => {
    const verdictSet = fc.array(fc.tuple(fc.constantFrom(...CHECK_TYPES), fc.constantFrom<Status>("QUEUED", "CLEAR", "CONSIDER", "REJECTED", "ERROR")));
    fc.assert(
      fc.property(verdictSet, (entries) => {
        expect(statusAfterChecks("REJECTED", verdicts(entries))).toBeNull();
      }),
    );
  });
});

describe("checksForChange: which checks a change to user information calls for", () => {
  it("a change that is not user information calls for none", () => {
    expect(checksForChange([])).toEqual([]);
    expect(checksForChange(["status", "locale", "externalId"])).toEqual([]);
  });

  it.each([
    [["email"], ["KYC"]],
    [["phoneNumber", "taxId"], ["KYC"]],
    [["firstName"], ["KYC", "SANCTIONS_SCREENING"]],
    [
      ["lastName", "status"],
      ["KYC", "SANCTIONS_SCREENING"],
    ],
    [["dateOfBirth"], ["KYC", "SANCTIONS_SCREENING"]],
    [["countryOfResidence"], ["KYC", "TRANSACTION_MONITORING"]],
    [["residentialAddress"], ["KYC", "TRANSACTION_MONITORING"]],
    [["billingAddress"], ["KYC", "TRANSACTION_MONITORING"]],
    [["nationality"], ["KYC", "SANCTIONS_SCREENING", "TRANSACTION_MONITORING"]],
    [
      ["middleName", "billingAddress"],
      ["KYC", "SANCTIONS_SCREENING", "TRANSACTION_MONITORING"],
    ],
  ])("a change to %j calls for %j", (fields, types) => {
    expect(checksForChange(fields)).toEqual(types);
  });

  it("every change to user information calls for KYC, and the checks come in CHECK_TYPES order (property)", () => {
    const field = fc.constantFrom(
      "email",
      "phoneNumber",
      "firstName",
      "middleName",
      "lastName",
      "dateOfBirth",
      "nationality",
      "countryOfResidence",
      "residentialAddress",
      "billingAddress",
      "taxId",
      "status",
      "locale",
      "externalId",
    );
    fc.assert(
      fc.property(fc.array(field), (fields) => {
        const types = checksForChange(fields);
        const information = fields.some((f) => !["status", "locale", "externalId"].includes(f));
        expect(types.includes("KYC")).toBe(information);
        expect(types).toEqual(CHECK_TYPES.filter((t) => types.includes(t)));
      }),
    );
  });
});

describe("reasonsErrors: what a posted result may say as reasons", () => {
  it("no reasons, or up to 50 of up to 200 characters, are fine", () => {
    expect(reasonsErrors(null)).toEqual([]);
    expect(reasonsErrors(undefined)).toEqual([]);
    expect(reasonsErrors([])).toEqual([]);
    expect(reasonsErrors(Array.from({ length: 50 }, () => "x".repeat(200)))).toEqual([]);
  });

  it("refuses a 51st reason or a reason of 201 characters, naming the field", () => {
    const refusal = [{ field: "reasons", code: "too_long", message: "reasons: at most 50, each at most 200 characters." }];
    expect(reasonsErrors(Array.from({ length: 51 }, () => "x"))).toEqual(refusal);
    expect(reasonsErrors(["ok", "x".repeat(201)])).toEqual(refusal);
  });
});

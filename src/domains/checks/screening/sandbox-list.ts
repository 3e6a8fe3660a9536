/**
 * The built-in sandbox list: two entries a SANDBOX client's user reaches by last name alone
 * (src/kernel/sandbox-inputs.ts), so an integrator sees a rejection and a possible match without knowing a
 * listed name. Each hit has the shape and explanation of a real one (screen-person.ts), so reviews,
 * suppression and webhooks treat it as they treat the OFAC list's.
 */
import { isMagic, SANDBOX_INPUTS } from "../../../kernel/sandbox-inputs.js";
import { subjectFingerprint } from "./fingerprints.js";
import type { PersonToScreen, ScreeningMatch } from "./screen-person.js";

const ENTRIES = [
  { lastName: SANDBOX_INPUTS.rejectLastName, entryId: "SANDBOX-1", name: "SANDBOXREJECT, Test Person", status: "REJECTED", score: 1 },
  { lastName: SANDBOX_INPUTS.reviewLastName, entryId: "SANDBOX-2", name: "SANDBOXREVIEW, Test Person", status: "CONSIDER", score: 0.9 },
] as const;

/** The sandbox list's hit for this person, if their last name is one of its magic values. */
export function sandboxListMatch(person: PersonToScreen): ScreeningMatch | null {
  const entry = ENTRIES.find((e) => isMagic(person.lastName, e.lastName));
  if (!entry) return null;
  const given = person.lastName.trim().toLowerCase();
  const unknown = { given: null, listed: [], verdict: "unknown" as const };
  return {
    list: "SANDBOX",
    listVersion: "sandbox-1",
    entryId: entry.entryId,
    name: entry.name,
    matchedName: entry.name,
    entryNames: [entry.name],
    score: entry.score,
    reasons: [entry.status === "REJECTED" ? "name_exact" : "name_fuzzy", "sandbox_list"],
    programs: ["SANDBOX"],
    status: entry.status,
    explanation: {
      name: { score: entry.score, pairs: [{ given, listed: given, similarity: 1 }], unpairedGiven: [], unpairedListed: [], reordered: false },
      dateOfBirth: { ...unknown, given: person.dateOfBirth ?? null },
      nationality: { ...unknown, given: person.nationality ?? null },
      alias: { matched: entry.name, primary: true, weak: false },
    },
    entryHash: `${entry.entryId}-v1`,
    subjectHash: subjectFingerprint(person),
  };
}

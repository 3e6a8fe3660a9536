/**
 * Rule sets in the database and in memory. Each instance keeps every version in a cache (a handful of
 * rows) and drops it when told: at once by a `compliance.updated` event (this instance, or all of them
 * over Redis), and otherwise by a one-row version check made when a rule set is used and the last check
 * is older than POLL_MS, which is how an import by a CLI without the bus reaches running servers. The
 * check rides on use, never on a timer: an idle process issues no queries. The set in force is chosen at evaluation time, so a
 * version with a future effective_from takes over by itself when its day comes.
 */
import type { DocumentStatus } from "../../../generated/prisma/enums.js";
import type { Db } from "../../db/client.js";
import type { Cipher } from "../../lib/crypto.js";
import { invalid } from "../../lib/errors.js";
import { toAlpha2 } from "../../lib/countries.js";
import type { EventBus } from "../../platform/bus.js";
import {
  blankSubject,
  compileRuleSet,
  DEFAULT_COUNTRY,
  evaluate,
  type CompiledRuleSet,
  type DocumentFact,
  type Requirements,
  type Subject,
} from "./compliance.rules.js";

/** How often an instance checks for rule sets written by another process (the CLI). */
const POLL_MS = 2000;
/** marks the version check, so query-count tests can tell it from the request's own statements */
export const POLL_MARKER = "compliance-version-check";

type Index = { stamp: string; byCountry: Map<string, CompiledRuleSet[]> };

export function createRuleBook(db: Db, events: EventBus, { pollMs = POLL_MS } = {}) {
  let current: Promise<Index> | null = null;
  const stampOf = async () => {
    const [row] = await db.$queryRawUnsafe<{ n: number; at: string | null }[]>(
      `/* ${POLL_MARKER} */ select count(*)::int as n, max(created_at)::text as at from compliance_rule_sets`,
    );
    return `${row.n}|${row.at}`;
  };
  const load = async (): Promise<Index> => {
    const stamp = await stampOf(); // read first: a row landing in between only causes one more reload
    const rows = await db.complianceRuleSet.findMany({ orderBy: [{ country: "asc" }, { version: "desc" }] });
    const byCountry = new Map<string, CompiledRuleSet[]>();
    for (const row of rows) byCountry.set(row.country, [...(byCountry.get(row.country) ?? []), compileRuleSet(row)]);
    return { stamp, byCountry };
  };
  const changes = events.subscribe("compliance.updated");
  void (async () => {
    for await (const _ of changes) current = null;
  })();
  let checkedAt = Date.now();
  /** in the background: this read uses what is cached, the next one what the check found */
  const recheck = () => {
    const loaded = current;
    if (!loaded || Date.now() - checkedAt < pollMs) return;
    checkedAt = Date.now();
    void (async () => {
      try {
        if ((await stampOf()) !== (await loaded).stamp && current === loaded) current = null;
      } catch {
        /* closed or down: the next read reloads */
      }
    })();
  };

  // the index `current` settled to, kept beside the promise it came from: a reset (`current = null`) voids it
  let settled: { from: Promise<Index>; index: Index } | null = null;

  return {
    /** The rule set in force for a country of residence (alpha-2; DEFAULT when none or unknown). */
    async inForce(country: string | null | undefined, now = new Date()): Promise<CompiledRuleSet> {
      recheck();
      const attempt = (current ??= load());
      let index: Index;
      try {
        index = await attempt;
      } catch (error) {
        if (current === attempt) current = null;
        throw error;
      }
      if (current === attempt) settled = { from: attempt, index };
      return ruleSetIn(index, country, now);
    },
    /**
     * The same without waiting, when the rule sets are loaded (every read after the first): a user
     * read computes requirements, and a promise there makes graphql-jit settle the whole answer
     * through promises. null: not loaded (or reset since), ask `inForce`.
     */
    inForceNow(country: string | null | undefined, now = new Date()): CompiledRuleSet | null {
      if (!settled || settled.from !== current) return null;
      recheck();
      return ruleSetIn(settled.index, country, now);
    },
    invalidate() {
      current = null;
    },
    async stop() {
      await changes.return?.();
    },
  };
}
export type RuleBook = ReturnType<typeof createRuleBook>;

function ruleSetIn(index: Index, country: string | null | undefined, now: Date): CompiledRuleSet {
  const pick = (code: string) => index.byCountry.get(code)?.find((r) => r.effectiveFrom.getTime() <= now.getTime());
  const found = (country ? pick(country) : undefined) ?? pick(DEFAULT_COUNTRY);
  if (!found) throw new Error("no DEFAULT compliance rule set is in force; load data/compliance");
  return found;
}

/**
 * What requirements are computed from, as a Prisma select: Pothos merges it into the user query, so a
 * list loads every user's documents in one more statement, not one per user. Stored EXPIRED and
 * DELETED documents never count; an ACTIVE one past its expiry date is left out by `usable`.
 */
export const REQUIREMENT_COLUMNS = {
  firstName: true,
  middleName: true,
  lastName: true,
  dateOfBirth: true,
  email: true,
  phoneNumber: true,
  nationality: true,
  countryOfResidence: true,
  residentialAddress: true,
  billingAddress: true,
  taxIdEncrypted: true,
  emailVerified: true,
  phoneVerified: true,
  // INVALID ones satisfy nothing (compliance.rules.ts `usable`); KYC reads them to say why
  documents: {
    where: { status: { in: ["ACTIVE", "INVALID"] as DocumentStatus[] } },
    select: { documentType: true, status: true, expiryDate: true, invalidReason: true },
  },
} as const;

export type RequirementFacts = Omit<Subject, "taxId" | "documents"> & { taxIdEncrypted?: string | null; documents?: DocumentFact[] };

/**
 * The tax id is decrypted in memory only to check its format against the rule set in force. The
 * facts are named one by one: a user row has twice as many columns, and every read of a user
 * computes its requirements (a spread copied them all).
 */
function subjectOf(cipher: Cipher, u: RequirementFacts): Subject {
  let taxId: string | null | undefined = null;
  if (u.taxIdEncrypted) {
    try {
      taxId = cipher.decrypt(u.taxIdEncrypted);
    } catch {
      taxId = undefined;
    }
  }
  return {
    firstName: u.firstName,
    middleName: u.middleName,
    lastName: u.lastName,
    dateOfBirth: u.dateOfBirth,
    email: u.email,
    phoneNumber: u.phoneNumber,
    nationality: u.nationality,
    countryOfResidence: u.countryOfResidence,
    residentialAddress: u.residentialAddress,
    billingAddress: u.billingAddress,
    taxId,
    emailVerified: u.emailVerified,
    phoneVerified: u.phoneVerified,
    documents: u.documents ?? [],
  };
}

export async function requirementsOf(
  ctx: { compliance: RuleBook; cipher: Cipher },
  user: RequirementFacts,
  now = new Date(),
): Promise<Requirements & { rules: CompiledRuleSet }> {
  const rules = await ctx.compliance.inForce(user.countryOfResidence, now);
  return { ...evaluate(rules, subjectOf(ctx.cipher, user), now), rules };
}

/** `requirementsOf` without a promise when the rule sets are loaded (the `requirements` field of every user read). */
export function requirementsNow(ctx: { compliance: RuleBook; cipher: Cipher }, user: RequirementFacts, now = new Date()): Requirements | Promise<Requirements> {
  const rules = ctx.compliance.inForceNow(user.countryOfResidence, now);
  return rules ? evaluate(rules, subjectOf(ctx.cipher, user), now) : requirementsOf(ctx, user, now);
}

/** What a user of `country` owes (alpha-2 or alpha-3), and the rule set behind it. */
export async function countryRequirements(ctx: { compliance: RuleBook }, country: string) {
  const code = toAlpha2(country);
  if (!code) throw invalid([{ field: "country", code: "invalid", message: "country must be an ISO 3166-1 alpha-2 or alpha-3 code." }]);
  const now = new Date();
  const rules = await ctx.compliance.inForce(code, now);
  return { country: code, rules, owed: evaluate(rules, blankSubject, now) };
}

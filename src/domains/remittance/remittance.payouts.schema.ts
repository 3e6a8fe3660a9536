/** GraphQL for payout requirements, the beneficiary dry run and the corridor change feed. */
import { builder } from "../../graphql/builder.js";
import { tenantOf } from "../../context.js";
import type { CorridorChange } from "./remittance.changes.js";
import { corridorRequirements, validateBeneficiary } from "./remittance.payouts.js";

const lookups = { scope: "lookups:read" };

type VersionShape = { version: number; effectiveAt: Date; source: string; schema: object };
const RequirementsVersion = builder.objectRef<VersionShape>("CorridorRequirementsVersion").implement({
  description: "One version of a corridor's payout requirements",
  fields: (t) => ({
    version: t.exposeInt("version"),
    effectiveAt: t.expose("effectiveAt", { type: "DateTime", description: "From when payouts are checked against it" }),
    source: t.exposeString("source", { description: "The public source the rules come from" }),
    schema: t.field({
      type: "JSON",
      description: "JSON Schema 2020-12 of the dry-run body (amount, payout_method, purpose_of_remittance, sender, beneficiary, documents)",
      resolve: (v) => v.schema,
    }),
  }),
});

type RequirementsShape = { corridorId: string; requirements: VersionShape | null; futureRequirements: VersionShape | null };
const CorridorRequirements = builder.objectRef<RequirementsShape>("CorridorRequirements").implement({
  fields: (t) => ({
    corridorId: t.exposeID("corridorId"),
    requirements: t.field({ type: RequirementsVersion, nullable: true, description: "The version in effect now", resolve: (r) => r.requirements }),
    futureRequirements: t.field({
      type: RequirementsVersion,
      nullable: true,
      description: "A version imported to take effect later: build for it before its effectiveAt",
      resolve: (r) => r.futureRequirements,
    }),
  }),
});

const ValidateBeneficiaryInput = builder.inputType("ValidateBeneficiaryInput", {
  fields: (t) => ({
    corridorId: t.id({ required: true }),
    amount: t.field({ type: "MinorUnits", description: "In minor units of the corridor's currency" }),
    payoutMethod: t.string({ description: "One of the requirements' payout methods (e.g. iban, account_number); left out: the first that fits" }),
    purposeOfRemittance: t.string({ description: "A purpose code of the corridor's requirements" }),
    sender: t.field({ type: "JSON", description: "The sender's fields, as the requirements' schema names them" }),
    beneficiary: t.field({ type: "JSON", description: "The beneficiary's fields, as the requirements' schema names them" }),
    documents: t.field({ type: "JSON", description: "The documents the requirements ask for above an amount" }),
  }),
});

type ValidatedShape = { corridorId: string; requirementsVersion: number; payout: object };
const ValidatedPayout = builder.objectRef<ValidatedShape>("ValidatedPayout").implement({
  description: "A payout that meets the corridor's requirements, normalised (codes upper case, IBAN without spaces, phone E.164, institution resolved)",
  fields: (t) => ({
    corridorId: t.exposeID("corridorId"),
    requirementsVersion: t.exposeInt("requirementsVersion"),
    payout: t.field({ type: "JSON", resolve: (v) => v.payout }),
  }),
});

/** The input's top-level names as the requirements' schema spells them (sender and beneficiary come as given); nulls left out. */
const specNames = (input: Record<string, unknown>) => {
  const names: Record<string, string> = { payoutMethod: "payout_method", purposeOfRemittance: "purpose_of_remittance" };
  return Object.fromEntries(
    Object.entries(input)
      .filter(([, v]) => v != null)
      .map(([k, v]) => [names[k] ?? k, v]),
  );
};

builder.queryFields((t) => ({
  corridorRequirements: t.field({
    type: CorridorRequirements,
    authScopes: lookups,
    description: "What a valid payout on the corridor is, as JSON Schema: now, and the next version if one is imported",
    args: {
      corridorId: t.arg.id({ required: true }),
      payoutMethod: t.arg.string({ description: "Only this payout method" }),
      amount: t.arg({ type: "MinorUnits", description: "Resolve the conditions that depend on the amount" }),
    },
    resolve: (_root, args, ctx) =>
      corridorRequirements(ctx, { corridorId: String(args.corridorId), payoutMethod: args.payoutMethod, amount: args.amount as number | null }),
  }),
  validateBeneficiary: t.field({
    type: ValidatedPayout,
    authScopes: lookups,
    description:
      "A dry run: the payout checked against the corridor's requirements in effect; BENEFICIARY_INVALID lists the problems (extensions.fields: field path and category; the first 20, the rest counted in extensions.errorsOmitted)",
    args: { input: t.arg({ type: ValidateBeneficiaryInput, required: true }) },
    resolve: (_root, { input: { corridorId, ...payout } }, ctx) => validateBeneficiary(ctx, { corridorId: String(corridorId), payout: specNames(payout) }),
  }),
}));

const CorridorChangeRef = builder.objectRef<CorridorChange>("CorridorChange").implement({
  description: "reference.corridor.updated: what changed in a corridor, as an RFC 6902 JSON Patch",
  fields: (t) => ({
    corridorId: t.exposeID("corridorId"),
    change: t.exposeString("change", { description: "corridor (limits, status, …) or requirements (a version)" }),
    version: t.exposeInt("version", { nullable: true }),
    previousVersion: t.exposeInt("previousVersion", { nullable: true }),
    effectiveAt: t.field({ type: "DateTime", resolve: (c) => new Date(c.effectiveAt) }),
    diff: t.field({ type: "JSON", resolve: (c) => c.diff }),
  }),
});

builder.subscriptionField("corridorUpdated", (t) =>
  t.field({
    type: CorridorChangeRef,
    authScopes: lookups,
    description: "Each change of a corridor's limits, status or requirements (reference.corridor.updated)",
    subscribe: (_root, _args, ctx) => ctx.events.subscribe("reference.corridor.updated", tenantOf(ctx)),
    resolve: (change) => change,
  }),
);

/**
 * Payout requirements and the beneficiary dry run, served from the in-memory payout catalogue
 * (remittance.catalogue.ts): a validation makes no database round trip.
 *
 * Which version is in effect is judged by the caller's clock (`ctx.now()`): a sandbox client whose
 * clock runs ahead sees a future version take effect.
 */
import type { RequestContext } from "../../context.js";
import { DomainError, invalid, namesOf, notFound } from "../../lib/errors.js";
import { corridorJsonSchema } from "./requirements/requirements.json-schema.js";
import type { RequirementRow } from "./requirements/requirements.spec.js";
import { validatePayout } from "./requirements/beneficiary.validate.js";

/** The version in effect at `now` (the highest whose effective_at passed) and the next one to come. */
function versionsAt(rows: readonly RequirementRow[], now: Date) {
  const current = rows.filter((r) => r.effectiveAt <= now).at(-1) ?? null;
  const future = rows.find((r) => r.effectiveAt > now && (!current || r.version > current.version)) ?? null;
  return { current, future };
}

export async function corridorOf(ctx: RequestContext, corridorId: string) {
  const catalogue = await ctx.payouts.read();
  const corridor = catalogue.corridors.get(corridorId);
  if (!corridor) throw notFound("corridor");
  return { catalogue, corridor, ...versionsAt(catalogue.requirements.get(corridorId) ?? [], ctx.now()) };
}

export type RequirementsArgs = { corridorId: string; payoutMethod?: string | null; amount?: number | null };

/** GET …/corridors/{id}/requirements: the version in effect as JSON Schema, and the next one if imported. */
export async function corridorRequirements(ctx: RequestContext, args: RequirementsArgs) {
  const { catalogue, corridor, current, future } = await corridorOf(ctx, args.corridorId);
  const options = {
    ...(args.payoutMethod ? { payoutMethod: args.payoutMethod } : {}),
    ...(args.amount != null ? { amount: args.amount } : {}),
    institutions: catalogue.index.activeInstitutions(corridor.receivingCountry, corridor.receivingInstitutionType),
  };
  const answer = (row: RequirementRow) => ({
    version: row.version,
    effectiveAt: row.effectiveAt,
    source: row.source,
    schema: catalogue.schemaOf(`${row.corridorId}/${row.version}/${args.payoutMethod ?? ""}/${args.amount ?? ""}`, () =>
      corridorJsonSchema(corridor, row.spec, options),
    ),
  });
  if (!current && !future) throw new DomainError("NOT_FOUND", "The corridor publishes no payout requirements.");
  return { corridorId: corridor.id, requirements: current && answer(current), futureRequirements: future && answer(future) };
}

/** The corridor and the payout as the requirements' schema names its fields (snake_case). */
export type ValidateInput = { corridorId: string; payout: Record<string, unknown> };

/**
 * POST …/beneficiaries/validate: the payout checked against the requirements in effect; the
 * normalised payout, or BENEFICIARY_INVALID (422) naming its errors by path and category (the first
 * MAX_LISTED_PROBLEMS; `errorsOmitted` counts the rest).
 */
export async function validateBeneficiary(ctx: RequestContext, { corridorId, payout }: ValidateInput) {
  if (!corridorId) throw invalid([{ field: "corridorId", code: "required", message: "corridor_id is required." }]);
  const { catalogue, corridor, current } = await corridorOf(ctx, corridorId);
  if (!current) throw new DomainError("NOT_FOUND", "The corridor has no payout requirements in effect yet.");
  if (corridor.status !== "ACTIVE") throw new DomainError("CORRIDOR_INACTIVE", `The corridor ${corridor.id} is ${corridor.status}: it takes no payouts.`);
  const checked = validatePayout({ corridor, spec: current.spec, body: payout }, catalogue.index);
  if (!checked.ok) {
    const { errors, omitted } = checked;
    const count = errors.length + omitted;
    const fields = errors.map((e) => ({ field: e.path, code: e.category, message: e.message }));
    const named = namesOf(fields, omitted, (f) => `${f.field} (${f.code})`);
    throw new DomainError(
      "BENEFICIARY_INVALID",
      `${count} problem${count === 1 ? "" : "s"} with the payout: ${named}.`,
      fields,
      omitted ? { errorsOmitted: omitted } : undefined,
    );
  }
  return { corridorId: corridor.id, requirementsVersion: current.version, payout: payoutView(checked.value) };
}

type Normalised = Extract<ReturnType<typeof validatePayout>, { ok: true }>["value"];
/** The normalised payout in the API's snake_case names (it goes out as JSON, unrenamed, on REST and GraphQL alike). */
const payoutView = (p: Normalised) => ({
  corridor_id: p.corridorId,
  amount: p.amount,
  currency: p.currency,
  payout_method: p.payoutMethod,
  purpose_of_remittance: p.purposeOfRemittance,
  sender: p.sender,
  beneficiary: p.beneficiary,
  institution: p.institution,
  branch: p.branch,
  documents: p.documents.map((d) => ({ requirement: d.requirement, document_id: d.documentId })),
});

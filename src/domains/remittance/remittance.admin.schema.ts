/**
 * Operator mutations (the operator key alone) that create or replace one reference row by id. They run the
 * checks and the write of a one-row import (remittance.import.ts), so both paths agree. Inputs take
 * the same enums the queries return (`status: INACTIVE`), so a value read can be written back.
 */
import { OPERATOR_ONLY } from "../../principal.js";
import { builder } from "../../graphql/builder.js";
import { BeneficiaryTypeEnum, InstitutionTypeEnum, StatusEnum } from "./remittance.enums.js";
import { upsertReferenceRow } from "./remittance.import.js";
import { getBranch, getCorridor, getInstitution } from "./remittance.service.js";

const DeliveryEstimateInput = builder.inputType("DeliveryEstimateInput", {
  fields: (t) => ({ minHours: t.int({ required: true }), maxHours: t.int({ required: true }), description: t.string({ required: true }) }),
});

const UpsertCorridorInput = builder.inputType("UpsertCorridorInput", {
  description: "A whole corridor, created or replaced by id",
  fields: (t) => ({
    id: t.id({ required: true }),
    receivingCountry: t.string({ required: true, description: "alpha-2, alpha-3 or English name" }),
    receivingCurrency: t.string({ required: true }),
    receivingInstitutionType: t.field({ type: InstitutionTypeEnum, required: true }),
    minAmount: t.field({ type: "MinorUnits", required: true }),
    maxAmount: t.field({ type: "MinorUnits", required: true }),
    deliveryEstimate: t.field({ type: DeliveryEstimateInput, required: true }),
    requiredFields: t.stringList({ required: true }),
    userTypes: t.field({ type: [BeneficiaryTypeEnum], description: "Left out, both" }),
    status: t.field({ type: StatusEnum, description: "ACTIVE when left out" }),
  }),
});

const UpsertReceivingInstitutionInput = builder.inputType("UpsertReceivingInstitutionInput", {
  description: "A whole receiving institution, created or replaced by id",
  fields: (t) => ({
    id: t.id({ required: true }),
    name: t.string({ required: true }),
    type: t.field({ type: InstitutionTypeEnum, required: true }),
    country: t.string({ required: true }),
    bic: t.string(),
    localCode: t.string(),
    localCodeType: t.string(),
    status: t.field({ type: StatusEnum, description: "ACTIVE when left out" }),
    source: t.string({ description: "Where the row's facts come from" }),
  }),
});

const UpsertBranchInput = builder.inputType("UpsertBranchInput", {
  description: "A whole branch, created or replaced by id",
  fields: (t) => ({
    id: t.id({ required: true }),
    institutionId: t.id({ required: true }),
    name: t.string({ required: true }),
    code: t.string({ required: true }),
    city: t.string(),
    address: t.string(),
  }),
});

const admin = { scope: OPERATOR_ONLY };
const plain = <T extends object>(input: T) => ({ ...input }) as Record<string, unknown>;

builder.mutationFields((t) => ({
  upsertCorridor: t.prismaField({
    type: "Corridor",
    authScopes: admin,
    args: { input: t.arg({ type: UpsertCorridorInput, required: true }) },
    resolve: async (query, _root, { input }, ctx) => getCorridor(ctx.db, await upsertReferenceRow(ctx, ctx, "corridor", plain(input)), query),
  }),
  upsertReceivingInstitution: t.prismaField({
    type: "ReceivingInstitution",
    authScopes: admin,
    args: { input: t.arg({ type: UpsertReceivingInstitutionInput, required: true }) },
    resolve: async (query, _root, { input }, ctx) => getInstitution(ctx.db, await upsertReferenceRow(ctx, ctx, "institution", plain(input)), query),
  }),
  upsertBranch: t.prismaField({
    type: "Branch",
    authScopes: admin,
    args: { input: t.arg({ type: UpsertBranchInput, required: true }) },
    resolve: async (query, _root, { input }, ctx) => getBranch(ctx.db, await upsertReferenceRow(ctx, ctx, "branch", plain(input)), query),
  }),
}));

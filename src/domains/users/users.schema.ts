/** GraphQL for users: the User type, user(id), users (connection), createUser, updateUser. */
import { KycStatus, RiskLevel, UserStatus } from "../../../generated/prisma/enums.js";
import { builder, type SchemaTypes } from "../../graphql/builder.js";
import { costs } from "../../graphql/cost.js";
import { listResolver, withTotalCount } from "../../graphql/paging.js";
import { ownColumns, plannedQuery } from "../../graphql/planned-query.js";
import { DomainError } from "../../lib/errors.js";
import { etagOf, type Address } from "./users.rules.js";
import { maskTail } from "../../lib/masking.js";
import { REQUIREMENT_COLUMNS, requirementsNow } from "../compliance/compliance.service.js";
import type { Requirements as RequirementsShape } from "../compliance/compliance.rules.js";
import { ASSESSED_CHECKS, riskAssessmentStatus } from "../checks/checks.rules.js";
import { countUsers, getUser, listUsers, USER_SORTS, type UserFilters } from "./users.service.js";
import { signUp } from "../../flows/sign-up.js";
import { updateUser } from "../../flows/update-user.js";

export const UserStatusEnum = builder.enumType(UserStatus, { name: "UserStatus" });
builder.enumType(KycStatus, { name: "KycStatus" });
builder.enumType(RiskLevel, { name: "RiskLevel" });
const RiskAssessmentStatus = builder.enumType("RiskAssessmentStatus", { values: ["UNKNOWN", "PENDING", "CLEARED", "REJECTED"] as const });

const AddressRef = builder.objectRef<Address>("Address").implement({
  fields: (t) => ({
    line1: t.exposeString("line1"),
    line2: t.exposeString("line2", { nullable: true }),
    city: t.exposeString("city"),
    state: t.exposeString("state", { nullable: true }),
    postalCode: t.exposeString("postalCode", { nullable: true }),
    country: t.exposeString("country"),
  }),
});

const FieldErrorRef = builder.objectRef<{ field: string; code: string; message: string }>("FieldError").implement({
  fields: (t) => ({ field: t.exposeString("field"), code: t.exposeString("code"), message: t.exposeString("message") }),
});

const Requirements = builder.objectRef<RequirementsShape>("Requirements").implement({
  description: "What the user owes under the rule set in force for its country_of_residence, as REST field names; eventuallyDue includes currentlyDue",
  fields: (t) => ({
    currentlyDue: t.exposeStringList("currentlyDue"),
    eventuallyDue: t.exposeStringList("eventuallyDue"),
    // the rule set's format and age rules: a postal code, a tax id, a date of birth
    errors: t.field({ type: [FieldErrorRef], extensions: costs({ listSize: 3 }), resolve: (r) => r.errors }),
  }),
});

export const User = builder.prismaObject("User", {
  fields: (t) => ({
    id: t.exposeID("id"),
    externalId: t.exposeString("externalId", { nullable: true }),
    email: t.exposeString("email", { nullable: true }),
    phoneNumber: t.exposeString("phoneNumber", { nullable: true }),
    firstName: t.exposeString("firstName", { nullable: true }),
    middleName: t.exposeString("middleName", { nullable: true }),
    lastName: t.exposeString("lastName", { nullable: true }),
    dateOfBirth: t.expose("dateOfBirth", { type: "Date", nullable: true }),
    nationality: t.exposeString("nationality", { nullable: true }),
    countryOfResidence: t.exposeString("countryOfResidence", { nullable: true }),
    residentialAddress: t.field({
      type: AddressRef,
      nullable: true,
      extensions: ownColumns({ residentialAddress: true }),
      resolve: (u) => u.residentialAddress as Address | null,
    }),
    billingAddress: t.field({
      type: AddressRef,
      nullable: true,
      extensions: ownColumns({ billingAddress: true }),
      resolve: (u) => u.billingAddress as Address | null,
    }),
    taxId: t.string({
      nullable: true,
      description: "Masked: only the last four characters are shown",
      extensions: ownColumns({ taxIdLast4: true }),
      resolve: (u) => maskTail(u.taxIdLast4),
    }),
    locale: t.exposeString("locale", { nullable: true }),
    status: t.expose("status", { type: UserStatus }),
    kycStatus: t.expose("kycStatus", { type: KycStatus }),
    riskLevel: t.expose("riskLevel", { type: RiskLevel, nullable: true }),
    riskScore: t.exposeInt("riskScore", { nullable: true }),
    riskAssessmentStatus: t.field({
      type: RiskAssessmentStatus,
      description:
        "From the verdict on each check type (its latest run, or the decision by a person or a provider that stands): UNKNOWN, PENDING, CLEARED or REJECTED",
      select: { checks: ASSESSED_CHECKS },
      resolve: (u) => riskAssessmentStatus(u.checks),
    }),
    emailVerified: t.exposeBoolean("emailVerified"),
    phoneVerified: t.exposeBoolean("phoneVerified"),
    pendingEmail: t.exposeString("pendingEmail", { nullable: true }),
    pendingPhoneNumber: t.exposeString("pendingPhoneNumber", { nullable: true }),
    requirements: t.field({
      type: Requirements,
      select: REQUIREMENT_COLUMNS,
      resolve: (u, _args, ctx) => requirementsNow(ctx, u, ctx.now()),
    }),
    etag: t.string({
      description: "Send as If-Match to update only what you read",
      extensions: ownColumns({ id: true, version: true }),
      resolve: (u) => etagOf(u),
    }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
  }),
});

const AddressInput = builder.inputType("AddressInput", {
  fields: (t) => ({
    line1: t.string({ required: true }),
    line2: t.string(),
    city: t.string({ required: true }),
    state: t.string(),
    postalCode: t.string(),
    country: t.string({ required: true }),
  }),
});

/** The user's fields; a new user's names are required (the rest of what is required is the rules' and the country's). */
const userFields = (t: PothosSchemaTypes.InputFieldBuilder<SchemaTypes, "InputObject">, creating = false) => ({
  externalId: t.string(),
  email: t.string(),
  phoneNumber: t.string({ description: "E.164, e.g. +6591234567" }),
  firstName: t.string({ required: creating }),
  middleName: t.string(),
  lastName: t.string({ required: creating }),
  dateOfBirth: t.field({ type: "Date" }),
  nationality: t.string(),
  countryOfResidence: t.string(),
  residentialAddress: t.field({ type: AddressInput }),
  billingAddress: t.field({ type: AddressInput }),
  taxId: t.string({ description: "Stored encrypted; read back masked" }),
  locale: t.string(),
});

const CreateUserInput = builder.inputType("CreateUserInput", {
  description: "A new user: first and last name, and an email or a phone number (or both)",
  // users.rules.ts checks it; OpenAPI states it (rest/openapi-schemas.ts)
  extensions: { atLeastOneOf: ["email", "phoneNumber"] },
  fields: (t) => userFields(t, true),
});
const UpdateUserInput = builder.inputType("UpdateUserInput", {
  description: "Partial update: given fields replace, absent ones stay, null clears an optional one",
  fields: (t) => ({
    id: t.id({ required: true }),
    ifMatch: t.string({ description: "The ETag you read; a stale one fails with PRECONDITION_FAILED" }),
    status: t.field({ type: UserStatusEnum, description: "Only CLOSED may be set by a caller" }),
    ...userFields(t),
  }),
});

const AddressTypeEnum = builder.enumType("AddressType", { values: ["RESIDENTIAL", "BILLING"] as const });
const UpdateUserAddressInput = builder.inputType("UpdateUserAddressInput", {
  description: "Replaces one of the user's addresses (the v1 address routes); the same rules as updateUser",
  fields: (t) => ({
    id: t.id({ required: true }),
    type: t.field({ type: AddressTypeEnum, required: true }),
    address: t.field({ type: AddressInput, required: true }),
  }),
});

builder.queryFields((t) => ({
  // the hot read: Pothos's query planned once per document (graphql/planned-query.ts), not per request
  user: t.field({
    type: User,
    authScopes: { scope: "users:read" },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx, info) => getUser(ctx, String(id), plannedQuery(ctx, info) as never),
  }),
  users: t.connection(
    {
      type: User,
      authScopes: { scope: "users:read" },
      args: {
        email: t.arg.string(),
        externalId: t.arg.string(),
        status: t.arg({ type: UserStatusEnum }),
        sortFields: t.arg.string({ description: `${Object.keys(USER_SORTS).join(" | ")}; newest first when not given` }),
        sortOrder: t.arg.string({ description: "ASC | DESC" }),
      },
      resolve: listResolver<UserFilters>(
        "User",
        (ctx, args, query) => ({
          count: () => countUsers(ctx, args),
          page: (window) => listUsers(ctx, args, window, query),
        }),
        { narrow: true },
      ), // listUsers hands the query to Prisma and reads nothing else off the rows
    },
    withTotalCount("UserConnection"),
  ),
}));

builder.mutationFields((t) => ({
  createUser: t.prismaField({
    type: "User",
    authScopes: { scope: "users:write" },
    args: { input: t.arg({ type: CreateUserInput, required: true }) },
    resolve: (query, _root, { input }, ctx) => signUp(ctx, input, query),
  }),
  updateUser: t.prismaField({
    type: "User",
    authScopes: { scope: "users:write" },
    args: { input: t.arg({ type: UpdateUserInput, required: true }) },
    resolve: (query, _root, { input }, ctx) => updateUser(ctx, { ...input, id: String(input.id) }, query),
  }),
  updateUserAddress: t.prismaField({
    type: "User",
    authScopes: { scope: "users:write" },
    args: { input: t.arg({ type: UpdateUserAddressInput, required: true }) },
    resolve: (query, _root, { input }, ctx) => {
      const field = input.type === "BILLING" ? "billingAddress" : "residentialAddress";
      return updateUser(ctx, { id: String(input.id), [field]: input.address }, query).catch(renameFields(field, "address"));
    },
  }),
}));

/** A field error about `residentialAddress.city` is about `address.city` to a caller who sent `address`. */
const renameFields =
  (from: string, to: string) =>
  (error: unknown): never => {
    if (error instanceof DomainError && error.fields)
      throw new DomainError(
        error.code,
        error.message.replaceAll(from, to),
        error.fields.map((f) => ({
          ...f,
          field: f.field.startsWith(from) ? to + f.field.slice(from.length) : f.field,
          message: f.message.replaceAll(from, to),
        })),
        error.meta,
      );
    throw error;
  };

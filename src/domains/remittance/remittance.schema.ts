/**
 * GraphQL for remittance lookups: Country, Currency, Corridor, ReceivingInstitution and
 * Branch; the countries, currencies, corridors, corridor(id), receivingInstitutions and branches
 * queries; and the operator's upsert mutations. Filter arguments are strings checked by
 * remittance.rules.ts, so REST's case-insensitive values (`mobile-wallet`, `active`) work here too;
 * results carry the enums. Nested objects load through Pothos selections (one batched statement per
 * level) and corridor → institutions through a per-request DataLoader.
 */
import type { ArgBuilder } from "@pothos/core";
import DataLoader from "dataloader";
import type { ReceivingInstitution } from "../../../generated/prisma/client.js";
import type { RequestContext } from "../../context.js";
import type { Db } from "../../db/client.js";
import { builder, type SchemaTypes } from "../../graphql/builder.js";
import { costs } from "../../graphql/cost.js";
import { arrayConnection, listResolver, withTotalCount, type Found } from "../../graphql/paging.js";
import { arg, parseArgs, type InstitutionType, type Status, type UserType } from "./remittance.rules.js";
// the operator's mutations live in their own file, split only for length
import "./remittance.admin.schema.js";
import { BeneficiaryTypeEnum, InstitutionTypeEnum, StatusEnum } from "./remittance.enums.js";
import {
  findBranches,
  findCorridors,
  findCountries,
  findCurrencies,
  findInstitutions,
  getCorridor,
  institutionsByCorridor,
  SORTS,
} from "./remittance.service.js";

// the same relation selection for both fields, so Pothos loads it once
const ACTIVE_CORRIDORS = { corridors: { where: { status: "ACTIVE" as const }, select: { receivingInstitutionType: true } } };

const Country = builder.prismaObject("Country", {
  fields: (t) => ({
    id: t.exposeID("code", { description: "ISO 3166-1 alpha-2, as countryCode" }),
    countryCode: t.exposeString("code"),
    alpha3Code: t.exposeString("alpha3"),
    countryName: t.exposeString("name"),
    payoutDestination: t.boolean({ description: "An ACTIVE corridor pays out here", select: ACTIVE_CORRIDORS, resolve: (c) => c.corridors.length > 0 }),
    institutionTypes: t.field({
      type: [InstitutionTypeEnum],
      description: "The types of the country's ACTIVE corridors",
      select: ACTIVE_CORRIDORS,
      resolve: (c) => [...new Set(c.corridors.map((x) => x.receivingInstitutionType))].sort(),
    }),
  }),
});

const Currency = builder.prismaObject("Currency", {
  fields: (t) => ({
    id: t.exposeID("code", { description: "ISO 4217 code, as currencyCode" }),
    currencyCode: t.exposeString("code"),
    currencyName: t.exposeString("name"),
    minorUnits: t.exposeInt("minorUnits", { nullable: true }),
    symbol: t.exposeString("symbol", { nullable: true }),
    status: t.expose("status", { type: StatusEnum, description: "INACTIVE: funds, metals and units of account, never paid out" }),
    // ISO 4217: the euro's 36 countries are the most of any currency
    countries: t.field({
      type: [Country],
      extensions: costs({ listSize: 40 }),
      select: (_args, _ctx, nested) => ({ countries: { select: { country: nested(true) }, orderBy: { countryCode: "asc" } } }),
      resolve: (c) => c.countries.map((link) => link.country),
    }),
  }),
});

// added after Currency exists: the two types refer to each other
// ISO 4217: no country has more than three (CHF, CHE, CHW)
builder.prismaObjectField(Country, "currencies", (t) =>
  t.field({
    type: [Currency],
    extensions: costs({ listSize: 4 }),
    select: (_args, _ctx, nested) => ({ currencies: { select: { currency: nested(true) }, orderBy: { currencyCode: "asc" } } }),
    resolve: (c) => c.currencies.map((link) => link.currency),
  }),
);

const DeliveryEstimate = builder.objectRef<{ minHours: number; maxHours: number; description: string }>("DeliveryEstimate").implement({
  fields: (t) => ({ minHours: t.exposeInt("minHours"), maxHours: t.exposeInt("maxHours"), description: t.exposeString("description") }),
});

const Institution = builder.prismaObject("ReceivingInstitution", {
  fields: (t) => ({
    id: t.exposeID("id"),
    name: t.exposeString("name"),
    type: t.expose("type", { type: InstitutionTypeEnum }),
    country: t.exposeString("countryCode", { description: "ISO 3166-1 alpha-2" }),
    bic: t.exposeString("bic", { nullable: true }),
    localCode: t.exposeString("localCode", { nullable: true, description: "e.g. the IFSC prefix, NIBSS code or CLABE bank code" }),
    localCodeType: t.exposeString("localCodeType", { nullable: true }),
    hasBranches: t.exposeBoolean("hasBranches"),
    status: t.expose("status", { type: StatusEnum }),
  }),
});

/** One loader per request: every corridor's institutions in one statement. */
const institutionLoaders = new WeakMap<object, DataLoader<{ country: string; type: InstitutionType }, ReceivingInstitution[], string>>();
function institutionsOf(ctx: RequestContext, country: string, type: InstitutionType) {
  let loader = institutionLoaders.get(ctx);
  if (!loader)
    institutionLoaders.set(ctx, (loader = new DataLoader((keys) => institutionsByCorridor(ctx.db, keys), { cacheKeyFn: (k) => `${k.country}:${k.type}` })));
  return loader.load({ country, type });
}

const Corridor = builder.prismaObject("Corridor", {
  fields: (t) => ({
    id: t.exposeID("id"),
    receivingCountry: t.exposeString("receivingCountry", { description: "ISO 3166-1 alpha-2" }),
    receivingCurrency: t.exposeString("receivingCurrency", { description: "ISO 4217" }),
    receivingInstitutionType: t.expose("receivingInstitutionType", { type: InstitutionTypeEnum }),
    minAmount: t.field({ type: "MinorUnits", description: "In minor units of receivingCurrency", resolve: (c) => c.minAmount }),
    maxAmount: t.field({ type: "MinorUnits", description: "In minor units of receivingCurrency", resolve: (c) => c.maxAmount }),
    deliveryEstimate: t.field({
      type: DeliveryEstimate,
      resolve: (c) => ({ minHours: c.deliveryMinHours, maxHours: c.deliveryMaxHours, description: c.deliveryDescription }),
    }),
    requiredFields: t.exposeStringList("requiredFields", { description: "Beneficiary fields the payout needs, snake_case" }),
    userTypes: t.field({ type: [BeneficiaryTypeEnum], resolve: (c) => c.userTypes as UserType[] }),
    status: t.expose("status", { type: StatusEnum }),
    country: t.relation("country"),
    currency: t.relation("currency"),
    // paged like every list; the loader still reads every corridor's institutions in one statement
    institutions: t.connection(
      {
        type: Institution,
        description: "Institutions of the corridor's country and type, by name",
        args: { status: t.arg.string({ description: "ACTIVE | INACTIVE" }) },
        resolve: async (c, args, ctx) => {
          const { status } = parseArgs<{ status: Status }>({ status: args.status }, { status: arg.status });
          const rows = await institutionsOf(ctx, c.receivingCountry, c.receivingInstitutionType);
          return arrayConnection(args, status ? rows.filter((r) => r.status === status) : rows) as never;
        },
      },
      withTotalCount("CorridorInstitutionConnection"),
    ),
  }),
});

const Branch = builder.prismaObject("Branch", {
  fields: (t) => ({
    id: t.exposeID("id"),
    code: t.exposeString("code", { description: "Local branch code, e.g. an IFSC" }),
    name: t.exposeString("name"),
    city: t.exposeString("city", { nullable: true }),
    address: t.exposeString("address", { nullable: true }),
    institution: t.relation("institution"),
  }),
});

// ── queries ──

/** The lookups read global reference data: the services take the database, not the tenant. */
const connection = <A>(typeName: string, find: (db: Db, args: A, query: never) => Found) =>
  listResolver<A>(typeName, (ctx, args, query) => find(ctx.db, args, query));
const lookups = { scope: "lookups:read" };
const TYPES = "BANK | MOBILE_WALLET | CASH_PICKUP | CARDS, any case, `-` or `_`";
const COUNTRY = "alpha-2, alpha-3 or English name, any case";
const STATUS = "ACTIVE | INACTIVE, any case";
/** sort_fields + sort_order, the same two arguments on every list */
const sortArgs = (t: { arg: ArgBuilder<SchemaTypes> }, list: keyof typeof SORTS) => ({
  sortFields: t.arg.string({ description: Object.keys(SORTS[list]).join(" | ") }),
  sortOrder: t.arg.string({ description: "ASC | DESC" }),
});

builder.queryFields((t) => ({
  countries: t.connection(
    {
      type: Country,
      authScopes: lookups,
      description: "ISO countries; every filter but destinationCountryCode keeps those with a corridor matching all of them",
      args: {
        destinationCountryCode: t.arg.stringList({ description: `${COUNTRY}; each item may be a comma list` }),
        receivingInstitutionType: t.arg.string({ description: TYPES }),
        userType: t.arg.string({ description: "INDIVIDUAL | BUSINESS" }),
        status: t.arg.string({ description: STATUS }),
        ...sortArgs(t, "country"),
      },
      resolve: connection("Country", findCountries),
    },
    withTotalCount("CountryConnection"),
  ),
  currencies: t.connection(
    {
      type: Currency,
      authScopes: lookups,
      args: {
        search: t.arg.string({ description: "Code or name (case- and accent-insensitive), or a country (alpha-2, alpha-3, name)" }),
        status: t.arg.string({ description: STATUS }),
        sort: t.arg.string({ description: "code | name | -code | -name: the older spelling of sortFields + sortOrder" }),
        ...sortArgs(t, "currency"),
      },
      resolve: connection("Currency", findCurrencies),
    },
    withTotalCount("CurrencyConnection"),
  ),
  corridors: t.connection(
    {
      type: Corridor,
      authScopes: lookups,
      args: {
        id: t.arg.id(),
        receivingCountry: t.arg.string({ description: COUNTRY }),
        receivingCountryCode: t.arg.string({ description: COUNTRY }),
        receivingCurrency: t.arg.string({ description: "ISO 4217" }),
        receivingInstitutionType: t.arg.string({ description: TYPES }),
        userType: t.arg.string({ description: "INDIVIDUAL | BUSINESS" }),
        status: t.arg.string({ description: STATUS }),
        ...sortArgs(t, "corridor"),
      },
      resolve: connection("Corridor", (db, args: { id?: string | number | null }, query) =>
        findCorridors(db, { ...args, id: args.id == null ? null : String(args.id) }, query),
      ),
    },
    withTotalCount("CorridorConnection"),
  ),
  corridor: t.prismaField({
    type: "Corridor",
    authScopes: lookups,
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, { id }, ctx) => getCorridor(ctx.db, String(id), query),
  }),
  receivingInstitutions: t.connection(
    {
      type: Institution,
      authScopes: lookups,
      args: {
        receivingCountry: t.arg.string({ description: COUNTRY }),
        receivingInstitutionType: t.arg.string({ description: TYPES }),
        name: t.arg.string({ description: "Part of the name, case- and accent-insensitive" }),
        status: t.arg.string({ description: STATUS }),
        ...sortArgs(t, "institution"),
      },
      resolve: connection("ReceivingInstitution", findInstitutions),
    },
    withTotalCount("ReceivingInstitutionConnection"),
  ),
  branches: t.connection(
    {
      type: Branch,
      authScopes: lookups,
      description: "Branches of one institution; NOT_FOUND when it does not exist (or has another type)",
      args: {
        receivingInstitutionId: t.arg.id({ required: true }),
        receivingInstitutionType: t.arg.string({ description: TYPES }),
        name: t.arg.string({ description: "Part of the name" }),
        search: t.arg.string({ description: "Part of the name, code, city or address" }),
        city: t.arg.string({ description: "The whole city name, case- and accent-insensitive" }),
        ...sortArgs(t, "branch"),
      },
      resolve: connection("Branch", (db, args: { receivingInstitutionId: string | number }, query) =>
        findBranches(db, { ...args, receivingInstitutionId: String(args.receivingInstitutionId) }, query),
      ),
    },
    withTotalCount("BranchConnection"),
  ),
}));

/**
 * REST entries for the remittance lookups, with the seed's paths exactly as listed (its
 * `wallet` / `wallets` spellings included). Each runs one GraphQL query; lists answer with the
 * paging envelope, and every answer carries a body ETag and Cache-Control (reference data changes
 * rarely; `private` because it is served only to API keys).
 */
import { toCamel } from "../../lib/case.js";
import { bodyInput, queryVariables, restOperation, type PathLookup, type RestRequest, type Route } from "../../rest/route.js";
import { corridorOf } from "./remittance.payouts.js";
import { getInstitutionOfType } from "./remittance.service.js";

export const LOOKUP_CACHE_CONTROL = "private, max-age=300";
/** served from memory this long; an admin change clears it at once (rest/shared-cache.ts) */
const SHARED_CACHE_MS = 60_000;
const CORRIDOR =
  "id receivingCountry receivingCurrency receivingInstitutionType minAmount maxAmount deliveryEstimate { minHours maxHours description } requiredFields userTypes status";
const VERSION = "version effectiveAt source schema";
const REQUIREMENTS = `corridorId requirements { ${VERSION} } futureRequirements { ${VERSION} }`;
/** Each REST item's fields, written in GraphQL's camelCase (restOperation aliases them to snake_case). */
export const LOOKUP_FIELDS = {
  institution: "id name type country bic localCode localCodeType hasBranches status",
  corridor: CORRIDOR,
  corridorDetails: `${CORRIDOR} country { countryCode alpha3Code countryName } currency { currencyCode currencyName minorUnits symbol status }`,
  country: "countryCode alpha3Code countryName currencies { currencyCode currencyName } payoutDestination institutionTypes",
  currency: "currencyCode currencyName minorUnits symbol status countries { countryCode countryName }",
  branch: "id code name city address",
};

/** The corridor a path names, from the process's catalogue (no query). */
const corridor: PathLookup = (ctx, params) => corridorOf(ctx, params.id);

/** every list sorts by sort_fields + sort_order (the vendor's names) */
const SORT = { sort_fields: "String", sort_order: "String" };

type Lookup = {
  path: string;
  summary: string;
  field: string;
  nodes: string;
  /** query parameters (snake_case) → GraphQL variable types; the variable is the camelCase name */
  query: Record<string, string>;
  /** path parameters → [variable, type] */
  params?: Record<string, [string, string]>;
  /** what the path names; left out, its parameters narrow the list */
  lookup?: PathLookup;
};

/** A list lookup: the connection query with every filter as a variable, paged by the shim. */
function list({ path, summary, field, nodes, query, params = {}, lookup }: Lookup): Route {
  const vars: Record<string, string> = {
    first: "Int",
    after: "String",
    ...Object.fromEntries(Object.entries(query).map(([k, t]) => [toCamel(k), t])),
    ...Object.fromEntries(Object.values(params)),
  };
  const declared = Object.entries(vars)
    .map(([name, type]) => `$${name}: ${type}`)
    .join(", ");
  const passed = Object.keys(vars)
    .map((name) => `${name}: $${name}`)
    .join(", ");
  return {
    method: "GET",
    path,
    summary,
    scope: "lookups:read",
    cacheControl: LOOKUP_CACHE_CONTROL,
    sharedCacheMs: SHARED_CACHE_MS,
    list: true,
    field,
    queryParams: Object.keys(query),
    ...(Object.keys(params).length ? { lookup: lookup ?? "filters" } : {}),
    operation: restOperation(
      `query ${field[0].toUpperCase()}${field.slice(1)}(${declared}) { ${field}(${passed}) { totalCount edges { node { ${nodes} } } } }`,
    ),
    variables: (req: RestRequest) => ({
      ...queryVariables(req, Object.keys(query)),
      ...Object.fromEntries(Object.entries(params).map(([param, [name]]) => [name, req.params[param]])),
    }),
  };
}

export const remittanceRoutes: Route[] = [
  list({
    path: "/users/wallets/payouts/remittances/corridors/{receiving_country}/institutions/{receiving_institution_type}",
    summary: "Receiving institutions of a country and institution type",
    field: "receivingInstitutions",
    nodes: LOOKUP_FIELDS.institution,
    query: { name: "String", status: "String", ...SORT },
    params: { receiving_country: ["receivingCountry", "String"], receiving_institution_type: ["receivingInstitutionType", "String"] },
  }),
  list({
    path: "/users/wallets/payouts/remittances/{receiving_institution_type}/branches/{receiving_institution_id}",
    summary: "Branches of a receiving institution",
    field: "branches",
    nodes: LOOKUP_FIELDS.branch,
    query: { name: "String", search: "String", city: "String", ...SORT },
    params: { receiving_institution_type: ["receivingInstitutionType", "String"], receiving_institution_id: ["receivingInstitutionId", "ID!"] },
    lookup: (ctx, params) => getInstitutionOfType(ctx.db, params.receiving_institution_id, params.receiving_institution_type),
  }),
  list({
    path: "/payouts/remittances/utilities/countries",
    summary: "Countries, narrowed to payout destinations by the filters",
    field: "countries",
    nodes: LOOKUP_FIELDS.country,
    query: { destination_country_code: "[String!]", receiving_institution_type: "String", user_type: "String", status: "String", ...SORT },
  }),
  list({
    path: "/payouts/remittances/utilities/currencies",
    summary: "ISO 4217 currencies, searchable by code, name or country",
    field: "currencies",
    nodes: LOOKUP_FIELDS.currency,
    query: { search: "String", status: "String", sort: "String", ...SORT },
  }),
  list({
    path: "/users/wallet/payouts/remittances/corridors",
    summary: "Payout corridors",
    field: "corridors",
    nodes: LOOKUP_FIELDS.corridor,
    query: {
      id: "ID",
      receiving_country: "String",
      receiving_country_code: "String",
      receiving_currency: "String",
      receiving_institution_type: "String",
      user_type: "String",
      status: "String",
      ...SORT,
    },
  }),
  list({
    path: "/users/wallets/payouts/remittances/corridors/{country}/details",
    summary: "A country's corridors with country and currency details",
    field: "corridors",
    nodes: LOOKUP_FIELDS.corridorDetails,
    query: { receiving_institution_type: "String", receiving_currency: "String", user_type: "String", status: "String", ...SORT },
    params: { country: ["receivingCountry", "String"] },
  }),
  {
    method: "GET",
    path: "/users/wallet/payouts/remittances/corridors/{id}",
    summary: "One corridor (404 when unknown)",
    scope: "lookups:read",
    cacheControl: LOOKUP_CACHE_CONTROL,
    sharedCacheMs: SHARED_CACHE_MS,
    operation: restOperation(`query Corridor($id: ID!) { corridor(id: $id) { ${LOOKUP_FIELDS.corridorDetails} } }`),
    lookup: corridor,
    variables: (req) => ({ id: req.params.id }),
    field: "corridor",
  },
  {
    method: "GET",
    path: "/v2/payouts/remittances/corridors/{id}/requirements",
    summary: "A corridor's payout requirements as JSON Schema 2020-12, and the next version if one is imported (future_requirements)",
    scope: "lookups:read",
    cacheControl: LOOKUP_CACHE_CONTROL,
    queryParams: ["payout_method", "amount"],
    operation: restOperation(
      `query CorridorRequirements($id: ID!, $payoutMethod: String, $amount: MinorUnits) { corridorRequirements(corridorId: $id, payoutMethod: $payoutMethod, amount: $amount) { ${REQUIREMENTS} } }`,
    ),
    lookup: corridor,
    variables: (req) => ({ id: req.params.id, ...queryVariables(req, ["payout_method", "amount"]) }),
    field: "corridorRequirements",
  },
  {
    method: "POST",
    path: "/v2/payouts/remittances/beneficiaries/validate",
    summary:
      "Dry run: check a payout (amount, sender, beneficiary) against the corridor's requirements; 422 BENEFICIARY_INVALID lists the problems (the first 20, the rest counted in errors_omitted)",
    scope: "lookups:read",
    operation: restOperation(
      `query ValidateBeneficiary($input: ValidateBeneficiaryInput!) { validateBeneficiary(input: $input) { corridorId requirementsVersion payout } }`,
    ),
    variables: (req) => ({ input: bodyInput(req) }),
    field: "validateBeneficiary",
  },
];

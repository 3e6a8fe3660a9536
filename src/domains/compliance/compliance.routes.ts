/** REST entry for the compliance rule sets: GET /v2/compliance/requirements?country=SG. */
import { queryVariables, restOperation, type Route } from "../../rest/route.js";

const COMPLIANCE_REST_FIELDS = `country currentlyDue eventuallyDue ruleSet { country version effectiveFrom name requiredFields eventuallyDueFields
  documents { name oneOf } formats { postalCode taxId } minimumAge phoneVerificationRequired emailVerificationRequired rescreeningIntervalDays notes }`;

export const complianceRoutes: Route[] = [
  {
    method: "GET",
    path: "/v2/compliance/requirements",
    summary: "What a user of a country owes (country: alpha-2 or alpha-3)",
    scope: "users:read",
    queryParams: ["country"],
    operation: restOperation(`query ComplianceRequirements($country: String!) { complianceRequirements(country: $country) { ${COMPLIANCE_REST_FIELDS} } }`),
    variables: (req) => queryVariables(req, ["country"]),
    field: "complianceRequirements",
  },
];

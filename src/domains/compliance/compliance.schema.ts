/** GraphQL for compliance: complianceRequirements(country), the rule set in force and what it asks of a new user. */
import { builder } from "../../graphql/builder.js";
import type { CompiledRuleSet } from "./compliance.rules.js";
import { countryRequirements } from "./compliance.service.js";

const DocumentGroup = builder.objectRef<{ name: string; one_of: string[] }>("ComplianceDocumentGroup").implement({
  description: "One ACTIVE, unexpired document of one of these types is needed (each group its own document)",
  fields: (t) => ({ name: t.exposeString("name"), oneOf: t.stringList({ resolve: (g) => g.one_of }) }),
});

const Formats = builder.objectRef<{ postal_code: string | null; tax_id: string | null }>("ComplianceFormats").implement({
  description: "Regular expressions, matched whole and case-insensitively; null when not checked",
  fields: (t) => ({
    postalCode: t.string({ nullable: true, resolve: (f) => f.postal_code }),
    taxId: t.string({ nullable: true, resolve: (f) => f.tax_id }),
  }),
});

const RuleSet = builder.objectRef<CompiledRuleSet>("ComplianceRuleSet").implement({
  description: "A country's rule set, versioned data from data/compliance",
  fields: (t) => ({
    country: t.exposeString("country", { description: "ISO 3166-1 alpha-2, or DEFAULT" }),
    version: t.exposeInt("version"),
    effectiveFrom: t.field({ type: "DateTime", resolve: (r) => r.effectiveFrom }),
    name: t.string({ resolve: (r) => r.body.name }),
    requiredFields: t.stringList({ resolve: (r) => r.body.required_fields }),
    eventuallyDueFields: t.stringList({ resolve: (r) => r.body.eventually_due_fields }),
    documents: t.field({ type: [DocumentGroup], resolve: (r) => r.body.documents }),
    formats: t.field({ type: Formats, resolve: (r) => r.body.formats }),
    minimumAge: t.int({ resolve: (r) => r.body.minimum_age }),
    phoneVerificationRequired: t.boolean({ resolve: (r) => r.body.phone_verification_required }),
    emailVerificationRequired: t.boolean({ resolve: (r) => r.body.email_verification_required }),
    rescreeningIntervalDays: t.int({ resolve: (r) => r.body.rescreening_interval_days }),
    notes: t.field({ type: "JSON", description: "Per rule: 'Source: …' or 'Product choice: …'", resolve: (r) => r.body.notes ?? {} }),
  }),
});

const CountryRequirements = builder.objectRef<Awaited<ReturnType<typeof countryRequirements>>>("ComplianceRequirements").implement({
  fields: (t) => ({
    country: t.exposeString("country", { description: "The country asked about, as alpha-2" }),
    ruleSet: t.field({ type: RuleSet, description: "The rule set in force for it (DEFAULT when it has none)", resolve: (r) => r.rules }),
    currentlyDue: t.stringList({ description: "What a new user of this country owes before verification", resolve: (r) => r.owed.currentlyDue }),
    eventuallyDue: t.stringList({ resolve: (r) => r.owed.eventuallyDue }),
  }),
});

builder.queryField("complianceRequirements", (t) =>
  t.field({
    type: CountryRequirements,
    authScopes: { scope: "users:read" },
    description: "What a user whose country_of_residence is `country` (alpha-2 or alpha-3) must provide",
    args: { country: t.arg.string({ required: true }) },
    resolve: (_root, { country }, ctx) => countryRequirements(ctx, country),
  }),
);

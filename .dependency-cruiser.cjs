/**
 * The shape of src/ (docs/architecture.md): transports → each module's schema and routes → flows
 * (use cases across modules) and each module's service → its store. The platform (write, outbox,
 * bus, audit, jobs), `src/db`, `src/lib` and `src/kernel` know no module; a module knows no other module; nothing
 * imports in a circle; type-only imports count too. test/layers.test.ts runs these rules with
 * dependency-cruiser's API, and a fixture that breaks each one.
 */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "An import circle ties its files together: none can be read, tested or changed alone.",
      from: { path: "(^|/)src/" },
      to: { circular: true },
    },
    {
      name: "db-and-lib-know-no-domain",
      severity: "error",
      comment:
        "src/db, src/lib and src/kernel (the values and names every module speaks: the sandbox's magic inputs, the public event types) serve every module; they take what they need as parameters and types of their own.",
      from: { path: "(^|/)src/(db|lib|kernel)/" },
      to: { path: "(^|/)src/(domains|flows|platform|graphql|rest|server|cli)/|(^|/)src/(context|principal|app|writes|config)\\.ts$" },
    },
    {
      name: "platform-knows-no-module",
      severity: "error",
      comment:
        "The platform serves every module; a module declares what the platform carries for it (its topics, its jobs) and the composition root hands it over.",
      from: { path: "(^|/)src/platform/" },
      to: { path: "(^|/)src/(domains|flows|graphql|rest|server|cli)/|(^|/)src/(context|app|writes|config)\\.ts$" },
    },
    {
      name: "module-knows-no-other-module",
      severity: "error",
      comment: "A module owns its tables and rules; what crosses modules is a flow (src/flows/), which may call any module.",
      from: { path: "(^|/)src/domains/([^/]+)/" },
      to: { path: "(^|/)src/domains/", pathNot: "(^|/)src/domains/$2/" },
    },
    {
      name: "module-core-calls-no-flow",
      severity: "error",
      comment:
        "A flow calls modules, never the other way: a module's rules, store and service know no use case. Its schema and routes (transport) may call a flow.",
      from: { path: "(^|/)src/domains/", pathNot: "\\.(schema|routes)\\.ts$" },
      to: { path: "(^|/)src/flows/" },
    },
    {
      name: "flow-knows-no-transport",
      severity: "error",
      comment: "A use case is called by transports, never calls one: no schema, route, server or CLI code in a flow.",
      from: { path: "(^|/)src/flows/" },
      to: { path: "(^|/)src/(graphql|rest|server|cli)/|\\.(schema|routes)\\.ts$" },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    doNotFollow: { path: "node_modules" },
    exclude: { path: "\\.test\\.ts$" },
  },
};

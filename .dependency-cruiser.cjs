/**
 * The layers of src/ (docs/architecture.md): transports → Pothos schema per domain → domain services
 * → database. `src/db` and `src/lib` know no domain, and nothing imports in a circle; type-only
 * imports count too. test/layers.test.ts runs these rules with dependency-cruiser's API.
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
      comment: "src/db and src/lib serve every domain; they take what they need as parameters and types of their own.",
      from: { path: "(^|/)src/(db|lib)/" },
      to: { path: "(^|/)src/(domains|graphql|rest|server|cli)/|(^|/)src/(context|principal|app|writes|config)\\.ts$" },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    doNotFollow: { path: "node_modules" },
    exclude: { path: "\\.test\\.ts$" },
  },
};

/** `npm run db:migrate:create -- --name X`: diff schema.prisma against prisma/migrations on an in-memory PGlite. */
import { parseArgs } from "node:util";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { pendingMigrationSql, writeMigration } from "../db/schema-engine.js";

const { values } = parseArgs({ options: { name: { type: "string", default: "migration" } } });
const pglite = new PGlite();
const { name, sql } = await pendingMigrationSql(new PrismaPGlite(pglite), values.name);
if (sql) {
  await writeMigration(name, sql);
  console.log(`created prisma/migrations/${name}/migration.sql`);
} else {
  console.log("schema.prisma and prisma/migrations are in step: nothing to create");
}
await pglite.close();
process.exit(0); // the WASM engine leaves a timer behind

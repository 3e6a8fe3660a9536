import { defineConfig } from "prisma/config";

// Prisma 7 reads the datasource URL from here; the app itself never uses it (it builds a driver adapter).
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
});

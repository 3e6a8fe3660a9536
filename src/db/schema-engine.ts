/**
 * Prisma's schema engine as WebAssembly, driven through a driver adapter: no native engine is
 * downloaded or run. Used to apply migrations at start (`cli migrate`) and to create new ones.
 * The call sequence mirrors `prisma migrate dev`.
 */
import { readFile, readdir, mkdir, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { fromRoot } from "../lib/paths.js";
import { bindMigrationAwareSqlAdapterFactory, type SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";

export const PRISMA_DIR = fromRoot("prisma");
const MIGRATIONS_DIR = path.join(PRISMA_DIR, "migrations");
const LOCK_FILE = "migration_lock.toml";
const filters = { externalTables: [], externalEnums: [] };

type Engine = {
  applyMigrations(input: unknown): Promise<{ appliedMigrationNames: string[] }>;
  devDiagnostic(input: unknown): Promise<unknown>;
  createMigration(input: unknown): Promise<{ generatedMigrationName: string; migrationScript: string | null; extension: string }>;
};

let wasmModule: Promise<{ SchemaEngine: { new: (...a: unknown[]) => Promise<Engine> } }> | undefined;

function loadWasm() {
  wasmModule ??= (async () => {
    const g = globalThis as Record<string, unknown>;
    g.PRISMA_WASM_PANIC_REGISTRY ??= {
      set_message(message: string) {
        throw new Error(message);
      },
    };
    const bindings = await import("@prisma/schema-engine-wasm/schema_engine_bg");
    const jsFile = fileURLToPath(import.meta.resolve("@prisma/schema-engine-wasm/schema_engine_bg"));
    const bytes = await readFile(path.join(path.dirname(jsFile), "schema_engine_bg.wasm"));
    const { instance } = await WebAssembly.instantiate(bytes, { "./schema_engine_bg.js": bindings });
    bindings.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as () => void)();
    return bindings as unknown as { SchemaEngine: { new: (...a: unknown[]) => Promise<Engine> } };
  })();
  return wasmModule;
}

async function readSchema() {
  const file = path.join(PRISMA_DIR, "schema.prisma");
  return { path: file, content: await readFile(file, "utf8") };
}

async function readMigrationsList() {
  const names = (await readdir(MIGRATIONS_DIR, { withFileTypes: true }).catch(() => []))
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  const lock = await readFile(path.join(MIGRATIONS_DIR, LOCK_FILE), "utf8").catch(() => null);
  const migrationDirectories = await Promise.all(
    names.map(async (name) => ({
      path: name,
      migrationFile: {
        path: "migration.sql",
        content: { tag: "ok", value: await readFile(path.join(MIGRATIONS_DIR, name, "migration.sql"), "utf8") },
      },
    })),
  );
  return { baseDir: MIGRATIONS_DIR, lockfile: { path: LOCK_FILE, content: lock }, shadowDbInitScript: "", migrationDirectories };
}

async function openEngine(factory: SqlMigrationAwareDriverAdapterFactory): Promise<Engine> {
  const { SchemaEngine } = await loadWasm();
  const schema = await readSchema();
  return SchemaEngine.new({ datamodels: [[schema.path, schema.content]] }, () => {}, bindMigrationAwareSqlAdapterFactory(factory));
}

/**
 * Prisma's migration lock is one advisory lock per database, whatever the schema, and the engine waits
 * 10 s for it (P1002): instances starting together, or schemas of one database migrated side by side
 * (the test runs, the bench), can wait longer than that. Waiting again is right; giving up is not.
 */
const LOCK_ATTEMPTS = 6;
const isLockTimeout = (error: unknown) => /advisory lock/i.test(String((error as Error)?.message ?? error));

/** Applies every migration in prisma/migrations not yet recorded in `_prisma_migrations`. */
export async function applyMigrations(factory: SqlMigrationAwareDriverAdapterFactory): Promise<string[]> {
  const engine = await openEngine(factory);
  const migrationsList = await readMigrationsList();
  for (let attempt = 1; ; attempt++) {
    try {
      return (await engine.applyMigrations({ migrationsList, filters })).appliedMigrationNames;
    } catch (error) {
      if (attempt === LOCK_ATTEMPTS || !isLockTimeout(error)) throw error;
    }
  }
}

/**
 * Diffs schema.prisma against the migrations on a scratch database (which must support a shadow
 * database, i.e. PGlite) and returns the SQL a new migration would need; null when in step.
 */
export async function pendingMigrationSql(factory: SqlMigrationAwareDriverAdapterFactory, migrationName = "pending") {
  const engine = await openEngine(factory);
  const migrationsList = await readMigrationsList();
  await engine.applyMigrations({ migrationsList, filters });
  await engine.devDiagnostic({ migrationsList, filters });
  const schema = await readSchema();
  const created = await engine.createMigration({ draft: false, migrationName, migrationsList, schema: { files: [schema] }, filters });
  const sql = created.migrationScript?.trim() ? created.migrationScript : null;
  return { name: created.generatedMigrationName, sql };
}

/** Writes a new migration folder in Prisma's layout; returns its name, or null when nothing changed. */
export async function writeMigration(name: string, sql: string) {
  await mkdir(path.join(MIGRATIONS_DIR, name), { recursive: true });
  await writeFile(path.join(MIGRATIONS_DIR, name, "migration.sql"), sql);
  await writeFile(
    path.join(MIGRATIONS_DIR, LOCK_FILE),
    '# Please do not edit this file manually\n# It should be added in your version-control system (e.g., Git)\nprovider = "postgresql"\n',
  );
}

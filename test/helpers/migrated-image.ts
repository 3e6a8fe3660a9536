/**
 * `tsx test/helpers/migrated-image.ts <file>`: migrates one in-memory database and writes its image
 * to <file> (global-setup.ts runs it in a process of its own: vitest's global setup cannot load the
 * migration engine).
 */
import { writeFile } from "node:fs/promises";
import { createDb } from "../../src/db/client.js";

const database = await createDb({ dataDir: "memory://" });
await database.migrate(); // keeps the image, without the deployment id (memory-image.ts)
const image = await database.pglite!.dumpDataDir("none");
await database.close();
await writeFile(process.argv[2]!, new Uint8Array(await image.arrayBuffer()));

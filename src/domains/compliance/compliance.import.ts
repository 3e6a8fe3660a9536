/**
 * Writing rule sets: the start-up loader (data/compliance/*.json, every file whose version the
 * database lacks) and `cli compliance import FILE`. A file is checked whole first (compliance.rules.ts)
 * and written in one transaction with its audit row; an import whose version is not above the
 * country's newest fails naming `version`, and re-importing the very same file changes nothing.
 */
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import type { Prisma } from "../../../generated/prisma/client.js";
import type { Db } from "../../db/client.js";
import type { Tx } from "../../db/transaction.js";
import { CLI_ACTOR, type Actor } from "../../principal.js";
import type { WriteDeps } from "../../platform/write.js";
import { invalid } from "../../lib/errors.js";
import { fromRoot } from "../../lib/paths.js";
import { effectiveFromOf, parseRuleSet, type RuleSetBody } from "./compliance.rules.js";

const DATA_DIR = fromRoot("data", "compliance");

/** Key order does not change the checksum: the same rules give the same sum. */
const canonical = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(canonical)
    : value && typeof value === "object"
      ? Object.fromEntries(
          Object.keys(value)
            .sort()
            .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
        )
      : value;
const checksumOf = (body: RuleSetBody) =>
  createHash("sha256")
    .update(JSON.stringify(canonical(body)))
    .digest("hex");

const rowOf = (body: RuleSetBody) => ({
  country: body.country,
  version: body.version,
  effectiveFrom: effectiveFromOf(body),
  body: body as unknown as Prisma.InputJsonValue,
  checksum: checksumOf(body),
});

/** Older versions of the country point at the newest one. */
async function markSuperseded(tx: Pick<Tx, "complianceRuleSet">, country: string) {
  const newest = await tx.complianceRuleSet.findFirst({ where: { country }, orderBy: { version: "desc" }, select: { version: true } });
  if (newest) await tx.complianceRuleSet.updateMany({ where: { country, version: { lt: newest.version } }, data: { supersededBy: newest.version } });
}

/**
 * Every shipped file is valid or the start fails; files whose (country, version) is stored are skipped,
 * and those whose content differs from the stored version are named in `stale` (bump the version).
 */
export async function loadShippedRuleSets(db: Db): Promise<{ loaded: string[]; stale: string[] }> {
  const names = (await readdir(DATA_DIR)).filter((f) => f.endsWith(".json")).sort();
  const bodies = await Promise.all(
    names.map(async (name) => {
      try {
        return parseRuleSet(JSON.parse(await readFile(path.join(DATA_DIR, name), "utf8")));
      } catch (error) {
        throw new Error(`data/compliance/${name} is not a valid rule set: ${(error as Error).message}`, { cause: error });
      }
    }),
  );
  const stored = new Map(
    (await db.complianceRuleSet.findMany({ select: { country: true, version: true, checksum: true } })).map((r) => [`${r.country}@${r.version}`, r.checksum]),
  );
  const stale = bodies
    .filter((b) => stored.has(`${b.country}@${b.version}`) && stored.get(`${b.country}@${b.version}`) !== checksumOf(b))
    .map((b) => `${b.country}@${b.version}`);
  const fresh = bodies.filter((b) => !stored.has(`${b.country}@${b.version}`));
  if (!fresh.length) return { loaded: [], stale };
  // skipDuplicates: two instances starting together on one PostgreSQL both get here; neither fails
  await db.$transaction(async (tx) => {
    await tx.complianceRuleSet.createMany({ data: fresh.map(rowOf), skipDuplicates: true });
    for (const country of new Set(fresh.map((b) => b.country))) await markSuperseded(tx, country);
  });
  return { loaded: fresh.map((b) => `${b.country}@${b.version}`), stale };
}

/** `cli compliance import FILE`: one rule set, all or nothing. */
export async function importRuleSetFile(deps: WriteDeps, file: string, actor: Actor = CLI_ACTOR) {
  const text = await readFile(file, "utf8").catch(() => {
    throw invalid([{ field: "file", code: "unreadable", message: `Cannot read ${file}.` }]);
  });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid([{ field: "file", code: "invalid", message: "The file is not valid JSON." }]);
  }
  return importRuleSet(deps, actor, parseRuleSet(value));
}

export async function importRuleSet({ transact }: WriteDeps, actor: Actor, body: RuleSetBody) {
  const row = rowOf(body);
  return transact(actor, async ({ tx, audit, emit }) => {
    const newest = await tx.complianceRuleSet.findFirst({ where: { country: body.country }, orderBy: { version: "desc" }, select: { version: true } });
    const same = await tx.complianceRuleSet.findUnique({
      where: { country_version: { country: body.country, version: body.version } },
      select: { checksum: true },
    });
    if (same?.checksum === row.checksum) return { country: body.country, version: body.version, checksum: row.checksum, unchanged: true };
    if (newest && body.version <= newest.version)
      throw invalid([{ field: "version", code: "not_newer", message: `version must be above ${newest.version}, the newest version for ${body.country}.` }]);
    await tx.complianceRuleSet.create({ data: row });
    await markSuperseded(tx, body.country);
    audit({
      action: "compliance.rule_set.imported",
      targetType: "compliance_rule_set",
      targetId: `${body.country}@${body.version}`,
      changedFields: Object.keys(body),
    });
    emit("compliance.updated", { country: body.country, version: body.version });
    return { country: body.country, version: body.version, checksum: row.checksum, unchanged: false };
  });
}

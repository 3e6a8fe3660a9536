/**
 * Writing reference data: the first-start loader (ISO countries and currencies from their packages,
 * plus data/remittance/*.json), `cli reference import FILE`, and the admin upsert mutations. Every
 * row passes the same checks (remittance.rules.ts); a bad row throws VALIDATION_FAILED naming it and
 * nothing is written.
 *
 * Import file formats (choose by extension; docs/reference-import.md is the user's description):
 * - `.json`: `{"institutions": [...], "branches": [...], "corridors": [...], "requirements": [...]}`,
 *   any of the four, rows shaped like data/remittance/*.json (unknown keys such as `has_branches`
 *   are ignored; a requirement row is checked whole, requirements/requirements.rules.ts); or one list
 *   alone in a file named after it, as the shipped `data/remittance/corridors.json`. Errors name
 *   `<list>.<index from 0>.<field>`, e.g. `corridors.0.min_amount`. Requirements come by JSON only.
 * - `.csv`: one file, a header row and a `kind` column (`institution` | `branch` | `corridor`); each
 *   row fills the columns of its kind and leaves the others empty. Unknown columns are refused.
 *     institution: id, name, type, country, bic, local_code, local_code_type, status, source
 *     branch:      id, institution_id, name, code, city, address
 *     corridor:    id, receiving_country, receiving_currency, receiving_institution_type, min_amount,
 *                  max_amount (minor units), delivery_min_hours, delivery_max_hours,
 *                  delivery_description, required_fields, user_types (lists separated by `|`), status
 *   Errors name `rows.<line>.<field>`, the line counted as in the file (the header is line 1).
 * Rows are upserted by `id` (requirements by corridor and version); institutions are written before
 * branches, branches before corridors, corridors before their requirements. What a write changes in
 * a corridor is announced to every client (remittance.changes.ts).
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Db } from "../../db/client.js";
import { camelKeys, toSnake } from "../../lib/case.js";
import { invalid, type FieldError } from "../../lib/errors.js";
import { fromRoot } from "../../lib/paths.js";
import type { Tx } from "../../db/transaction.js";
import { CLI_ACTOR, type Actor } from "../../principal.js";
import type { WriteDeps } from "../../platform/write.js";
import { isoCountryRows, isoCurrencyRows } from "./remittance.iso.js";
import { announceCorridorChanges, corridorChanges, corridorStates } from "./remittance.changes.js";
import { checkRequirementRow } from "./requirements/requirements.rules.js";
import { shippedRequirementRows } from "./requirements/requirements.shipped.js";
import type { RequirementRow } from "./requirements/requirements.spec.js";
import {
  checkRow,
  ROW_KINDS,
  rowFields,
  searchKey,
  USER_TYPES,
  type BranchRow,
  type CorridorRow,
  type FieldNamer,
  type InstitutionRow,
  type Row,
  type RowKind,
} from "./remittance.rules.js";

const DATA_DIR = fromRoot("data", "remittance");
const LISTS: Record<RowKind, string> = { institution: "institutions", branch: "branches", corridor: "corridors" };

/** a checked row and how to name its fields in errors */
type Located = Row & { name: FieldNamer };
type LocatedRequirement = { row: RequirementRow; name: FieldNamer };
/** what one import writes */
type Rows = { rows: Located[]; requirements: LocatedRequirement[] };

/** Loads ISO data and the shipped catalogue into empty reference tables; two count queries otherwise (requirements may come later than the rest). */
export async function loadShippedReferenceData(db: Db): Promise<{ loaded: boolean }> {
  if ((await db.country.count()) > 0) return { loaded: await loadShippedRequirements(db) };
  const file = async (kind: RowKind) => JSON.parse(await readFile(path.join(DATA_DIR, `${LISTS[kind]}.json`), "utf8")) as unknown[];
  const { rows } = checkLists({ institutions: await file("institution"), branches: await file("branch"), corridors: await file("corridor") });
  const { currencies, links } = isoCurrencyRows();
  // skipDuplicates: two instances starting together on one PostgreSQL both get here; neither fails
  await db.$transaction(
    async (tx) => {
      await tx.country.createMany({ data: isoCountryRows(), skipDuplicates: true });
      await tx.currency.createMany({ data: currencies, skipDuplicates: true });
      await tx.countryCurrency.createMany({ data: links, skipDuplicates: true });
      await tx.receivingInstitution.createMany({ data: rowsOf(rows, "institution").map(institutionData), skipDuplicates: true });
      await tx.branch.createMany({ data: rowsOf(rows, "branch").map(branchData), skipDuplicates: true });
      await tx.corridor.createMany({ data: rowsOf(rows, "corridor").map(corridorData), skipDuplicates: true });
      await markBranched(tx, rowsOf(rows, "branch"));
      await tx.corridorRequirement.createMany({ data: shippedRequirementRows().map(requirementData), skipDuplicates: true });
    },
    { timeout: 60_000 },
  );
  return { loaded: true };
}

/** A catalogue loaded before corridors carried requirements gets the shipped ones (never over imported ones). */
async function loadShippedRequirements(db: Db) {
  if ((await db.corridorRequirement.count()) > 0) return false;
  const corridors = new Set((await db.corridor.findMany({ select: { id: true } })).map((c) => c.id));
  const rows = shippedRequirementRows().filter((r) => corridors.has(r.corridorId));
  await db.corridorRequirement.createMany({ data: rows.map(requirementData), skipDuplicates: true });
  return rows.length > 0;
}

/** `cli reference import FILE` (.json or .csv, see the top of this file): all rows or none. */
export async function importReferenceFile(
  deps: WriteDeps,
  file: string,
  actor: Actor = CLI_ACTOR,
): Promise<{ institutions: number; branches: number; corridors: number; requirements: number }> {
  const ext = path.extname(file).toLowerCase();
  if (ext !== ".json" && ext !== ".csv") throw invalid([{ field: "file", code: "invalid", message: "The file must end in .json or .csv." }]);
  const text = await readFile(file, "utf8").catch(() => {
    throw invalid([{ field: "file", code: "unreadable", message: `Cannot read ${file}.` }]);
  });
  const rows = ext === ".csv" ? { rows: checkCsv(text), requirements: [] } : checkLists(parseJson(text, path.basename(file, ext).toLowerCase()));
  await loadShippedReferenceData(deps.db); // corridors refer to the ISO countries and currencies
  await writeRows(deps, actor, rows, { action: "reference.imported", target: path.basename(file) });
  const count = (kind: RowKind) => rowsOf(rows.rows, kind).length;
  return { institutions: count("institution"), branches: count("branch"), corridors: count("corridor"), requirements: rows.requirements.length };
}

/** An admin mutation: the checks and the write of a one-row import; errors name the input field. */
export async function upsertReferenceRow(deps: WriteDeps, actor: Actor, kind: RowKind, input: Record<string, unknown>) {
  const errors: FieldError[] = [];
  const row = checkRow(kind, input, (f) => f, errors);
  if (!row) throw invalid(errors);
  await writeRows(deps, actor, { rows: [{ ...row, name: (f) => f }], requirements: [] }, { action: `reference.${kind}.upserted`, target: row.row.id });
  return row.row.id;
}

/** The object form, or one list in a file named after it (`corridors.json`, as shipped). */
function parseJson(text: string, baseName: string): Record<string, unknown> {
  const lists = [...Object.values(LISTS), REQUIREMENTS];
  try {
    const value = JSON.parse(text) as unknown;
    if (Array.isArray(value) && lists.includes(baseName)) return { [baseName]: value };
    if (value && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    /* reported below */
  }
  throw invalid([
    {
      field: "file",
      code: "invalid",
      message: `A JSON import must be an object {"institutions": [], "branches": [], "corridors": [], "requirements": []}, or one list in a file named ${lists.map((l) => `${l}.json`).join(", ")}.`,
    },
  ]);
}

const inFile =
  (prefix: string): FieldNamer =>
  (field) =>
    `${prefix}.${toSnake(field)}`;

function checkLists(lists: Record<string, unknown>): Rows {
  const errors: FieldError[] = [];
  const requirements = checkRequirements(lists[REQUIREMENTS] ?? [], errors);
  const rows = ROW_KINDS.flatMap((kind) => {
    const list = lists[LISTS[kind]] ?? [];
    if (!Array.isArray(list)) {
      errors.push({ field: LISTS[kind], code: "invalid", message: `${LISTS[kind]} must be a list.` });
      return [];
    }
    return list.map((item, i) =>
      located(checkRow(kind, camelKeys(item) as Record<string, unknown>, inFile(`${LISTS[kind]}.${i}`), errors), inFile(`${LISTS[kind]}.${i}`)),
    );
  });
  return { rows: settle(rows, errors), requirements: requirements as LocatedRequirement[] };
}

const REQUIREMENTS = "requirements";

/** Each requirement row checked; a (corridor, version) twice in the file is an error. */
function checkRequirements(list: unknown, errors: FieldError[]): (LocatedRequirement | undefined)[] {
  if (!Array.isArray(list)) {
    errors.push({ field: REQUIREMENTS, code: "invalid", message: "requirements must be a list." });
    return [];
  }
  const seen = new Set<string>();
  return list.map((item, i) => {
    const name = inFile(`${REQUIREMENTS}.${i}`);
    const row = item && typeof item === "object" ? checkRequirementRow(item as Record<string, unknown>, name, errors) : undefined;
    if (!row) {
      if (!item || typeof item !== "object") errors.push({ field: name("row"), code: "invalid", message: `${REQUIREMENTS}.${i} must be an object.` });
      return undefined;
    }
    const key = `${row.corridorId}@${row.version}`;
    if (seen.has(key))
      errors.push({ field: name("version"), code: "duplicate", message: `${name("version")} repeats version ${row.version} of ${row.corridorId}.` });
    seen.add(key);
    return { row, name };
  });
}

function checkCsv(text: string): Located[] {
  const [header, ...records] = parseCsv(text);
  const known = new Set(["kind", ...ROW_KINDS.flatMap((k) => rowFields(k).map(toSnake))]);
  const unknown = (header?.cells ?? []).filter((c) => !known.has(c));
  if (!header?.cells.includes("kind") || unknown.length)
    throw invalid([
      {
        field: "columns",
        code: "invalid",
        message: `The CSV header needs a kind column and only known columns${unknown.length ? `; unknown: ${unknown.join(", ")}` : ""}.`,
      },
    ]);
  const errors: FieldError[] = [];
  const rows = records.map(({ line, cells }) => {
    const cell = Object.fromEntries(header.cells.map((c, i) => [c, cells[i]?.trim() ?? ""]));
    const kind = cell.kind as RowKind;
    const name = inFile(`rows.${line}`);
    if (!ROW_KINDS.includes(kind)) {
      errors.push({ field: name("kind"), code: "invalid", message: `${name("kind")} must be one of ${ROW_KINDS.join(", ")}.` });
      return undefined;
    }
    const lists = { requiredFields: split(cell.required_fields), userTypes: split(cell.user_types) };
    return located(checkRow(kind, { ...(camelKeys(cell) as Record<string, unknown>), ...lists }, name, errors), name);
  });
  return settle(rows, errors);
}

const split = (cell?: string) =>
  cell
    ? cell
        .split("|")
        .map((v) => v.trim())
        .filter(Boolean)
    : undefined;
const located = (row: Row | undefined, name: FieldNamer) => (row ? { ...row, name } : undefined);

/** Throws every row error (the first 20); otherwise checks ids are not repeated within the file. */
function settle(rows: (Located | undefined)[], errors: FieldError[]): Located[] {
  const seen = new Set<string>();
  for (const r of rows) {
    if (!r) continue;
    const key = `${r.kind}:${r.row.id}`;
    if (seen.has(key)) errors.push({ field: r.name("id"), code: "duplicate", message: `${r.name("id")} repeats ${r.kind} ${r.row.id} from an earlier row.` });
    seen.add(key);
  }
  if (errors.length) throw invalid(errors);
  return rows as Located[];
}

const rowsOf = <K extends RowKind>(rows: Located[], kind: K) => rows.filter((r) => r.kind === kind) as (Located & Extract<Row, { kind: K }>)[];

/**
 * Inside the write's transaction: branches need their institution, corridors a known currency and a
 * free (country, currency, type), requirements their corridor.
 */
async function checkReferences(tx: Tx, { rows, requirements }: Rows) {
  const errors: FieldError[] = [];
  const corridorIds = new Set([
    ...rowsOf(rows, "corridor").map((c) => c.row.id),
    ...(await tx.corridor.findMany({ where: { id: { in: requirements.map((r) => r.row.corridorId) } }, select: { id: true } })).map((c) => c.id),
  ]);
  for (const r of requirements)
    if (!corridorIds.has(r.row.corridorId))
      errors.push({ field: r.name("corridorId"), code: "not_found", message: `${r.name("corridorId")} names no corridor in the file or the catalogue.` });
  const miss = (r: Located, field: string, message: string) => errors.push({ field: r.name(field), code: "not_found", message: `${r.name(field)} ${message}` });
  const branches = rowsOf(rows, "branch");
  const named = new Set([
    ...rowsOf(rows, "institution").map((r) => r.row.id),
    ...(
      await tx.receivingInstitution.findMany({
        where: { id: { in: [...new Set(branches.map((b) => b.row.institutionId))] } },
        select: { id: true },
      })
    ).map((i) => i.id),
  ]);
  for (const b of branches) if (!named.has(b.row.institutionId)) miss(b, "institutionId", "names no institution in the file or the catalogue.");
  const corridors = rowsOf(rows, "corridor");
  if (corridors.length) {
    const currencies = new Set(
      (await tx.currency.findMany({ where: { code: { in: corridors.map((c) => c.row.receivingCurrency) } }, select: { code: true } })).map((c) => c.code),
    );
    const triple = (c: { receivingCountry: string; receivingCurrency: string; receivingInstitutionType: string }) =>
      `${c.receivingCountry}/${c.receivingCurrency}/${c.receivingInstitutionType}`;
    const taken = new Map(
      (
        await tx.corridor.findMany({
          where: {
            OR: corridors.map(({ row }) => ({
              receivingCountry: row.receivingCountry,
              receivingCurrency: row.receivingCurrency,
              receivingInstitutionType: row.receivingInstitutionType,
            })),
          },
          select: { id: true, receivingCountry: true, receivingCurrency: true, receivingInstitutionType: true },
        })
      ).map((c) => [triple(c), c.id]),
    );
    for (const c of corridors) {
      if (!currencies.has(c.row.receivingCurrency)) miss(c, "receivingCurrency", "is not an ISO 4217 currency.");
      const holder = taken.get(triple(c.row)) ?? c.row.id;
      if (holder !== c.row.id)
        errors.push({ field: c.name("id"), code: "conflict", message: `${c.name("id")}: corridor ${holder} already serves ${triple(c.row)}.` });
      taken.set(triple(c.row), holder);
    }
  }
  if (errors.length) throw invalid(errors);
}

const UPSERT: { [K in RowKind]: (tx: Tx, row: Extract<Row, { kind: K }>) => Promise<unknown> } = {
  institution: (tx, r) => {
    const data = institutionData(r);
    return tx.receivingInstitution.upsert({ where: { id: data.id }, create: data, update: data });
  },
  branch: (tx, r) => {
    const data = branchData(r);
    return tx.branch.upsert({ where: { id: data.id }, create: data, update: data });
  },
  corridor: (tx, r) => {
    const data = corridorData(r);
    return tx.corridor.upsert({ where: { id: data.id }, create: data, update: data });
  },
};

/** With an event bus (a request), caches of lookup answers hear of the change once it commits. */
async function writeRows({ transact }: WriteDeps, actor: Actor, written: Rows, entry: { action: string; target: string }) {
  const { rows, requirements } = written;
  await transact(
    actor,
    async ({ tx, audit, emit }) => {
      await checkReferences(tx, written);
      const touched = [...rowsOf(rows, "corridor").map((c) => c.row.id), ...requirements.map((r) => r.row.corridorId)];
      const before = await corridorStates(tx, touched);
      // institutions first: branches refer to them
      for (const kind of ROW_KINDS) for (const row of rowsOf(rows, kind)) await (UPSERT[kind] as (tx: Tx, row: Row) => Promise<unknown>)(tx, row);
      for (const { row } of requirements) {
        const data = requirementData(row);
        await tx.corridorRequirement.upsert({
          where: { corridorId_version: { corridorId: row.corridorId, version: row.version } },
          create: data,
          update: data,
        });
      }
      await markBranched(tx, rowsOf(rows, "branch"));
      const changes = corridorChanges(before, await corridorStates(tx, touched), new Date());
      await announceCorridorChanges(tx, (clientId, change) => emit("reference.corridor.updated", clientId, change), changes);
      const changed = [...ROW_KINDS.filter((k) => rowsOf(rows, k).length).map((k) => LISTS[k]), ...(requirements.length ? [REQUIREMENTS] : [])];
      audit({ action: entry.action, targetType: "reference_data", targetId: entry.target, changedFields: changed });
      emit("reference.updated", { kind: entry.action, id: entry.target });
    },
    { timeout: 10 * 60_000 },
  );
}

/** has_branches follows the rows: set where branches arrived, cleared where a moved branch left none. */
async function markBranched(tx: Tx, branches: { row: BranchRow }[]) {
  if (!branches.length) return;
  await tx.receivingInstitution.updateMany({
    where: { id: { in: [...new Set(branches.map((b) => b.row.institutionId))] }, hasBranches: false },
    data: { hasBranches: true },
  });
  await tx.receivingInstitution.updateMany({ where: { hasBranches: true, branches: { none: {} } }, data: { hasBranches: false } });
}

const institutionData = ({ row: r }: { row: InstitutionRow }) => ({
  id: r.id,
  name: r.name,
  nameKey: searchKey(r.name),
  type: r.type,
  countryCode: r.country,
  bic: r.bic,
  localCode: r.localCode,
  localCodeType: r.localCodeType,
  status: r.status ?? "ACTIVE",
  source: r.source,
});
const branchData = ({ row: r }: { row: BranchRow }) => ({
  ...r,
  nameKey: searchKey(r.name),
  cityKey: r.city ? searchKey(r.city) : null,
  searchKey: searchKey(r.name, r.code, r.city, r.address),
});
/** The spec stored as the catalogue writes it (snake_case): what the change feed diffs and the answer is built from. */
const requirementData = (r: RequirementRow) => ({
  corridorId: r.corridorId,
  version: r.version,
  effectiveAt: r.effectiveAt,
  source: r.source,
  spec: r.spec as object,
});
const corridorData = ({ row: r }: { row: CorridorRow }) => ({
  ...r,
  minAmount: BigInt(r.minAmount),
  maxAmount: BigInt(r.maxAmount),
  userTypes: r.userTypes ?? [...USER_TYPES],
  status: r.status ?? "ACTIVE",
});

/** RFC 4180: quoted cells may hold commas, doubled quotes and line breaks; `line` is where a record starts. */
function parseCsv(text: string): { line: number; cells: string[] }[] {
  const records: { line: number; cells: string[] }[] = [];
  const src = text.replace(/^\uFEFF/, "");
  let cells: string[] = [],
    cell = "",
    quoted = false,
    line = 1,
    start = 1;
  const endRecord = () => {
    cells.push(cell);
    if (cells.some((c) => c.trim() !== "")) records.push({ line: start, cells });
    cells = [];
    cell = "";
  };
  for (let i = 0; i < src.length; i++) {
    const ch = src[i];
    if (quoted) {
      if (ch === '"' && src[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else {
        if (ch === "\n") line++;
        cell += ch;
      }
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      cells.push(cell);
      cell = "";
    } else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && src[i + 1] === "\n") i++;
      endRecord();
      line++;
      start = line;
    } else cell += ch;
  }
  if (cell !== "" || cells.length) endRecord();
  return records.map((r, i) => (i === 0 ? { ...r, cells: r.cells.map((c) => c.trim().toLowerCase()) } : r));
}

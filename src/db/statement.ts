/**
 * A statement as text and parameters, and several of them sent as one: each becomes a common table
 * expression of a single statement, so the whole is atomic without BEGIN and COMMIT and costs one
 * round trip. PostgreSQL runs every data-modifying CTE exactly once and to completion, whether or not
 * the final select reads it, and all of them see the same snapshot: a part cannot read what another
 * wrote, it can only be written beside it (foreign keys are checked at the end of the statement).
 */
export type Statement = { sql: string; params: readonly unknown[] };

/**
 * `parts` as one statement whose rows are those of the first part with a RETURNING clause given as
 * `returning` (none: one row `done`); at least one part. Each part's text numbers its own parameters from $1 and holds
 * no other `$`: they are renumbered here.
 */
export function oneStatement(parts: readonly Statement[], returning?: Statement): Statement {
  const { ctes, params } = asCtes(returning ? [returning, ...parts] : parts);
  return { sql: `with ${ctes.join(",\n")}\n${returning ? "select * from s0" : "select true as done"}`, params };
}

/** A write of a batch: its change (with a RETURNING clause) and the parts it causes. */
export type BatchedWrite = { returning: Statement; parts: readonly Statement[] };

/**
 * Several writes as one statement: every part of each is a CTE; the rows are each write's returning
 * rows as `{ write, row }`, `write` its index and `row` the row as JSON text (`row_to_json`), since the
 * writes' RETURNING clauses need not share columns.
 */
export function writesAsOne(writes: readonly BatchedWrite[]): Statement {
  const all: Statement[] = [];
  const returned: string[] = [];
  for (const [i, { returning, parts }] of writes.entries()) {
    returned.push(`select ${i} as write, row_to_json(s${all.length})::text as row from s${all.length}`);
    all.push(returning, ...parts);
  }
  const { ctes, params } = asCtes(all);
  return { sql: `with ${ctes.join(",\n")}\n${returned.join("\nunion all ")}`, params };
}

/** Each statement as CTE `s<i>`, its parameters renumbered after those of the statements before it. */
function asCtes(all: readonly Statement[]) {
  const params: unknown[] = [];
  const ctes = all.map((part, i) => {
    const offset = params.length;
    params.push(...part.params);
    return `s${i} as (${part.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`)})`;
  });
  return { ctes, params };
}

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
  const all = returning ? [returning, ...parts] : parts;
  const params: unknown[] = [];
  const ctes = all.map((part, i) => {
    const offset = params.length;
    params.push(...part.params);
    return `s${i} as (${part.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`)})`;
  });
  return { sql: `with ${ctes.join(",\n")}\n${returning ? "select * from s0" : "select true as done"}`, params };
}

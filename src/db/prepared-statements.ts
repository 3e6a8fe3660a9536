/**
 * Names for the statements a process sends again and again, so that each PostgreSQL connection
 * parses and plans them once and afterwards receives only their parameters (node-postgres keeps a
 * named statement per connection; Prisma's adapter asks for names through `statementNameGenerator`).
 * A write's one statement (db/statement.ts) is long, and parsing and planning it each time cost the
 * database more than executing it.
 *
 * Bounded on both sides: a text is named only once it has been seen `after` times (a one-off
 * statement, or one of Prisma's whose text varies with a list's length, stays unnamed), and at most
 * `max` texts are ever named, so a connection holds at most `max` prepared statements. The texts
 * still being counted are forgotten in bulk when `counted` of them are waiting.
 */
import { createHash } from "node:crypto";

export type StatementNamer = (text: string) => string | undefined;

export function hotStatementNames({ after = 3, max = 200, counted = 5_000 } = {}): StatementNamer {
  const named = new Map<string, string>();
  const seen = new Map<string, number>();
  return (text) => {
    const name = named.get(text);
    if (name !== undefined || named.size >= max) return name;
    const uses = (seen.get(text) ?? 0) + 1;
    if (uses < after) {
      if (seen.size >= counted) seen.clear();
      seen.set(text, uses);
      return undefined;
    }
    seen.delete(text);
    // the text's digest: one name is never given to two texts, in this process or another
    const fresh = `og_${createHash("sha1").update(text).digest("base64url")}`;
    named.set(text, fresh);
    return fresh;
  };
}

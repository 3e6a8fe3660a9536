/**
 * What no input may carry, whatever the transport: nesting deeper than any real payload, strings
 * PostgreSQL cannot store (U+0000) and strings that are not well-formed UTF-16 (a lone surrogate,
 * which no UTF-8 encoder can write). One walk, bounded by `maxDepth`, so hostile depth cannot
 * exhaust the stack; it stops at the first problem and names where it is (dotted path, indexes
 * as numbers: `residentialAddress.line1`, `tags.3`).
 */
export type JsonProblem = { path: string; kind: "too_deep" | "invalid_character" | "malformed_text" };

export const MAX_INPUT_DEPTH = 32;

const join = (path: string, key: string | number) => (path ? `${path}.${key}` : String(key));

function textProblem(text: string, path: string): JsonProblem | null {
  if (text.includes("\u0000")) return { path, kind: "invalid_character" };
  if (!text.isWellFormed()) return { path, kind: "malformed_text" };
  return null;
}

export function inspectJson(value: unknown, path = "", depth = 0, maxDepth = MAX_INPUT_DEPTH): JsonProblem | null {
  if (typeof value === "string") return textProblem(value, path);
  if (value === null || typeof value !== "object") return null;
  // named by where the nesting starts: the full path would be as long as the attack
  if (depth >= maxDepth) return { path: path.split(".").slice(0, 2).join("."), kind: "too_deep" };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = inspectJson(value[i], join(path, i), depth + 1, maxDepth);
      if (found) return found;
    }
    return null;
  }
  // plain objects only: an upload's File or Buffer holds bytes, not text (and a key per byte)
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return null;
  for (const key of Object.keys(value)) {
    const found = textProblem(key, join(path, key)) ?? inspectJson((value as Record<string, unknown>)[key], join(path, key), depth + 1, maxDepth);
    if (found) return found;
  }
  return null;
}

/** The caller-facing sentence for a problem, with the field named as the transport names it. */
export function describeJsonProblem(problem: JsonProblem, field: string) {
  switch (problem.kind) {
    case "too_deep":
      return `${field} nests deeper than ${MAX_INPUT_DEPTH} levels.`;
    case "invalid_character":
      return `${field} contains a NUL character, which is not allowed.`;
    case "malformed_text":
      return `${field} is not well-formed text (it holds a lone UTF-16 surrogate).`;
  }
}

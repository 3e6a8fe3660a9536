/**
 * PostgreSQL text cannot hold U+0000, so a NUL anywhere in an operation's input (variables, or
 * string literals in the document) would end as a database error. It is refused here, once, for
 * every transport, as VALIDATION_FAILED naming the variable.
 */
import { GraphQLError, visit, type DocumentNode } from "graphql";
import type { Plugin } from "graphql-yoga";

function nulPath(value: unknown, path: string): string | null {
  if (typeof value === "string") return value.includes("\u0000") ? path : null;
  if (Array.isArray(value)) { for (let i = 0; i < value.length; i++) { const p = nulPath(value[i], `${path}.${i}`); if (p) return p; } return null; }
  // plain objects only: a multipart upload's File holds its bytes, which are no text to look into
  if (value && typeof value === "object" && isPlainObject(value)) { for (const [k, v] of Object.entries(value)) { const p = nulPath(v, path ? `${path}.${k}` : k); if (p) return p; } }
  return null;
}

const isPlainObject = (value: object) => { const proto = Object.getPrototypeOf(value); return proto === Object.prototype || proto === null; };

// documents are parsed once and reused (yoga's cache, the shim's route table): look at each once
const checked = new WeakMap<DocumentNode, boolean>();
function documentHasNul(document: DocumentNode) {
  let found = checked.get(document);
  if (found === undefined) {
    found = false;
    visit(document, { StringValue(node) { if (node.value.includes("\u0000")) found = true; } });
    checked.set(document, found);
  }
  return found;
}

export function useInputGuard(): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const field = nulPath(args.variableValues ?? {}, "") ?? (documentHasNul(args.document) ? "query" : null);
      if (!field) return;
      const name = field.startsWith("input.") ? field.slice("input.".length) : field;
      setResultAndStopExecution({
        errors: [new GraphQLError(`${name} contains a NUL character, which is not allowed.`, {
          extensions: { code: "VALIDATION_FAILED", fields: [{ field: name, code: "invalid_character", message: "NUL characters are not allowed." }] },
        })],
      });
    },
  };
}

/**
 * What no operation's input may carry (lib/json-guard.ts: NUL, which PostgreSQL text cannot hold;
 * lone surrogates, which no UTF-8 encoder can write; nesting past any real payload) is refused
 * here, once, for every transport (REST runs through this envelop too), as VALIDATION_FAILED
 * naming the field, before any resolver or database sees it. So is an operation that would cost
 * more than the limit with the page sizes its variables ask for, priced with the app's one schema
 * (graphql/cost.ts).
 */
import { GraphQLError, visit, type DocumentNode } from "graphql";
import type { Plugin } from "graphql-yoga";
import { describeJsonProblem, inspectJson } from "../../lib/json-guard.js";
import { MAX_OPERATION_COST, operationCost } from "../../graphql/cost.js";
import { schema } from "../../graphql/schema.js";

// documents are parsed once and reused (yoga's cache, the shim's route table): look at each once
const checked = new WeakMap<DocumentNode, boolean>();
function documentHasBadText(document: DocumentNode) {
  let found = checked.get(document);
  if (found === undefined) {
    found = false;
    visit(document, {
      StringValue(node) {
        if (inspectJson(node.value)) found = true;
      },
    });
    checked.set(document, found);
  }
  return found;
}

/** The error an operation's input earns before it runs, or null (the lanes ask the same). */
export function inputError(document: DocumentNode, variables: Record<string, unknown> | null | undefined) {
  const problem = inspectJson(variables ?? {}) ?? (documentHasBadText(document) ? { path: "query", kind: "invalid_character" as const } : null);
  if (!problem) return costError(document, variables);
  const field = problem.path.startsWith("input.") ? problem.path.slice("input.".length) : problem.path;
  const message = describeJsonProblem(problem, field);
  return new GraphQLError(message, { extensions: { code: "VALIDATION_FAILED", fields: [{ field, code: problem.kind, message }] } });
}

/** An operation priced over the limit with its variables (graphql/cost.ts): refused as armor refuses, VALIDATION_FAILED. */
function costError(document: DocumentNode, variables: Record<string, unknown> | null | undefined) {
  const cost = operationCost(schema, document, variables);
  if (cost <= MAX_OPERATION_COST) return null;
  return new GraphQLError(`The query costs ${Math.round(cost)}, over the limit of ${MAX_OPERATION_COST}: ask for fewer rows (first, last) or fewer fields.`, {
    extensions: { code: "VALIDATION_FAILED", cost: Math.round(cost), limit: MAX_OPERATION_COST },
  });
}

export function useInputGuard(): Plugin {
  // an execution and a subscription are refused alike
  const guard = ({
    args,
    setResultAndStopExecution,
  }: {
    args: { document: DocumentNode; variableValues?: Record<string, unknown> | null };
    setResultAndStopExecution(result: { errors: GraphQLError[] }): void;
  }) => {
    const error = inputError(args.document, args.variableValues);
    if (error) setResultAndStopExecution({ errors: [error] });
  };
  return { onExecute: guard, onSubscribe: guard };
}

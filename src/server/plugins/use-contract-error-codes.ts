/**
 * A query that does not parse or validate is the caller's input error: docs/api.md calls it
 * VALIDATION_FAILED. And an answer's errors are bounded as a problem's list is: at most
 * MAX_LISTED_PROBLEMS (graphql-js stops at 100 validation and 50 variable errors, each quoting a
 * name the caller chose), the first counting the rest in `errorsOmitted`, each message shortened.
 */
import { GraphQLError } from "graphql";
import type { Plugin } from "graphql-yoga";
import { shortened } from "../../graphql/mask-error.js";
import { MAX_LISTED_PROBLEMS } from "../../lib/errors.js";

/** The errors to answer: at most MAX_LISTED_PROBLEMS, the first counting the rest; null when they are few and short. */
function bounded(errors: readonly GraphQLError[]) {
  if (errors.length <= MAX_LISTED_PROBLEMS && errors.every((e) => e.message === shortened(e.message))) return null;
  const omitted = errors.length - Math.min(errors.length, MAX_LISTED_PROBLEMS);
  return errors.slice(0, MAX_LISTED_PROBLEMS).map(
    (e, i) =>
      new GraphQLError(shortened(e.message), {
        nodes: e.nodes,
        source: e.source,
        positions: e.positions,
        path: e.path,
        originalError: e.originalError,
        extensions: i === 0 && omitted ? { ...e.extensions, errorsOmitted: omitted } : e.extensions,
      }),
  );
}

export function useContractErrorCodes(): Plugin {
  const recode = (error: { extensions?: Record<string, unknown> }) => {
    const ext = error.extensions as Record<string, unknown> | undefined;
    if (ext && (ext.code === "GRAPHQL_VALIDATION_FAILED" || ext.code === "GRAPHQL_PARSE_FAILED" || !ext.code)) ext.code = "VALIDATION_FAILED";
  };
  return {
    onParse:
      () =>
      ({ result }) => {
        if (result instanceof Error) recode(result as never);
      },
    onValidate:
      () =>
      ({ valid, result, setResult }) => {
        if (valid) return;
        result.forEach((e) => recode(e as never));
        const errors = bounded(result as GraphQLError[]);
        if (errors) setResult(errors);
      },
    onExecute: () => ({
      onExecuteDone: ({ result, setResult }) => {
        if (!("errors" in result) || !result.errors?.length) return;
        const errors = bounded(result.errors);
        if (errors) setResult({ ...result, errors });
      },
    }),
  };
}

/** A query that does not parse or validate is the caller's input error: docs/api.md calls it VALIDATION_FAILED. */
import type { Plugin } from "graphql-yoga";

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
      ({ valid, result }) => {
        if (!valid) result.forEach((e) => recode(e as never));
      },
  };
}

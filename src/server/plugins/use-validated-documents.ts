/**
 * The /graphql query documents yoga has let through its whole validation phase (parse, graphql-js
 * rules, armour's depth/alias/directive/token/cost limits, introspection off, the contract's codes):
 * what reaches execution is remembered by its text and operation name, so the /graphql lane
 * (server/lanes.ts) may run the same text again without validating it again. Every rule there is a
 * function of the document alone, so a text that passed once passes always. Only single-operation
 * query documents sent by POST; mutations and subscriptions are never remembered. What is remembered
 * is bounded in bytes (the text and its parsed document: graphql/compiled.ts's plan lives and goes
 * with the document), so distinct large or dense texts cannot fill the heap.
 */
import { Kind, type DocumentNode, type OperationDefinitionNode } from "graphql";
import type { Plugin } from "graphql-yoga";
import { createWeighedCache, parsedBytes } from "../../lib/weighed-cache.js";

export type ValidatedDocuments = ReturnType<typeof createValidatedDocuments>;

export const documentKey = (query: string, operationName: string | null | undefined) => `${operationName ?? ""}\n${query}`;

export function createValidatedDocuments(maxBytes: number) {
  const documents = createWeighedCache<DocumentNode>({ maxBytes, maxEntries: 1000, weigh: parsedBytes });
  return {
    get: (key: string) => documents.get(key),
    /** the last plugin of the pipeline: what reaches execution passed every validation before it */
    plugin(): Plugin {
      return {
        onExecute({ args }) {
          const context = args.contextValue as { request?: Request; params?: { query?: unknown; operationName?: string | null; extensions?: unknown } };
          const query = context.params?.query;
          if (context.request?.method !== "POST" || typeof query !== "string" || !query || context.params?.extensions) return;
          const document = args.document as DocumentNode;
          const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
          if (operations.length !== 1 || operations[0].operation !== "query") return;
          const key = documentKey(query, context.params?.operationName);
          if (!documents.get(key)) documents.set(key, document);
        },
      };
    },
  };
}

/**
 * A JSON document anyone may read without a key (the API description, the index at `/`): a newcomer
 * and a load balancer hold none. Serialised once: the document does not change while the process runs.
 */
import type { Plugin } from "graphql-yoga";
import type { Config } from "../../config.js";
import { API_VERSION } from "../../rest/openapi.js";
import { staticAnswer } from "../static-answer.js";

export function usePublicDocument(path: string, document: unknown): Plugin {
  const answer = staticAnswer(() => ({ body: JSON.stringify(document), headers: { "content-type": "application/json" } }));
  return {
    async onRequest({ request, url, endResponse }) {
      if (url.pathname === path && (request.method === "GET" || request.method === "HEAD")) endResponse(await answer(request));
    },
  };
}

/** `GET /`: where a newcomer starts, answered without a key. */
export const apiIndex = (config: Config) => ({
  name: "Onboarding Gateway",
  version: API_VERSION,
  links: {
    graphql: "/graphql",
    openapi: "/openapi.json",
    docs: "/docs",
    events: "/docs/events",
    health: "/healthz",
    ...(config.graphiql ? { graphiql: "/graphql" } : {}),
  },
});

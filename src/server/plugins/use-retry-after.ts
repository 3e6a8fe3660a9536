/**
 * Every 503 UNAVAILABLE carries Retry-After (SPEC 11), whichever layer produced it: the request-phase
 * plugins set it themselves and /graphql takes it from the error's `http` extension, but the REST
 * shim builds its problem from GraphQL errors, which carry no headers. 503s are rare: reading one
 * body to find its code costs nothing on the normal path.
 */
import type { Plugin } from "graphql-yoga";
import { outageHeaders } from "../../db/outage.js";

export function useRetryAfter(): Plugin {
  return {
    async onResponse({ response }) {
      if (response.status !== 503 || response.headers.has("retry-after")) return;
      const body = await response.clone().json().catch(() => null) as { code?: string; errors?: { extensions?: { code?: string } }[] } | null;
      if ((body?.code ?? body?.errors?.[0]?.extensions?.code) === "UNAVAILABLE") response.headers.set("retry-after", outageHeaders["retry-after"]);
    },
  };
}

/**
 * Bearer | X-Api-Key | HTTP Basic (key as user name, REST's vendor convention) → principal.
 * Every API path needs a key; probes, /openapi.json and the GraphiQL page do not.
 */
import type { Plugin } from "graphql-yoga";
import { isOutage, outageHeaders, outageProblem } from "../../db/outage.js";
import type { Authenticator } from "../../domains/clients/clients.service.js";
import { errorResponse } from "../../rest/problem.js";
import { isGraphQLPath, stateOf } from "../request-state.js";

const PUBLIC = new Set(["/healthz", "/readyz", "/metrics", "/openapi.json"]);

export function presentedKey(headers: Headers): string | null {
  const auth = headers.get("authorization");
  if (auth) {
    const [scheme, value = ""] = auth.split(" ", 2);
    if (/^bearer$/i.test(scheme)) return value.trim() || null;
    if (/^basic$/i.test(scheme)) {
      const decoded = Buffer.from(value, "base64").toString("utf8");
      return decoded.split(":")[0] || null;
    }
    return null;
  }
  return headers.get("x-api-key")?.trim() || null;
}

export function useAuthentication({ auth }: { auth: Authenticator }): Plugin {
  return {
    async onRequest({ request, url, endResponse }) {
      if (PUBLIC.has(url.pathname)) return;
      const graphql = isGraphQLPath(url.pathname);
      // the GraphiQL page itself is public; the operations it sends are not
      if (graphql && request.method === "GET" && (request.headers.get("accept") ?? "").includes("text/html")) return;
      const key = presentedKey(request.headers);
      let principal;
      try { principal = key ? await auth.authenticate(key) : null; } catch (error) {
        // a key not in the cache cannot be checked while the database is away: 503, not 401 and not 500
        if (!isOutage(error)) throw error;
        return endResponse(errorResponse(request, outageProblem, stateOf(request).requestId, outageHeaders));
      }
      if (principal) { stateOf(request).principal = principal; return; }
      const problem = { code: "UNAUTHENTICATED", detail: key ? "The API key is not valid or has been revoked." : "Send your API key as Authorization: Bearer <key>." };
      const headers = { "www-authenticate": 'Bearer realm="onboarding-gateway", Basic realm="onboarding-gateway"' };
      endResponse(errorResponse(request, problem, stateOf(request).requestId, headers));
    },
  };
}

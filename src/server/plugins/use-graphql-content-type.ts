/**
 * Which bodies /graphql reads. A POST of a type yoga has no parser for is 415 with a GraphQL-shaped
 * error (yoga's own 415 has no body). A POST of a type a browser sends cross-site without asking
 * first (a form or multipart: no CORS preflight) needs a header only a preflighted request can
 * carry, as yoga's CSRF prevention plugin asks: otherwise a third-party page could post an operation
 * that rides the browser's remembered HTTP Basic login.
 */
import type { Plugin } from "graphql-yoga";
import { errorResponse } from "../../rest/problem.js";
import { stateOf } from "../request-state.js";

/** yoga's CSRF prevention plugin's default header; any value */
const CSRF_HEADER = "x-graphql-yoga-csrf";
/** the CORS-safelisted content types: a page on any origin may send them without a preflight */
const SIMPLE_TYPES = new Set(["application/x-www-form-urlencoded", "multipart/form-data", "text/plain"]);

export function useGraphQLContentType(): Plugin {
  return {
    onRequestParse({ request, requestParser, endResponse }) {
      if (request.method !== "POST") return; // GET's parameters are in its URL; other methods are yoga's 405
      const refuse = (code: string, detail: string) => endResponse(errorResponse(request, { code, detail }, stateOf(request).requestId));
      if (!requestParser)
        return refuse(
          "UNSUPPORTED_MEDIA_TYPE",
          "Send the operation as application/json (multipart/form-data for file uploads, with the x-graphql-yoga-csrf header).",
        );
      const type = (request.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
      if (SIMPLE_TYPES.has(type) && !request.headers.has(CSRF_HEADER))
        refuse("PREFLIGHT_REQUIRED", `A ${type} body needs the ${CSRF_HEADER} header (any value), which a browser sends only after a CORS preflight.`);
    },
  };
}

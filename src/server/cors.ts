/**
 * yoga's `cors` option from CORS_ORIGINS. An allowed origin is named back; any other, and `null`
 * (a sandboxed frame, a file, a data: URL: any page can be one), gets no CORS headers, so the browser
 * keeps the answer from the page. Never with ambient credentials (cookies, a remembered Basic login):
 * a browser app sends its key in a header.
 */
import type { Config } from "../config.js";

export function corsPolicy(origins: Config["corsOrigins"]) {
  return (request: Request) => {
    const origin = request.headers.get("origin");
    const allowed = !!origin && origin !== "null" && (origins === "*" || origins.includes(origin));
    return allowed ? { origin, credentials: false } : (false as const);
  };
}

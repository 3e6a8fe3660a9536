/**
 * The headers every answer carries, yoga's and the lanes' alike, laid under the answer's own: no
 * MIME sniffing, no framing, no referrer, and no caching, since every API answer is for one key and
 * most carry personal data (an answer that may be cached, such as the docs or the shared lookups,
 * says so itself). An HTML page sets its own Content-Security-Policy; the API's allows nothing.
 * Strict-Transport-Security only when the request came over TLS (by a trusted proxy's word, see
 * peer.ts): this process itself listens on plain HTTP.
 */
const BASE: Readonly<Record<string, string>> = Object.freeze({
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
  "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
});
const OVER_TLS: Readonly<Record<string, string>> = Object.freeze({ ...BASE, "strict-transport-security": "max-age=31536000" });

export const securityHeaders = (tls: boolean) => (tls ? OVER_TLS : BASE);

/** What an HTML page's Content-Security-Policy shares: same-origin only, never framed, no plugins, no form posts. */
export const pagePolicy = (directives: string) =>
  `default-src 'self'; ${directives}; frame-ancestors 'none'; base-uri 'none'; form-action 'none'; object-src 'none'`;

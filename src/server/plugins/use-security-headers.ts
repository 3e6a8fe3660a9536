/** The security headers (security-headers.ts) on every answer yoga gives, under the answer's own. */
import type { Plugin } from "graphql-yoga";
import { peerOf, socketOf } from "../peer.js";
import { securityHeaders } from "../security-headers.js";

export function useSecurityHeaders(trustedProxies: number): Plugin {
  return {
    onResponse({ request, response, serverContext }) {
      const headers = securityHeaders(peerOf(request.headers, socketOf(serverContext), trustedProxies).tls);
      for (const name in headers) if (!response.headers.has(name)) response.headers.set(name, headers[name]);
    },
  };
}

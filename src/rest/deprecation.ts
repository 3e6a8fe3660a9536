/**
 * Deprecated (v1) routes: every answer carries Deprecation (RFC 9745), Sunset (RFC 8594) and a
 * `successor-version` Link (RFC 8288) to the route's v2 twin; V1_ENABLED=0 answers 410 instead.
 * Applied in one place, the REST shim, from the route's `successor`.
 */
export type LegacyPolicy = {
  enabled: boolean;
  deprecatedAt: Date;
  sunset: Date;
  /** counts one call of a deprecated route (metrics) */
  count(route: string, clientId: string): void;
};

export function deprecationHeaders(successor: string, policy: LegacyPolicy): Record<string, string> {
  return {
    deprecation: `@${Math.floor(policy.deprecatedAt.getTime() / 1000)}`,
    sunset: policy.sunset.toUTCString(),
    link: `<${successor}>; rel="successor-version"`,
  };
}

/** The response with the deprecation headers added (a fresh Response: some are immutable). */
export function withHeaders(response: Response, headers: Record<string, string>) {
  const out = new Headers(response.headers);
  for (const [name, value] of Object.entries(headers)) out.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers: out });
}

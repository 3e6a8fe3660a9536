/**
 * Deprecated (v1) routes: every answer carries Deprecation (RFC 9745), Sunset (RFC 8594) and a
 * `successor-version` Link (RFC 8288) to the route's v2 twin; V1_ENABLED=0 answers 410 instead.
 * Applied in one place, the REST shim's onResponse, from the route's `successor`.
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

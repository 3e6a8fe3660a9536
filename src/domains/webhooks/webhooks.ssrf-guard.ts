/**
 * SSRF guard for webhook URLs. The host is resolved once, every address it resolves to is
 * classified (ipaddr.js), and the request then connects to the checked address through a pinned
 * `lookup`: a second DNS answer (rebinding) never reaches the socket.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { promisify } from "node:util";
import ipaddr from "ipaddr.js";

export type GuardOptions = {
  /** the client's mode: LIVE endpoints must be https */
  mode: "SANDBOX" | "LIVE";
  /** WEBHOOK_ALLOW_PRIVATE=1 */
  allowPrivate: boolean;
  /** the resolver; tests replace it to make a name resolve to a chosen address @default dns.lookup (all addresses) */
  resolve?: (hostname: string) => Promise<LookupAddress[]>;
};

/** A URL the gateway will not call; `reason` is safe to show the client. */
export class UrlRefused extends Error {
  /** `unresolved`: DNS gave no answer (a network failure at delivery, not a refusal) */
  constructor(
    readonly reason: string,
    readonly unresolved = false,
  ) {
    super(reason);
    this.name = "UrlRefused";
  }
}

/** What a request may connect to: the URL and the one address that was checked. */
export type Target = { url: URL; address: string; family: 4 | 6 };

const lookupAll = promisify(dnsLookup);
const systemResolve = (hostname: string) => lookupAll(hostname, { all: true, verbatim: true });

/** IANA allocates public IPv6 from 2000::/3 alone. */
const GLOBAL_UNICAST = ipaddr.parseCIDR("2000::/3");

/**
 * An allow-list: IPv4 that ipaddr.js calls plain `unicast` (not private, loopback, link-local,
 * carrier-grade NAT, multicast, unspecified, broadcast or reserved), and IPv6 inside 2000::/3 that
 * it calls plain `unicast`. A denial of the ranges ipaddr.js names was not enough: it has no name
 * for the IPv4-compatible ::/96, so `[::7f00:1]` passed as unicast. Every IPv6 form that carries an
 * IPv4 is refused whatever IPv4 it carries (a public one is reached by its IPv4 address): IPv4-mapped
 * and -translated (::ffff:0:0/96, ::ffff:0:0:0/96), IPv4-compatible (::/96) and NAT64
 * (64:ff9b::/96, 64:ff9b:1::/48) lie outside 2000::/3; 6to4 (2002::/16) and Teredo (2001::/32)
 * inside it are named ranges.
 */
export function isPublicAddress(address: string) {
  if (!ipaddr.isValid(address)) return false;
  const ip = ipaddr.parse(address);
  if (ip.kind() === "ipv4") return ip.range() === "unicast";
  return (ip as ipaddr.IPv6).match(GLOBAL_UNICAST) && ip.range() === "unicast";
}

/** Checks the URL's form alone (no DNS): scheme, credentials, https for LIVE. */
function checkUrlForm(raw: string, mode: GuardOptions["mode"]): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UrlRefused("url must be an absolute http(s) URL.");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new UrlRefused("url must start with https:// (or http:// for a SANDBOX client).");
  if (mode === "LIVE" && url.protocol !== "https:") throw new UrlRefused("A LIVE client's webhook url must use https.");
  if (url.username || url.password) throw new UrlRefused("url must not carry a user name or password.");
  if (raw.length > 2048) throw new UrlRefused("url must be at most 2048 characters.");
  return url;
}

/** Resolves the URL's host and checks every address; the first one is the one to connect to. */
export async function resolveTarget(raw: string, options: GuardOptions): Promise<Target> {
  const url = checkUrlForm(raw, options.mode);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: LookupAddress[];
  if (ipaddr.isValid(host)) addresses = [{ address: host, family: host.includes(":") ? 6 : 4 }];
  else {
    try {
      addresses = await (options.resolve ?? systemResolve)(host);
    } catch {
      addresses = [];
    }
    if (!addresses.length) throw new UrlRefused(`The host ${host} of url does not resolve.`, true);
  }
  // one refused address refuses the name: a round-robin answer cannot smuggle in an internal target
  if (!options.allowPrivate && addresses.some((a) => !isPublicAddress(a.address)))
    throw new UrlRefused("url resolves to a private, loopback, link-local or otherwise non-public address.");
  const [first] = addresses;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}

/** A `lookup` for http.request that answers with the checked address only. */
export function pinnedLookup(target: Target) {
  return (_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
}

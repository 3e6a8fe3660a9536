/**
 * Who is calling, and over what, as far as this process can tell: the socket's peer, or behind
 * TRUST_PROXY proxies the address the nearest of them saw and the scheme the client used with the
 * outermost. Without TRUST_PROXY the X-Forwarded-* headers are the caller's own words, and ignored.
 * yoga's plugins and the lanes read it through this one function.
 */
import type { HeaderSource } from "./request-state.js";

export type Peer = {
  /** null without a socket (yoga.fetch in-process) */
  address: string | null;
  tls: boolean;
};

type Socket = { remoteAddress?: string; encrypted?: boolean } | undefined;

export function peerOf(headers: HeaderSource, socket: Socket, trustedProxies: number): Peer {
  const direct = { address: socket?.remoteAddress ?? null, tls: socket?.encrypted === true };
  if (!trustedProxies || !socket) return direct;
  // each proxy appends the address it saw: the entries left of the trusted ones are anyone's to write
  const forwarded = (headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((a) => a.trim())
    .filter(Boolean);
  const address = forwarded.length ? forwarded[Math.max(0, forwarded.length - trustedProxies)] : direct.address;
  const scheme = headers.get("x-forwarded-proto")?.split(",")[0].trim().toLowerCase();
  return { address, tls: scheme ? scheme === "https" : direct.tls };
}

/** The node socket under a whatwg request yoga serves (its server context's `req`), if any. */
export const socketOf = (serverContext: unknown): Socket => (serverContext as { req?: { socket?: Socket } } | undefined)?.req?.socket;

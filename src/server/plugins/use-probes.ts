/** /healthz (process up), /readyz (database, and Redis when configured), /metrics (Prometheus). */
import { createServer, type Server } from "node:http";
import { Response } from "../fetch-api.js";
import type { Plugin } from "graphql-yoga";
import { OPERATOR_ONLY, permits, refusalOf } from "../../principal.js";
import type { Metrics } from "../../lib/metrics.js";
import type { Authenticator } from "../../domains/clients/clients.service.js";
import { errorResponse, type Refusal } from "../../rest/problem.js";
import { stateOf, type HeaderSource } from "../request-state.js";
import { identify } from "./use-authentication.js";

export type ReadinessCheck = { name: string; check: () => Promise<void> };

/**
 * Who reads /metrics on the API's port. It names tenants' client ids and the service's load, so in
 * production only the operator key does (`open` is development's default), and with a port of its
 * own (METRICS_PORT, reached only from where the operator lets it be) the API's port does not serve it.
 */
export type ScrapeAccess = { auth: Authenticator; open: boolean; ownPort: boolean };

export function useProbes({ checks, metrics, scrape }: { checks: ReadinessCheck[]; metrics: Metrics; scrape: ScrapeAccess }): Plugin {
  const json = (body: unknown, status = 200) =>
    new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", "cache-control": "no-store" } });
  return {
    async onRequest({ url, request, endResponse }) {
      if (request.method !== "GET" && request.method !== "HEAD") return;
      if (url.pathname === "/healthz") return endResponse(json({ status: "ok" }));
      if (url.pathname === "/metrics" && !scrape.ownPort) {
        const refusal = scrape.open ? null : await operatorOnly(scrape.auth, request.headers);
        if (refusal) return endResponse(errorResponse(request, refusal.problem, stateOf(request).requestId, refusal.headers));
        return endResponse(
          new Response(await metrics.registry.metrics(), { headers: { "content-type": metrics.registry.contentType, "cache-control": "no-store" } }),
        );
      }
      if (url.pathname === "/readyz") {
        const results = await Promise.all(
          checks.map(async ({ name, check }) => {
            try {
              await withTimeout(check(), 2000);
              return [name, "ok"] as const;
            } catch {
              return [name, "unavailable"] as const;
            }
          }),
        );
        const ready = results.every(([, s]) => s === "ok");
        return endResponse(json({ status: ready ? "ready" : "unavailable", checks: Object.fromEntries(results) }, ready ? 200 : 503));
      }
    },
  };
}

/** 401 without a valid key, 403 for a client's key: null for the operator. */
async function operatorOnly(auth: Authenticator, headers: HeaderSource): Promise<Refusal | null> {
  const who = await identify(auth, headers);
  if (!("principal" in who)) return who;
  return permits(who.principal, OPERATOR_ONLY) ? null : { problem: { code: "FORBIDDEN", detail: refusalOf(OPERATOR_ONLY, "GET /metrics") }, headers: {} };
}

/** METRICS_PORT: /metrics alone, on a server of its own; resolves to its stop. */
export async function listenForScrapes(metrics: Metrics, port: number, host: string): Promise<() => Promise<void>> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0];
    if (path !== "/metrics" || (req.method !== "GET" && req.method !== "HEAD")) {
      res.writeHead(404).end();
      return;
    }
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { "content-type": metrics.registry.contentType, "cache-control": "no-store" }).end(req.method === "HEAD" ? undefined : text),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, resolve);
  });
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
}

const withTimeout = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error("timeout")), ms).unref())]);

/** /healthz (process up), /readyz (database, and Redis when configured), /metrics (Prometheus). */
import { Response } from "../fetch-api.js";
import type { Plugin } from "graphql-yoga";
import type { Metrics } from "../../lib/metrics.js";

export type ReadinessCheck = { name: string; check: () => Promise<void> };

export function useProbes({ checks, metrics }: { checks: ReadinessCheck[]; metrics: Metrics }): Plugin {
  const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", "cache-control": "no-store" } });
  return {
    async onRequest({ url, request, endResponse }) {
      if (request.method !== "GET" && request.method !== "HEAD") return;
      if (url.pathname === "/healthz") return endResponse(json({ status: "ok" }));
      if (url.pathname === "/metrics")
        return endResponse(new Response(await metrics.registry.metrics(), { headers: { "content-type": metrics.registry.contentType } }));
      if (url.pathname === "/readyz") {
        const results = await Promise.all(checks.map(async ({ name, check }) => {
          try { await withTimeout(check(), 2000); return [name, "ok"] as const; } catch { return [name, "unavailable"] as const; }
        }));
        const ready = results.every(([, s]) => s === "ok");
        return endResponse(json({ status: ready ? "ready" : "unavailable", checks: Object.fromEntries(results) }, ready ? 200 : 503));
      }
    },
  };
}

const withTimeout = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error("timeout")), ms).unref())]);

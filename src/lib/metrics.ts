/** Prometheus metrics (prom-client): one registry per app so tests and instances stay apart. */
import { collectDefaultMetrics, Counter, Histogram, Registry } from "prom-client";

export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({ name: "http_requests_total", help: "HTTP requests", labelNames: ["method", "route", "status"], registers: [registry] });
  const duration = new Histogram({
    name: "http_request_duration_seconds", help: "HTTP request duration", labelNames: ["method", "route"],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5], registers: [registry],
  });
  const legacy = new Counter({ name: "v1_requests_total", help: "Calls of deprecated v1 routes, by route and API client", labelNames: ["route", "client_id"], registers: [registry] });
  const webhookDeliveries = new Counter({ name: "webhook_deliveries_total", help: "Webhook delivery attempts by outcome", labelNames: ["outcome"], registers: [registry] });
  return {
    registry,
    /** one call of a v1 route: operators see who still has to migrate */
    countLegacy(route: string, clientId: string) { legacy.inc({ route, client_id: clientId }); },
    /** one webhook delivery attempt ended with this outcome (SUCCEEDED, HTTP_ERROR, TIMEOUT, …) */
    webhookDelivery(outcome: string) { webhookDeliveries.inc({ outcome }); },
    observe(method: string, route: string, status: number, seconds: number) {
      requests.inc({ method, route, status });
      duration.observe({ method, route }, seconds);
    },
  };
}
export type Metrics = ReturnType<typeof createMetrics>;

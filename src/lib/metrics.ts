/** Prometheus metrics (prom-client): one registry per app so tests and instances stay apart. */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

/** What a scrape reads of the backlogs: queued jobs per queue (pg-boss) and unpublished outbox rows. */
export type BacklogSources = {
  queues: () => Promise<{ queue: string; due: number; scheduled: number; oldestDueSeconds: number }[]>;
  /** the declared queues, shown at 0 when empty */
  knownQueues: () => string[];
  outbox: () => Promise<{ unpublished: number; oldestSeconds: number }>;
};

/** Methods named in labels; any other a caller sends is counted as "other". */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/**
 * `routeOf`: the label of a request no route answered (a 401, a 404), from a fixed set: a label
 * made from the caller's path would grow the registry with every path a caller makes up.
 */
export function createMetrics({ routeOf }: { routeOf: (pathname: string) => string }) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({ name: "http_requests_total", help: "HTTP requests", labelNames: ["method", "route", "status"], registers: [registry] });
  const duration = new Histogram({
    name: "http_request_duration_seconds",
    help: "HTTP request duration",
    labelNames: ["method", "route"],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const legacy = new Counter({
    name: "v1_requests_total",
    help: "Calls of deprecated v1 routes, by route and API client",
    labelNames: ["route", "client_id"],
    registers: [registry],
  });
  const lanes = new Counter({
    name: "http_lane_requests_total",
    help: "Requests answered by a lean lane in front of yoga (src/server/lanes.ts), by lane",
    labelNames: ["lane"],
    registers: [registry],
  });
  const webhookDeliveries = new Counter({
    name: "webhook_deliveries_total",
    help: "Webhook delivery attempts by outcome",
    labelNames: ["outcome"],
    registers: [registry],
  });
  return {
    registry,
    /** Backlog gauges, read from the database on each scrape (one read shared by the gauges of a scrape). */
    watchBacklog(sources: BacklogSources) {
      const once = <T>(read: () => Promise<T>) => {
        let cached: { at: number; value: Promise<T> } | null = null;
        return () => {
          if (!cached || Date.now() - cached.at > 500) cached = { at: Date.now(), value: read() };
          return cached.value;
        };
      };
      const queues = once(async () => {
        const stats = new Map(sources.knownQueues().map((queue) => [queue, { queue, due: 0, scheduled: 0, oldestDueSeconds: 0 }]));
        for (const s of await sources.queues()) stats.set(s.queue, s);
        return [...stats.values()];
      });
      const outbox = once(sources.outbox);
      const gauge = (name: string, help: string, labelNames: string[], set: (g: Gauge) => Promise<void>) =>
        new Gauge({
          name,
          help,
          labelNames,
          registers: [registry],
          async collect() {
            this.reset();
            await set(this);
          },
        });
      gauge("job_queue_depth", "Jobs due and waiting for a worker, by queue", ["queue"], async (g) => {
        for (const s of await queues()) g.set({ queue: s.queue }, s.due);
      });
      gauge("job_queue_scheduled", "Jobs queued to start later (retries on a schedule), by queue", ["queue"], async (g) => {
        for (const s of await queues()) g.set({ queue: s.queue }, s.scheduled);
      });
      gauge("job_queue_oldest_age_seconds", "How long the oldest due job has waited, by queue", ["queue"], async (g) => {
        for (const s of await queues()) g.set({ queue: s.queue }, s.oldestDueSeconds);
      });
      gauge("outbox_unpublished_events", "Committed events not yet published (outbox lag)", [], async (g) => {
        g.set((await outbox()).unpublished);
      });
      gauge("outbox_oldest_unpublished_age_seconds", "Age of the oldest unpublished event", [], async (g) => {
        g.set((await outbox()).oldestSeconds);
      });
    },
    /**
     * The newest watchlist import, read on each scrape and labelled with its list version: users its
     * re-screen queued, and seconds from the import to the re-screen queued and to the last alert it
     * raised (no sample until there is one).
     */
    watchListImports(
      newest: () => Promise<{ listVersion: string; rescreened: number; rescreenSeconds: number | null; lastAlertSeconds: number | null } | null>,
    ) {
      const gauge = (name: string, help: string, pick: (n: NonNullable<Awaited<ReturnType<typeof newest>>>) => number | null) =>
        new Gauge({
          name,
          help,
          labelNames: ["list_version"],
          registers: [registry],
          async collect() {
            this.reset();
            const n = await newest();
            const value = n && pick(n);
            if (n && value !== null) this.set({ list_version: n.listVersion }, value);
          },
        });
      gauge("watchlist_import_rescreened_users", "Users the newest watchlist import queued a re-screen for", (n) => n.rescreened);
      gauge("watchlist_import_rescreen_delay_seconds", "Seconds from the newest watchlist import to its re-screen queued", (n) => n.rescreenSeconds);
      gauge(
        "watchlist_import_last_alert_delay_seconds",
        "Seconds from the newest watchlist import to the last alert (review) its re-screen raised",
        (n) => n.lastAlertSeconds,
      );
    },
    /** one call of a v1 route: operators see who still has to migrate */
    countLegacy(route: string, clientId: string) {
      legacy.inc({ route, client_id: clientId });
    },
    /** one request answered by a lean lane instead of yoga's pipeline */
    countLane(lane: "rest" | "graphql") {
      lanes.inc({ lane });
    },
    /** one webhook delivery attempt ended with this outcome (SUCCEEDED, HTTP_ERROR, TIMEOUT, …) */
    webhookDelivery(outcome: string) {
      webhookDeliveries.inc({ outcome });
    },
    /** the label of a path no route answered */
    routeOf,
    observe(method: string, route: string, status: number, seconds: number) {
      const known = METHODS.has(method) ? method : "other";
      requests.inc({ method: known, route, status });
      duration.observe({ method: known, route }, seconds);
    },
  };
}
export type Metrics = ReturnType<typeof createMetrics>;

/** Environment → typed Config. A bad value exits at start with one line naming the variable. */
import path from "node:path";
import { DEFAULT_RETRY_SCHEDULE_MS, DELIVERY_TIMEOUT_MS } from "./domains/webhooks/webhooks.rules.js";
import { MAX_DOCUMENT_BYTES } from "./domains/documents/documents.rules.js";

export type Config = {
  port: number;
  host: string;
  /** @default "./.data" — embedded PGlite data, generated encryption key, bootstrap.json */
  dataDir: string;
  /** PostgreSQL server; unset → embedded PGlite under dataDir */
  databaseUrl?: string;
  /** PostgreSQL schema to use (tests run each suite in its own) @default "public" */
  databaseSchema?: string;
  redisUrl?: string;
  /** REDIS_PREFIX: what every Redis channel and key of this deployment starts with @default "og:<deployment id>:" (src/db/deployment.ts) */
  redisPrefix?: string;
  adminApiKey?: string;
  /** 32-byte AES key (hex or base64); unset → generated into dataDir (embedded default only) */
  encryptionKey?: string;
  logLevel: string;
  /** GraphiQL and introspection @default true unless NODE_ENV=production */
  graphiql: boolean;
  /** @default 1 MiB */
  maxBodyBytes: number;
  /** open connections (HTTP and WebSocket) this instance holds; one more is closed at once (MAX_CONNECTIONS) @default 1024 */
  maxConnections: number;
  /** a request's headers must arrive within this (HEADERS_TIMEOUT_SECONDS) @default 10 */
  headersTimeoutSeconds: number;
  /** a request, body included, must arrive within this (REQUEST_TIMEOUT_SECONDS) @default 60 */
  requestTimeoutSeconds: number;
  /** an idle keep-alive connection is closed after this (KEEP_ALIVE_TIMEOUT_SECONDS) @default 5 */
  keepAliveTimeoutSeconds: number;
  /** bytes the parsed query texts kept by yoga's parse cache may weigh, and the lanes' validated texts as much again (QUERY_CACHE_BYTES) @default 16 MiB */
  queryCacheBytes: number;
  /** requests per API key per minute; 0 turns the limit off @default 600 */
  rateLimitPerMinute: number;
  /** open subscriptions per API key on this instance, graphql-ws and SSE together (MAX_SUBSCRIPTIONS_PER_KEY) @default 50 */
  maxSubscriptionsPerKey: number;
  /** open subscriptions per graphql-ws socket (MAX_SUBSCRIPTIONS_PER_SOCKET) @default 20 */
  maxSubscriptionsPerSocket: number;
  /** open subscriptions on this instance, all keys together (MAX_SUBSCRIPTIONS) @default 2000 */
  maxSubscriptions: number;
  /** OTP email for LIVE clients, e.g. smtp://user:pass@host:587; unset → 503 DELIVERY_UNAVAILABLE */
  smtpUrl?: string;
  /** OTP SMS for LIVE clients: a JSON POST {to, body} to this URL; unset → 503 DELIVERY_UNAVAILABLE */
  smsWebhookUrl?: string;
  /** sender address of OTP email @default "no-reply@localhost" */
  otpFrom: string;
  /** OTP codes a client may send an hour, every channel and mode together (OTP_SENDS_PER_CLIENT_PER_HOUR) @default 1000 */
  otpSendsPerClientPerHour: number;
  /** where document bytes live: files under DATA_DIR, or a table @default "database" with DATABASE_URL, else "file" */
  documentStore: "file" | "database";
  /** the v1 (legacy) routes answer; V1_ENABLED=0 → 410 on every v1 path @default true */
  v1Enabled: boolean;
  /** when v1 goes away: the Sunset header of every v1 answer (V1_SUNSET, an ISO 8601 date or date-time) @default 2027-06-30 */
  v1Sunset: Date;
  /** WEBHOOK_ALLOW_PRIVATE=1: webhook endpoints may resolve to private, loopback and link-local addresses (development only) @default false */
  webhookAllowPrivate: boolean;
  /** work background jobs in this process (default); JOBS=0 for a web-only instance beside `cli worker` */
  jobs: boolean;
  /** PERIODIC_CHECKS_CRON (UTC, default hourly at :15; "off" → none) */
  periodicChecksCron: string | null;
  /** JOBS_CRON_CHECK_SECONDS: how often pg-boss looks for due schedules */
  cronCheckSeconds: number;
  /** delays after each failed webhook attempt, in ms (WEBHOOK_RETRY_SCHEDULE: comma-separated seconds) @default 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h */
  webhookRetrySchedule: number[];
  /** a webhook answer later than this is a TIMEOUT (WEBHOOK_TIMEOUT_SECONDS) @default 10 */
  webhookTimeoutSeconds: number;
  /** a delivery job in hand longer than this is taken for a dead worker's and sent again (WEBHOOK_JOB_EXPIRE_SECONDS) @default 60 */
  webhookJobExpireSeconds: number;
  /** a check run's job in hand longer than this is taken for a dead worker's and run again (CHECK_JOB_EXPIRE_SECONDS) @default 60 */
  checkJobExpireSeconds: number;
  /** how often the job engine looks for expired jobs and counts its queues (JOBS_MAINTENANCE_SECONDS) @default 120 */
  jobsMaintenanceSeconds: number;
  /** METRICS_PORT: /metrics is served on this port alone (not on PORT), to anyone who reaches it */
  metricsPort?: number;
  /** /metrics on PORT answers without a key; in production (NODE_ENV=production) only the operator key reads it */
  metricsPublic: boolean;
  /** hot reads answered by the lean lanes in front of yoga (src/server/lanes.ts); LANES=0 sends everything through yoga @default true */
  lanes: boolean;
  /** requests per minute of the operator key (ADMIN_API_KEY), in a budget of its own; 0 turns it off @default 600 */
  operatorRateLimitPerMinute: number;
  /** refused authentication attempts (no key, a bad one) per client address per minute, after which a 401 is a 429; 0 turns it off @default 60 */
  unauthenticatedRateLimitPerMinute: number;
  /** origins a browser page may call from (CORS); "*" any but `null` @default "*" in development, none in production */
  corsOrigins: "*" | string[];
  /** how many proxies in front of this process append to X-Forwarded-For and set X-Forwarded-Proto (TRUST_PROXY); 0: none, the headers are ignored @default 0 */
  trustProxy: number;
  /** items of lists one GraphQL operation (or REST call) may answer; more is RESULT_TOO_LARGE (graphql/work-budget.ts) @default 10000 */
  maxRowsPerRequest: number;
  /** bytes of document files all requests together may be answering (contentBase64, the REST download) @default 20 MiB */
  maxFileBytesInFlight: number;
  /** uploads (document routes, GraphQL multipart) in flight per API key in this process; more → 429 @default 2 */
  maxConcurrentUploadsPerKey: number;
  /** uploads in flight in this process; more → 503 @default 8 */
  maxConcurrentUploads: number;
};

/** When v1 was deprecated (v2 published): the Deprecation header of every v1 answer (RFC 9745). */
export const V1_DEPRECATED_AT = new Date("2026-11-24T00:00:00Z");

export class ConfigError extends Error {}

function intVar(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER) {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return n;
}

function urlVar(env: NodeJS.ProcessEnv, name: string, protocols: string[]) {
  const raw = env[name];
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL`);
  }
  if (!protocols.includes(url.protocol)) throw new ConfigError(`${name} must start with ${protocols.join(" or ")}`);
  return raw;
}

function flagVar(env: NodeJS.ProcessEnv, name: string, fallback: boolean) {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (raw !== "0" && raw !== "1") throw new ConfigError(`${name} must be 0 or 1, got "${raw}"`);
  return raw === "1";
}

function dateVar(env: NodeJS.ProcessEnv, name: string, fallback: string) {
  const raw = env[name] || fallback;
  const date = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2}))?$/.test(raw) ? new Date(raw) : new Date(NaN);
  // a real calendar day: Date would roll 2027-02-30 over to March
  const real = !Number.isNaN(date.getTime()) && (raw.length > 10 || date.toISOString().slice(0, 10) === raw);
  if (!real) throw new ConfigError(`${name} must be an ISO 8601 date such as 2027-06-30, got "${raw}"`);
  return date;
}

function emailVar(env: NodeJS.ProcessEnv, name: string, fallback: string) {
  const raw = env[name];
  if (!raw) return fallback;
  // a bare address or `Name <address>`
  if (!/^(?:[^<>]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/.test(raw.trim()))
    throw new ConfigError(`${name} must be an email address, e.g. "Acme <no-reply@acme.test>"`);
  return raw.trim();
}

/** WEBHOOK_RETRY_SCHEDULE: "5,300,1800" (seconds, decimals allowed) → milliseconds. */
function scheduleVar(env: NodeJS.ProcessEnv, name: string, fallbackMs: readonly number[]) {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return [...fallbackMs];
  const parts = raw.split(",").map((p) => p.trim());
  const seconds = parts.map((p) => (/^\d+(\.\d+)?$/.test(p) ? Number(p) : NaN));
  if (parts.length > 20 || seconds.some((s) => !(s >= 0.1 && s <= 7 * 24 * 3600)))
    throw new ConfigError(`${name} must be up to 20 comma-separated delays in seconds (0.1 to 604800), e.g. "5,300,1800", got "${raw}"`);
  return seconds.map((s) => Math.round(s * 1000));
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const production = env.NODE_ENV === "production";
  const adminApiKey = operatorKey(env.ADMIN_API_KEY);
  const encryptionKey = env.ENCRYPTION_KEY || undefined;
  if (encryptionKey && decodeKey(encryptionKey) === null) throw new ConfigError("ENCRYPTION_KEY must be 32 bytes as hex (64 chars) or base64");
  const databaseUrl = urlVar(env, "DATABASE_URL", ["postgres:", "postgresql:"]);
  const documentStore = env.DOCUMENT_STORE || (databaseUrl ? "database" : "file");
  if (documentStore !== "file" && documentStore !== "database") throw new ConfigError(`DOCUMENT_STORE must be "file" or "database", got "${documentStore}"`);
  const allowPrivate = env.WEBHOOK_ALLOW_PRIVATE || "0";
  if (allowPrivate !== "0" && allowPrivate !== "1") throw new ConfigError(`WEBHOOK_ALLOW_PRIVATE must be "0" or "1", got "${allowPrivate}"`);
  const webhookTimeoutSeconds = intVar(env, "WEBHOOK_TIMEOUT_SECONDS", DELIVERY_TIMEOUT_MS / 1000, 1, 60);
  const webhookJobExpireSeconds = intVar(env, "WEBHOOK_JOB_EXPIRE_SECONDS", 60, 2, 3600);
  // an attempt still waiting for its answer must not be taken for a dead worker's and sent twice
  if (webhookJobExpireSeconds <= webhookTimeoutSeconds)
    throw new ConfigError(`WEBHOOK_JOB_EXPIRE_SECONDS (${webhookJobExpireSeconds}) must be greater than WEBHOOK_TIMEOUT_SECONDS (${webhookTimeoutSeconds})`);
  const requestTimeoutSeconds = intVar(env, "REQUEST_TIMEOUT_SECONDS", 60, 1, 3600);
  // node refuses a headers timeout longer than the whole request's
  const headersTimeoutSeconds = intVar(env, "HEADERS_TIMEOUT_SECONDS", Math.min(10, requestTimeoutSeconds), 1, requestTimeoutSeconds);
  if (databaseUrl && !encryptionKey)
    throw new ConfigError("ENCRYPTION_KEY is required when DATABASE_URL is set (it cannot be generated for a shared database)");
  return {
    port: intVar(env, "PORT", 4000, 0, 65535),
    host: env.HOST || "0.0.0.0",
    dataDir: path.resolve(env.DATA_DIR || "./.data"),
    databaseUrl,
    databaseSchema: env.DATABASE_SCHEMA || undefined,
    redisUrl: urlVar(env, "REDIS_URL", ["redis:", "rediss:"]),
    redisPrefix: prefixVar(env, "REDIS_PREFIX"),
    adminApiKey,
    encryptionKey,
    logLevel: env.LOG_LEVEL || (env.NODE_ENV === "test" ? "silent" : "info"),
    graphiql: env.GRAPHIQL ? env.GRAPHIQL !== "0" : !production,
    maxBodyBytes: intVar(env, "MAX_BODY_BYTES", 1024 * 1024, 1024),
    queryCacheBytes: intVar(env, "QUERY_CACHE_BYTES", 16 * 1024 * 1024, 0),
    maxConnections: intVar(env, "MAX_CONNECTIONS", 1024, 1),
    headersTimeoutSeconds,
    requestTimeoutSeconds,
    keepAliveTimeoutSeconds: intVar(env, "KEEP_ALIVE_TIMEOUT_SECONDS", 5, 1, 3600),
    rateLimitPerMinute: intVar(env, "RATE_LIMIT_PER_MINUTE", 600, 0),
    maxSubscriptionsPerKey: intVar(env, "MAX_SUBSCRIPTIONS_PER_KEY", 50, 1),
    maxSubscriptionsPerSocket: intVar(env, "MAX_SUBSCRIPTIONS_PER_SOCKET", 20, 1),
    maxSubscriptions: intVar(env, "MAX_SUBSCRIPTIONS", 2000, 1),
    smtpUrl: urlVar(env, "SMTP_URL", ["smtp:", "smtps:"]),
    smsWebhookUrl: urlVar(env, "SMS_WEBHOOK_URL", ["https:", "http:"]),
    otpFrom: emailVar(env, "OTP_FROM", "no-reply@localhost"),
    otpSendsPerClientPerHour: intVar(env, "OTP_SENDS_PER_CLIENT_PER_HOUR", 1000, 1, 1_000_000),
    documentStore,
    v1Enabled: flagVar(env, "V1_ENABLED", true),
    v1Sunset: dateVar(env, "V1_SUNSET", "2027-06-30"),
    webhookAllowPrivate: allowPrivate === "1",
    jobs: env.JOBS !== "0",
    periodicChecksCron: cronVar(env, "PERIODIC_CHECKS_CRON", "15 * * * *"),
    /** how often pg-boss looks for due schedules (its default, 30 s; tests shorten it); pg-boss takes 1 to 45 */
    cronCheckSeconds: intVar(env, "JOBS_CRON_CHECK_SECONDS", 30, 1, 45),
    webhookRetrySchedule: scheduleVar(env, "WEBHOOK_RETRY_SCHEDULE", DEFAULT_RETRY_SCHEDULE_MS),
    webhookTimeoutSeconds,
    webhookJobExpireSeconds,
    // the first screening of a process loads the watchlist (a few seconds): keep well above that
    checkJobExpireSeconds: intVar(env, "CHECK_JOB_EXPIRE_SECONDS", 60, 10, 3600),
    jobsMaintenanceSeconds: intVar(env, "JOBS_MAINTENANCE_SECONDS", 120, 1, 3600),
    lanes: flagVar(env, "LANES", true),
    operatorRateLimitPerMinute: intVar(env, "OPERATOR_RATE_LIMIT_PER_MINUTE", 600, 0),
    unauthenticatedRateLimitPerMinute: intVar(env, "UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE", 60, 0),
    corsOrigins: originsVar(env, "CORS_ORIGINS", production ? [] : "*"),
    trustProxy: intVar(env, "TRUST_PROXY", 0, 0, 10),
    metricsPort: env.METRICS_PORT ? intVar(env, "METRICS_PORT", 0, 1, 65535) : undefined,
    metricsPublic: !production,
    maxRowsPerRequest: intVar(env, "MAX_ROWS_PER_REQUEST", 10_000, 1),
    // at least one largest file, or no request could read one
    maxFileBytesInFlight: intVar(env, "MAX_FILE_BYTES_IN_FLIGHT", 2 * MAX_DOCUMENT_BYTES, MAX_DOCUMENT_BYTES),
    maxConcurrentUploadsPerKey: intVar(env, "MAX_CONCURRENT_UPLOADS_PER_KEY", 2, 1, 1000),
    maxConcurrentUploads: intVar(env, "MAX_CONCURRENT_UPLOADS", 8, 1, 1000),
  };
}

/** CORS_ORIGINS: "*", "none", or comma-separated origins such as "https://app.example.com". */
function originsVar(env: NodeJS.ProcessEnv, name: string, fallback: "*" | string[]): "*" | string[] {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (raw === "*") return "*";
  if (raw === "none") return [];
  const origins = raw.split(",").map((o) => o.trim());
  for (const origin of origins) {
    const parsed = (() => {
      try {
        return new URL(origin);
      } catch {
        return null;
      }
    })();
    if (!parsed || parsed.origin !== origin || !/^https?:$/.test(parsed.protocol))
      throw new ConfigError(
        `${name} must be "*", "none" or comma-separated origins such as "https://app.example.com" (scheme, host and port only), got "${origin}"`,
      );
  }
  return origins;
}

/**
 * ADMIN_API_KEY opens every tenant's data: at least 32 printable characters, and not a character,
 * word or pattern repeated (at least 8 distinct characters, three quarters of its three-character
 * runs distinct). Random hex or base64 passes: `openssl rand -hex 24`.
 */
function operatorKey(raw: string | undefined) {
  if (!raw) return undefined;
  const advice = "use random text, e.g. openssl rand -hex 24";
  if (raw.length < 32) throw new ConfigError(`ADMIN_API_KEY must be at least 32 characters; ${advice}`);
  // a space or control character could not be sent back as "Authorization: Bearer <key>"
  if (!/^[\x21-\x7e]+$/.test(raw)) throw new ConfigError(`ADMIN_API_KEY must be printable ASCII without spaces; ${advice}`);
  const runs = raw.length - 2;
  const distinctRuns = new Set(Array.from({ length: runs }, (_, i) => raw.slice(i, i + 3))).size;
  if (new Set(raw).size < 8 || distinctRuns < runs * 0.75)
    throw new ConfigError(`ADMIN_API_KEY repeats a character, word or pattern: it is guessable; ${advice}`);
  return raw;
}

function prefixVar(env: NodeJS.ProcessEnv, name: string) {
  const raw = env[name];
  if (!raw) return undefined;
  if (!/^[\x21-\x7e]{1,100}$/.test(raw))
    throw new ConfigError(`${name} must be 1 to 100 printable ASCII characters without spaces, e.g. "acme-prod:", got "${raw}"`);
  return raw;
}

/** A five-field cron expression (UTC), or null for "off". */
function cronVar(env: NodeJS.ProcessEnv, name: string, fallback: string): string | null {
  const value = (env[name] ?? fallback).trim();
  if (value === "off") return null;
  if (!/^[\d*/,-]+(\s+[\d*/,-]+){4}$/.test(value)) throw new ConfigError(`${name} must be a five-field cron expression (UTC) or "off", got "${value}"`);
  return value;
}

/** 32 raw bytes from hex or base64, or null when it is neither. */
export function decodeKey(text: string): Buffer | null {
  const buf = /^[0-9a-f]{64}$/i.test(text) ? Buffer.from(text, "hex") : Buffer.from(text, "base64");
  return buf.length === 32 ? buf : null;
}

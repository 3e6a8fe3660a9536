/** Structured JSON logs (pino). Secrets and PII are redacted by path as a second line of defence. */
import { pino, type Logger } from "pino";

const REDACT = [
  "*.authorization",
  "*.Authorization",
  "*.api_key",
  "*.apiKey",
  "*.tax_id",
  "*.taxId",
  "*.code",
  "*.document_number",
  "*.documentNumber",
  "*.password",
  "*.secret",
  "*.email",
  "*.phone_number",
  "*.phoneNumber",
  "req.headers.authorization",
  'req.headers["x-api-key"]',
];

export function createLogger(level: string): Logger {
  return pino({ level, redact: { paths: REDACT, censor: "[redacted]" }, base: { service: "onboarding-gateway" } });
}
export type { Logger };

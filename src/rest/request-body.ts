/** A REST request body as a plain object: JSON today; the v1 shim adds form-urlencoded here. */
import { DomainError } from "../lib/errors.js";

export async function readBody(request: Request, maxBytes: number): Promise<Record<string, unknown>> {
  if (request.method === "GET" || request.method === "DELETE" || request.method === "HEAD") return {};
  const text = await request.text();
  if (Buffer.byteLength(text) > maxBytes) throw new DomainError("PAYLOAD_TOO_LARGE", `The body is larger than ${maxBytes} bytes.`);
  if (text.trim() === "") return {};
  const type = (request.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (type !== "application/json" && !type.endsWith("+json"))
    throw new DomainError("UNSUPPORTED_MEDIA_TYPE", "Send the body as application/json.");
  let parsed: unknown;
  try { parsed = JSON.parse(text); } catch {
    throw new DomainError("VALIDATION_FAILED", "The body is not valid JSON.", [{ field: "body", code: "malformed_json", message: "The body is not valid JSON." }]);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed))
    throw new DomainError("VALIDATION_FAILED", "The body must be a JSON object.", [{ field: "body", code: "invalid", message: "The body must be a JSON object." }]);
  return parsed as Record<string, unknown>;
}

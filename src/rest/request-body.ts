/**
 * THE body reader of every REST route: reads at most `maxBytes` (chunked bodies too), decodes
 * strict UTF-8, parses JSON or a form (`address[line1]=…`, as legacy callers send), and refuses
 * what no route could use (nesting past MAX_INPUT_DEPTH, NUL, lone surrogates) before any code
 * walks it. Every failure is the caller's: 400, 413 or 415, never a 500.
 */
import qs from "qs";
import { DomainError } from "../lib/errors.js";
import { describeJsonProblem, inspectJson, MAX_INPUT_DEPTH } from "../lib/json-guard.js";
import { restPath } from "./rest-names.js";

export type RestBody = { value: Record<string, unknown>; form: boolean };

const EMPTY: RestBody = { value: {}, form: false };
const bodyError = (message: string, code = "invalid") => new DomainError("VALIDATION_FAILED", message, [{ field: "body", code, message }]);

export async function readBody(request: Request, maxBytes: number): Promise<RestBody> {
  if (request.method === "GET" || request.method === "DELETE" || request.method === "HEAD" || !request.body) return EMPTY;
  return bodyOf(await readBytes(request.body, maxBytes), request.headers.get("content-type"));
}

/** A body read whole already (the write lane's, within the limit), judged as `readBody` judges it. */
export function bodyOf(bytes: Uint8Array, contentType: string | null): RestBody {
  const text = textOf(bytes);
  if (text.trim() === "") return EMPTY;
  const type = (contentType ?? "").split(";")[0].trim().toLowerCase();
  const form = type === "application/x-www-form-urlencoded";
  if (!form && type !== "application/json" && !type.endsWith("+json"))
    throw new DomainError("UNSUPPORTED_MEDIA_TYPE", "Send the body as application/json (or application/x-www-form-urlencoded).");
  const value = form ? parseForm(text) : parseJson(text);
  const problem = inspectJson(value);
  if (problem) {
    const field = problem.path ? restPath(problem.path) : "body";
    throw new DomainError("VALIDATION_FAILED", describeJsonProblem(problem, field), [
      { field, code: problem.kind, message: describeJsonProblem(problem, field) },
    ]);
  }
  return { value, form };
}

/** At most `maxBytes` of a body, however it is sent (chunked too); more is PAYLOAD_TOO_LARGE, read no further. */
async function readBytes(stream: ReadableStream<Uint8Array>, maxBytes: number) {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new DomainError("PAYLOAD_TOO_LARGE", `The body is larger than ${maxBytes} bytes.`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

function textOf(bytes: Uint8Array) {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw bodyError("The body is not valid UTF-8.", "malformed_text");
  }
}

function parseJson(text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw bodyError("The body is not valid JSON.", "malformed_json");
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw bodyError("The body must be a JSON object.");
  return parsed as Record<string, unknown>;
}

function parseForm(text: string): Record<string, unknown> {
  try {
    return qs.parse(text, {
      depth: MAX_INPUT_DEPTH,
      strictDepth: true,
      arrayLimit: 100,
      parameterLimit: 1000,
      allowPrototypes: false,
      plainObjects: true,
    }) as Record<string, unknown>;
  } catch {
    throw bodyError(`The form nests deeper than ${MAX_INPUT_DEPTH} levels.`, "too_deep");
  }
}

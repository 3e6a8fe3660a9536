/**
 * A body that never changes while the process runs (GraphiQL's page, the API description, the
 * reference page's assets), made on first use and kept, and answered compressed as the caller
 * accepts (br before gzip; `q=0` refuses): each encoding made once, off the event loop. The large
 * ones (GraphiQL, Swagger UI's script) are megabytes as they are, a fraction of that compressed. Not
 * at start: most starts (tests, production with GraphiQL off) never serve them.
 */
import { promisify } from "node:util";
import zlib from "node:zlib";
import { Response } from "./fetch-api.js";

type Encoding = "br" | "gzip";
type Made = { body: string | Uint8Array; headers: Record<string, string> };

/** Below this, compression saves less than its own headers. */
const WORTH_COMPRESSING = 1024;
const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** Answers what `make` gives (called once, on the first request). */
export function staticAnswer(make: () => Made | Promise<Made>) {
  let made: Promise<{ bytes: Uint8Array<ArrayBuffer>; headers: Record<string, string> }> | null = null;
  const encoded = new Map<Encoding, Promise<Uint8Array<ArrayBuffer>>>();
  const encode = (bytes: Uint8Array<ArrayBuffer>, encoding: Encoding) => {
    let body = encoded.get(encoding);
    if (!body) {
      const compressed =
        encoding === "br"
          ? brotli(bytes, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } })
          : gzip(bytes, { level: 6 });
      encoded.set(encoding, (body = compressed.then((b) => new Uint8Array(b))));
    }
    return body;
  };
  return async (request: Request) => {
    made ??= Promise.resolve(make()).then(({ body, headers }) => ({ bytes: new Uint8Array(Buffer.from(body)), headers }));
    const { bytes, headers } = await made;
    if (bytes.length < WORTH_COMPRESSING) return new Response(bytes, { headers });
    const encoding = preferredEncoding(request.headers.get("accept-encoding"));
    const varied = { ...headers, vary: "accept-encoding" };
    if (!encoding) return new Response(bytes, { headers: varied });
    return new Response(await encode(bytes, encoding), { headers: { ...varied, "content-encoding": encoding } });
  };
}

/** br before gzip when both are accepted; `q=0` refuses. */
function preferredEncoding(header: string | null): Encoding | null {
  const accepted = new Set(
    (header ?? "")
      .split(",")
      .map((part) => part.trim().toLowerCase())
      .filter((part) => !/;\s*q=0(\.0*)?$/.test(part))
      .map((part) => part.split(";")[0]!.trim()),
  );
  return accepted.has("br") ? "br" : accepted.has("gzip") || accepted.has("*") ? "gzip" : null;
}

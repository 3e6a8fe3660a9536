/**
 * Every error leaving GraphQL passes here (yoga's maskedErrors.maskError). DomainErrors become
 * GraphQLErrors with `extensions.code` (+ `fields`); GraphQL's own input errors become
 * VALIDATION_FAILED naming the field; anything else is INTERNAL with an errorId that is logged
 * beside the original, so no message, stack or SQL reaches the caller.
 */
import { randomUUID } from "node:crypto";
import { GraphQLError } from "graphql";
import { isOutage, outageGraphQLError } from "../db/outage.js";
import { clip, DomainError, listedProblems, SHOWN, type FieldError } from "../lib/errors.js";
import type { Logger } from "../lib/logger.js";

export function createMaskError(logger: Logger) {
  return (error: unknown): Error => {
    // the database unreachable or too slow is 503 UNAVAILABLE, not a bug (src/db/outage.ts)
    if (isOutage(error)) return outageGraphQLError(error instanceof GraphQLError ? error : undefined);
    if (!(error instanceof GraphQLError)) return internal(logger, error);
    const original = error.originalError;
    if (original instanceof DomainError) return fromDomainError(error, original);
    if (original && !(original instanceof GraphQLError) && !error.extensions?.http) return internal(logger, original, error);
    // parse, validation and variable-coercion errors from graphql-js carry no code (or only a scalar's) and no field
    const fields = listedProblems(fieldsOf(error.message)).fields;
    const message = shortened(withoutValues(error.message));
    if (error.extensions?.code && (error.extensions.fields || !fields.length) && error.message === message) return error;
    return new GraphQLError(message, {
      nodes: error.nodes,
      path: error.path,
      source: error.source,
      positions: error.positions,
      extensions: { ...error.extensions, code: "VALIDATION_FAILED", ...(fields.length ? { fields } : {}) },
    });
  };
}

function fromDomainError(error: GraphQLError, domain: DomainError) {
  return new GraphQLError(domain.message, {
    nodes: error.nodes,
    path: error.path,
    extensions: { code: domain.code, ...(domain.fields ? { fields: domain.fields } : {}), ...domain.meta },
  });
}

function internal(logger: Logger, original: unknown, wrapper?: GraphQLError) {
  const errorId = randomUUID();
  logger.error({ errorId, err: original, path: wrapper?.path }, "unexpected error");
  return new GraphQLError(`An unexpected error occurred; quote errorId ${errorId} to support.`, {
    nodes: wrapper?.nodes,
    path: wrapper?.path,
    extensions: { code: "INTERNAL", errorId },
  });
}

/**
 * graphql-js quotes the value it refused, and for an input object that is the whole object: a tax
 * id, a document number or a base64 file would come back in the error. The value is cut out; the
 * path and the reason stay.
 */
function withoutValues(message: string) {
  return message
    .replace(/ got invalid value .*?(?= at "|; |$)/s, " got an invalid value")
    .replace(/(cannot represent [^:;]*?value): .*?(?=; |$)/gs, "$1")
    .replace(/Value ".*?" does not exist in/gs, "The value does not exist in")
    .replace(/(Expected type "[^"]+")[^;]*/g, "$1");
}

/** A name graphql-js quotes (a field, an argument) is the caller's and can be as long as the body: cut, and the message too. */
export const shortened = (message: string) =>
  clip(
    message.replace(/"([^"]{121,})"/g, (_, name: string) => `"${clip(name)}"`),
    SHOWN.message,
  );

const AT_PATH = /^Variable "\$(\w+)" got (?:an )?invalid value .*? at "([\w.[\]]+)"/s;
const VARIABLE = /^Variable "\$(\w+)"/;
const UNKNOWN_FIELD = /Field "(\w+)" is not defined by type/;
const MISSING_FIELD = /Field "(\w+)" of required type "[^"]+" was not provided/;

/** Names the input field a graphql-js coercion message is about, relative to the `input` argument. */
function fieldsOf(message: string): FieldError[] {
  const at = AT_PATH.exec(message);
  const variable = VARIABLE.exec(message)?.[1];
  if (!variable) return [];
  let field = at ? at[2] : variable;
  const inner = UNKNOWN_FIELD.exec(message) ?? MISSING_FIELD.exec(message);
  if (inner) field = `${field}.${inner[1]}`;
  if (field.startsWith("input.")) field = field.slice("input.".length);
  const detail = withoutValues(message.split("; ").slice(1).join("; ") || message);
  const code = UNKNOWN_FIELD.test(message) ? "unknown_field" : MISSING_FIELD.test(message) ? "required" : "invalid";
  return [{ field: field.replace(/\[(\d+)\]/g, ".$1"), code, message: detail }];
}

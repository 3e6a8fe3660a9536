/**
 * "No such row" as a 404, in one place, so every lookup answers an unknown id the same way
 * (NOT_FOUND, "No {what} with that id exists.") and a malformed id never reaches the database.
 */
import { notFound } from "./errors.js";
import { isUuid } from "./ids.js";

/** The row, or NOT_FOUND: for `.then(found("…"))` after a lookup whose ids are not UUIDs (reference-data slugs). */
export const found =
  <T>(what: string) =>
  (row: T | null): T => {
    if (!row) throw notFound(what);
    return row;
  };

/**
 * The row that an id from the request names, or NOT_FOUND. An id that is not a UUID names nothing:
 * `find` is not called. `find` holds the whole where, the caller's tenant condition included: this
 * helper knows no tenancy and adds none, so each call site keeps its own scoping in sight.
 */
export async function foundOr404<T>(what: string, id: string, find: (id: string) => PromiseLike<T | null>): Promise<T> {
  return found<T>(what)(isUuid(id) ? await find(id) : null);
}

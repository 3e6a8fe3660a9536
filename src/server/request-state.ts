/** Per-request facts set by early plugins and read by later ones and the context factory. */
import type { Principal } from "../principal.js";

type State = { requestId: string; started: number; principal?: Principal; route?: string /** a GraphQL query: logged as a read */; read?: boolean };
const states = new WeakMap<Request, State>();

export const stateOf = (request: Request): State => {
  let state = states.get(request);
  if (!state) {
    state = { requestId: "", started: performance.now() };
    states.set(request, state);
  }
  return state;
};

/** /graphql speaks GraphQL errors; every other path is REST and speaks problem+json. */
export const isGraphQLPath = (pathname: string) => pathname === "/graphql" || pathname.startsWith("/graphql/");

/** What a rule reads of a request's headers: a whatwg Headers (yoga) or node's (the lanes, src/server/lanes.ts). */
export type HeaderSource = { get(name: string): string | null };

/** A plugin that replaces the request (whatwg-node's setRequest) hands its facts on to the new one. */
export const carryState = (from: Request, to: Request) => {
  states.set(to, stateOf(from));
};

/** node's headers read as whatwg's: lower-case names, repeated values joined by ", " */
export const nodeHeaders = (req: { headers: Record<string, string | string[] | undefined> }): HeaderSource => ({
  get(name) {
    const value = req.headers[name];
    return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
  },
});

/** What the gateway said when it refused: the first GraphQL error's code and message, or the network's. */
import type { CombinedError } from "@urql/preact";

export type Problem = { code: string; message: string };

/** graphql-ws reports a connection the server closed as the socket's close event, not as an Error. */
type Closed = { code: number; reason: string };
const isClosed = (value: unknown): value is Closed => typeof value === "object" && value !== null && "code" in value && "reason" in value;

export function problemOf(error: CombinedError): Problem {
  const [first] = error.graphQLErrors;
  if (first) return { code: String(first.extensions?.code ?? "ERROR"), message: first.message };
  const network: unknown = error.networkError;
  if (isClosed(network)) return { code: `CLOSED_${network.code}`, message: network.reason || "The server closed the connection." };
  return { code: "NETWORK_ERROR", message: error.networkError?.message || "The server could not be reached." };
}

/** A refused or revoked key, or one that is not a reviewer's: the console goes back to its login. */
export const isRefusedKey = (problem: Problem) => problem.code === "UNAUTHENTICATED" || problem.code === "FORBIDDEN";

/**
 * One urql client per reviewer key: queries and mutations POSTed to /graphql with the key as a
 * bearer token, subscriptions over graphql-ws on the same path with the key in connectionParams.
 * The document cache refetches a query holding a Review whenever a mutation returns one.
 */
import { cacheExchange, Client, fetchExchange, subscriptionExchange } from "@urql/preact";
import { createClient as createSocketClient, type Client as SocketClient } from "graphql-ws/client";

export type LiveState = "connecting" | "live" | "reconnecting";

export type ConsoleClient = {
  urql: Client;
  /** the websocket's state, for the header's indicator; returns the unsubscribe */
  onLiveState(listener: (state: LiveState) => void): () => void;
  dispose(): void;
};

const socketUrl = () => `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/graphql`;

export function createConsoleClient(key: string): ConsoleClient {
  const authorization = `Bearer ${key}`;
  const socket: SocketClient = createSocketClient({
    url: socketUrl(),
    connectionParams: { authorization },
    // retried on a dropped connection (a restart, a network change), not on a refused key
    retryAttempts: Number.POSITIVE_INFINITY,
  });
  const urql = new Client({
    url: "/graphql",
    // POST: the key goes in a header either way, and a long query never meets a URL limit
    preferGetMethod: false,
    fetchOptions: () => ({ headers: { authorization } }),
    exchanges: [
      cacheExchange,
      fetchExchange,
      subscriptionExchange({
        forwardSubscription: (request) => ({
          subscribe: (sink) => ({ unsubscribe: socket.subscribe({ ...request, query: request.query ?? "" }, sink) }),
        }),
      }),
    ],
  });
  return {
    urql,
    onLiveState(listener) {
      const off = [
        socket.on("connecting", () => listener("connecting")),
        socket.on("connected", () => listener("live")),
        socket.on("closed", () => listener("reconnecting")),
      ];
      return () => {
        for (const unsubscribe of off) unsubscribe();
      };
    },
    dispose: () => void socket.dispose(),
  };
}

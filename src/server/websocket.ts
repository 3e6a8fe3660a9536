/**
 * graphql-ws on the same /graphql path, executed through yoga's envelop so subscriptions get the
 * same schema, context and masking. The key comes in connectionParams (SPEC 1): `authorization`
 * (`Bearer <key>` or the bare key) or `x-api-key`, at the top or under `headers` as clients that
 * forward their HTTP headers send it. A missing or refused key closes the socket with 4401
 * Unauthorized and a reason: graphql-ws clients treat 4401 as fatal and report it, where the
 * library's default 4403 makes them reconnect silently for ever.
 */
import { randomUUID } from "node:crypto";
import type { Server } from "node:http";
import type { ExecutionArgs } from "graphql";
import { useServer } from "graphql-ws/use/ws";
import type { YogaServerInstance } from "graphql-yoga";
import { WebSocketServer, type WebSocket } from "ws";
import type { Principal, RequestContext, Services } from "../context.js";
import { presentedKey } from "./plugins/use-authentication.js";

type Extra = { principal?: Principal; socket: WebSocket };
type Enveloped = { execute: (a: ExecutionArgs) => never; subscribe: (a: ExecutionArgs) => never };

export function attachWebSocket(server: Server, yoga: YogaServerInstance<Record<string, unknown>, RequestContext>, services: Services) {
  const wss = new WebSocketServer({ server, path: yoga.graphqlEndpoint });
  useServer<Record<string, unknown> | undefined, Extra>({
    execute: (args) => (args.rootValue as Enveloped).execute(args),
    subscribe: (args) => (args.rootValue as Enveloped).subscribe(args),
    async onConnect(ctx) {
      const key = connectionKey(ctx.connectionParams ?? {});
      const principal = key ? await services.auth.authenticate(key) : null;
      if (!principal) {
        ctx.extra.socket.close(4401, key ? "Unauthorized: the API key is not valid or has been revoked" : "Unauthorized: send your API key as connectionParams.authorization");
        return false;
      }
      ctx.extra.principal = principal;
      return true;
    },
    async onSubscribe(ctx, _id, payload) {
      const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({ ...{}, ...ctx, params: payload });
      const document = parse(payload.query);
      const errors = validate(schema, document);
      if (errors.length) return errors;
      const contextValue = await contextFactory({ principal: ctx.extra.principal, requestId: randomUUID() } as never);
      return { schema, document, operationName: payload.operationName, variableValues: payload.variables, contextValue, rootValue: { execute, subscribe } };
    },
  }, wss);
  return () => new Promise<void>((resolve) => { for (const c of wss.clients) c.close(1001, "server shutting down"); wss.close(() => resolve()); });
}

/** The key from connectionParams, matched without regard to case, top level first, then `headers`. */
function connectionKey(params: Record<string, unknown>): string | null {
  const lower = (o: unknown) => Object.fromEntries(Object.entries(o && typeof o === "object" ? o : {}).map(([k, v]) => [k.toLowerCase(), v]));
  for (const source of [lower(params), lower(lower(params).headers)]) {
    const auth = source.authorization, apiKey = source["x-api-key"];
    if (typeof auth === "string" && auth.trim()) return auth.includes(" ") ? presentedKey(new Headers({ authorization: auth })) : auth.trim();
    if (typeof apiKey === "string" && apiKey.trim()) return apiKey.trim();
  }
  return null;
}

/**
 * graphql-ws on the same /graphql path, executed through yoga's envelop so subscriptions get the
 * same schema, context and masking. The key comes in connectionParams.authorization (SPEC 1).
 */
import { randomUUID } from "node:crypto";
import type { Server } from "node:http";
import type { ExecutionArgs } from "graphql";
import { useServer } from "graphql-ws/use/ws";
import type { YogaServerInstance } from "graphql-yoga";
import { WebSocketServer } from "ws";
import type { Principal, RequestContext, Services } from "../context.js";
import { presentedKey } from "./plugins/use-authentication.js";

type Extra = { principal?: Principal };
type Enveloped = { execute: (a: ExecutionArgs) => never; subscribe: (a: ExecutionArgs) => never };

export function attachWebSocket(server: Server, yoga: YogaServerInstance<Record<string, unknown>, RequestContext>, services: Services) {
  const wss = new WebSocketServer({ server, path: yoga.graphqlEndpoint });
  useServer<Record<string, unknown> | undefined, Extra>({
    execute: (args) => (args.rootValue as Enveloped).execute(args),
    subscribe: (args) => (args.rootValue as Enveloped).subscribe(args),
    async onConnect(ctx) {
      const params = ctx.connectionParams ?? {};
      const raw = String(params.authorization ?? params.Authorization ?? params["x-api-key"] ?? "");
      const key = raw.includes(" ") ? presentedKey(new Headers({ authorization: raw })) : raw;
      const principal = key ? await services.auth.authenticate(key) : null;
      if (!principal) return false; // graphql-ws closes with 4403 Forbidden
      ctx.extra.principal = principal;
      return true;
    },
    async onSubscribe(ctx, _id, payload) {
      const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({ ...ctx, params: payload });
      const document = parse(payload.query);
      const errors = validate(schema, document);
      if (errors.length) return errors;
      const contextValue = await contextFactory({ principal: ctx.extra.principal, requestId: randomUUID() } as never);
      return { schema, document, operationName: payload.operationName, variableValues: payload.variables, contextValue, rootValue: { execute, subscribe } };
    },
  }, wss);
  return () => new Promise<void>((resolve) => { for (const c of wss.clients) c.close(1001, "server shutting down"); wss.close(() => resolve()); });
}

import { contextCacheSymbol, createContextCache } from "@pothos/core";
import { GraphQLObjectType, GraphQLSchema, GraphQLString, parse } from "graphql";
import { createYoga } from "graphql-yoga";
import { describe, expect, it } from "vitest";
import { requestContext, withRequestContext, type Services } from "./context.js";
import { OPERATOR } from "./principal.js";
import { useRequestCachesReleased } from "./server/plugins/use-request-caches-released.js";
import { startTestApp } from "../test/helpers/app.js";

const services = {} as Services;

describe("a request's context (Pothos's per-request caches)", () => {
  it("keys Pothos's caches by a key of its own, which withRequestContext lets go of once the execution settles, even when it throws", async () => {
    const cache = createContextCache(() => ({}));
    const plain = requestContext(services, OPERATOR, "r0");
    expect(cache(plain)).toBe(cache(plain)); // one cache per request
    let seen: object | undefined;
    const answer = await withRequestContext(services, OPERATOR, "r1", async (ctx) => {
      expect((ctx as Record<symbol, unknown>)[contextCacheSymbol]).toBeTypeOf("object");
      seen = ctx;
      return cache(ctx);
    });
    expect((seen as Record<symbol, unknown>)[contextCacheSymbol]).toBeUndefined();
    expect(cache(seen!)).not.toBe(answer); // the request's caches are out of reach
    let failed: object | undefined;
    await expect(
      withRequestContext(services, OPERATOR, "r2", async (ctx) => {
        failed = ctx;
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect((failed as Record<symbol, unknown>)[contextCacheSymbol]).toBeUndefined();
  });

  it("lets go of them after a yoga execution too, and of a streamed result's only at its end", async () => {
    let during: unknown;
    let ctx: object | undefined;
    const schema = new GraphQLSchema({
      query: new GraphQLObjectType({
        name: "Query",
        fields: {
          seen: {
            type: GraphQLString,
            resolve: (_root, _args, context) => {
              ctx = context;
              during = (context as Record<symbol, unknown>)[contextCacheSymbol];
              return "ok";
            },
          },
        },
      }),
    });
    const yoga = createYoga({ schema, context: () => requestContext(services, OPERATOR, "r3"), plugins: [useRequestCachesReleased()], logging: false });
    const res = await yoga.fetch("http://test/graphql", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "{ seen }" }),
    });
    expect(await res.json()).toEqual({ data: { seen: "ok" } });
    expect(during).toBeTypeOf("object");
    expect((ctx as Record<symbol, unknown>)[contextCacheSymbol]).toBeUndefined();

    const streamed = requestContext(services, OPERATOR, "r4");
    const done = (useRequestCachesReleased() as any).onExecute({}).onExecuteDone({
      args: { contextValue: streamed },
      result: (async function* () {
        yield {};
      })(),
    });
    expect((streamed as Record<symbol, unknown>)[contextCacheSymbol]).toBeTypeOf("object");
    done.onEnd();
    expect((streamed as Record<symbol, unknown>)[contextCacheSymbol]).toBeUndefined();
  });

  it("is let go of by the app's own yoga, as the REST shim and mutations run it", async () => {
    const t = await startTestApp("pglite", { JOBS: "0" });
    try {
      const initial = { principal: OPERATOR, requestId: "r5" };
      const enveloped = t.app.yoga.getEnveloped(initial as never);
      const contextValue = (await enveloped.contextFactory(initial as never)) as Record<symbol, unknown>;
      expect(contextValue[contextCacheSymbol]).toBeTypeOf("object");
      const result = await enveloped.execute({ schema: enveloped.schema, document: parse("{ __typename }"), contextValue });
      expect(result).toEqual({ data: { __typename: "Query" } });
      expect(contextValue[contextCacheSymbol]).toBeUndefined();
    } finally {
      await t.stop();
    }
  });
});

/**
 * A query's or mutation's Pothos caches let go of once its result is made, a streamed result's at
 * its end, as the lanes do (context.ts `withRequestContext`). Subscriptions run through `subscribe`,
 * not here: their context lives as long as they do.
 */
import { isAsyncIterable, type Plugin } from "graphql-yoga";
import { releaseRequestCaches } from "../../context.js";

export function useRequestCachesReleased(): Plugin {
  return {
    onExecute: () => ({
      onExecuteDone: ({ args, result }) => {
        if (!isAsyncIterable(result)) return releaseRequestCaches(args.contextValue as object);
        return { onEnd: () => releaseRequestCaches(args.contextValue as object) };
      },
    }),
  };
}

/**
 * Every subscription, whichever transport carries it, holds a slot under the caps of
 * server/live-operations.ts until it ends (done, failed, stopped by the caller, or its connection
 * gone). graphql-ws admits its operations itself, where a refusal can be the protocol's `error`
 * message, and hands the slot over in the context; an HTTP subscription (SSE, multipart) is admitted
 * here, refused with 429 or 503 and Retry-After, and its stream ends when its key is revoked or rotated.
 */
import { GraphQLError } from "graphql";
import { isAsyncIterable, type Plugin } from "graphql-yoga";
import type { RequestContext } from "../../context.js";
import { endable, isSlot, slotRefusalError, type LiveOperations, type Slot } from "../live-operations.js";
import { presentedKey } from "./use-authentication.js";

/** What graphql-ws puts in an operation's context: the slot it admitted. */
export type AdmittedContext = { subscriptionSlot?: Slot };

/** A response that carries a subscription's events; any other answer (yoga's 406 for an Accept it cannot stream to) leaves the stream unread. */
const carriesStream = (response: Response) =>
  response.body !== null && /^(text\/event-stream|multipart\/mixed)/.test(response.headers.get("content-type") ?? "");

const revoked = () => ({
  errors: [new GraphQLError("The API key of this subscription has been revoked or rotated.", { extensions: { code: "UNAUTHENTICATED" } })],
});

export function useLiveOperations(live: LiveOperations): Plugin {
  // an HTTP subscription's stream until its response is known: one no response carries is ended there, else its slot would be held for good
  const streamOf = new WeakMap<Request, { end(): void }>();
  return {
    onResponse({ request, response }) {
      const stream = streamOf.get(request);
      streamOf.delete(request);
      if (stream && !carriesStream(response)) stream.end();
    },
    onSubscribe({ args, subscribeFn, setSubscribeFn, setResultAndStopExecution }) {
      const context = args.contextValue as Partial<RequestContext> & AdmittedContext & { request?: Request };
      const { principal } = context;
      if (!principal) return;
      const handed = context.subscriptionSlot;
      const admitted = handed ?? live.admit(principal);
      if (!isSlot(admitted)) return setResultAndStopExecution({ errors: [slotRefusalError(admitted, { http: true })] });
      // graphql-ws watches its socket's key; an HTTP stream is watched here
      const key = !handed && context.request ? presentedKey(context.request.headers) : null;
      setSubscribeFn(async (subscribeArgs) => {
        try {
          return await subscribeFn(subscribeArgs);
        } catch (error) {
          admitted.release();
          throw error;
        }
      });
      return {
        onSubscribeResult({ result, setResult }) {
          if (!isAsyncIterable(result)) return admitted.release();
          let unwatch = () => {};
          const stream = endable(result, () => {
            admitted.release();
            unwatch();
          });
          if (key) unwatch = live.watch(key, principal, () => stream.end(revoked() as never));
          if (!handed && context.request) streamOf.set(context.request, stream);
          setResult(stream.iterator);
        },
      };
    },
  };
}

import { useQuery } from "@urql/preact";
import { QUEUE_COUNTS } from "../graphql/operations.ts";
import { REVIEW_TYPENAMES, useWorkspace } from "../workspace-context.ts";
import { useRefetchOn } from "./use-refetch-on.ts";

/** The queue's counts and its oldest open review, asked again as reviews change. */
export function useQueueCounts() {
  const { tick } = useWorkspace();
  const [result, reexecute] = useQuery({ query: QUEUE_COUNTS, context: REVIEW_TYPENAMES });
  useRefetchOn(tick, reexecute);
  return result;
}

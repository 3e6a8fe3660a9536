import { useEffect, useRef } from "preact/hooks";
import type { OperationContext } from "@urql/preact";

/**
 * Asks the server again whenever `tick` moves on (a review changed, as the subscription told):
 * not on the first render, which has just asked.
 */
export function useRefetchOn(tick: number, reexecute: (opts?: Partial<OperationContext>) => void) {
  const seen = useRef(tick);
  useEffect(() => {
    if (seen.current === tick) return;
    seen.current = tick;
    reexecute({ requestPolicy: "network-only" });
  }, [tick, reexecute]);
}

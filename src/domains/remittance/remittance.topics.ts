/** The remittance module's events. */
import type { CorridorChange } from "./remittance.changes.js";

declare module "../../platform/bus.js" {
  interface Topics {
    /** a corridor's limits, status or requirements changed (every client hears it: remittance.changes.ts) */
    "reference.corridor.updated": [clientId: string, event: CorridorChange];
    /** reference data (lookups) changed: shared response caches drop what they hold */
    "reference.updated": [event: { kind: string; id: string }];
  }
}

/** The compliance module's events. */
declare module "../../platform/bus.js" {
  interface Topics {
    /** a compliance rule set was imported: every instance reloads its rule sets */
    "compliance.updated": [event: { country: string; version: number }];
  }
}

export {};

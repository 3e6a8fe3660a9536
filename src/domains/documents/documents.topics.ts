/** The documents module's events. */
declare module "../../platform/bus.js" {
  interface Topics {
    /** a document was uploaded, changed or deleted (its KYC run is enqueued in the same transaction) */
    "document.changed": [clientId: string, event: { documentId: string; userId: string; change: "uploaded" | "updated" | "deleted" | "expired" }];
  }
}

export {};

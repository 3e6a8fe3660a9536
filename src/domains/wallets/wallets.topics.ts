/** The wallets module's events. */
declare module "../../platform/bus.js" {
  interface Topics {
    /** a card was activated by its provider or cancelled */
    "card.status.updated": [clientId: string, event: { cardId: string; walletId: string; status: string; previousStatus: string }];
  }
}

export {};

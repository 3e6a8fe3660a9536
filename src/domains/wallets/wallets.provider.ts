/**
 * Card issuing behind one interface, called from the asynchronous activation step
 * (activatePendingCards), never inside a caller's request: the provider reports the issued card by
 * its opaque reference, last four digits and expiry. The card number (PAN) never crosses this
 * boundary, so it cannot be stored or logged here. A real provider is one more implementation.
 */
import { randomInt, randomUUID } from "node:crypto";

type IssuedCard = { providerRef: string; last4: string; expiry: string };

export interface CardProvider {
  issue(card: { cardId: string; cardType: "VIRTUAL" | "PHYSICAL"; currency: string }): Promise<IssuedCard>;
}

/** Offline sandbox: every request is issued, with made-up last digits, valid for 3 years. */
export function sandboxCardProvider(now: () => Date = () => new Date()): CardProvider {
  return {
    async issue() {
      const at = now();
      const expiry = `${at.getUTCFullYear() + 3}-${String(at.getUTCMonth() + 1).padStart(2, "0")}`;
      return { providerRef: `sbx_card_${randomUUID()}`, last4: String(randomInt(0, 10_000)).padStart(4, "0"), expiry };
    },
  };
}

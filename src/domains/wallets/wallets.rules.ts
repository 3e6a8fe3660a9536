/** Pure rules for wallets and cards: which currency code is well-formed, which card moves are allowed. */
import { article } from "../../lib/case.js";
import { DomainError, invalid } from "../../lib/errors.js";

export type CardStatusValue = "REQUESTED" | "ACTIVE" | "CANCELLED";

/** ISO 4217 alpha-3, any case in, upper case out; whether it is payable is the currency table's call. */
export function checkCurrencyCode(raw: string) {
  const code = raw.trim().toUpperCase();
  if (!/^[A-Z]{3}$/.test(code)) throw invalid([{ field: "currency", code: "invalid_format", message: "currency must be an ISO 4217 alpha-3 code, e.g. SGD." }]);
  return code;
}

/** REQUESTED → ACTIVE (the provider) | CANCELLED; ACTIVE → CANCELLED; CANCELLED is final. */
const CARD_MOVES: Record<CardStatusValue, CardStatusValue[]> = { REQUESTED: ["ACTIVE", "CANCELLED"], ACTIVE: ["CANCELLED"], CANCELLED: [] };

export function checkCardMove(from: CardStatusValue, to: CardStatusValue) {
  if (!CARD_MOVES[from].includes(to)) throw new DomainError("INVALID_STATE_TRANSITION", `${article(from)} ${from} card cannot become ${to}.`);
}

/** What a provider may report about an issued card: the last four digits and YYYY-MM, never the number. */
export function checkIssuedCard(card: { last4: string; expiry: string }) {
  if (!/^\d{4}$/.test(card.last4) || !/^\d{4}-(0[1-9]|1[0-2])$/.test(card.expiry)) throw new Error("card provider reported a malformed last4 or expiry");
  return card;
}

/**
 * Opening a wallet (POST /v2/wallets, createWallet): the user must be an ACTIVE user of the caller's
 * client (users), then the wallets module opens it in the currency asked (wallets), in one write.
 */
import type { RequestContext } from "../context.js";
import { DomainError } from "../lib/errors.js";
import { userInWrite } from "../domains/users/users.service.js";
import { checkCurrencyCode } from "../domains/wallets/wallets.rules.js";
import { createWallet } from "../domains/wallets/wallets.service.js";

type Selection = Parameters<typeof createWallet>[3];

export function openWallet(ctx: RequestContext, input: { userId: string; currency: string }, query?: Selection) {
  const currency = checkCurrencyCode(input.currency);
  return ctx.transact(ctx, async (write) => {
    const user = await userInWrite(write.tx, ctx, input.userId, { select: { id: true, status: true } });
    if (user.status !== "ACTIVE") throw new DomainError("USER_NOT_ACTIVE", `The user is ${user.status}; a wallet needs an ACTIVE user.`);
    return createWallet(write, ctx, { userId: user.id, currency }, query);
  });
}

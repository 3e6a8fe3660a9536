/** What a caller may see of a secret's tail: the last four characters behind a fixed mask, never more. */
export const maskTail = (last4: string | null) => (last4 ? `****${last4}` : null);

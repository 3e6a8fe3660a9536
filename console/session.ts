/** The reviewer key, kept for this tab only (sessionStorage): gone when the tab closes, never shared with another tab. */
const KEY = "onboarding-gateway.console.reviewer-key";

export const storedKey = (): string | null => sessionStorage.getItem(KEY);
export const storeKey = (key: string) => sessionStorage.setItem(KEY, key);
export const forgetKey = () => sessionStorage.removeItem(KEY);

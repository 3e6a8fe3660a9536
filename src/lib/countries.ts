/** ISO 3166-1 from i18n-iso-countries: alpha-2 or alpha-3 (and English names where asked) → alpha-2. */
import countries from "i18n-iso-countries";
import en from "i18n-iso-countries/langs/en.json" with { type: "json" };

countries.registerLocale(en);

export function toAlpha2(value: string, { allowName = false } = {}): string | null {
  const text = value.trim();
  if (/^[a-z]{2}$/i.test(text)) return countries.isValid(text.toUpperCase()) ? text.toUpperCase() : null;
  if (/^[a-z]{3}$/i.test(text)) return countries.alpha3ToAlpha2(text.toUpperCase()) ?? null;
  return allowName ? (countries.getAlpha2Code(text, "en") ?? null) : null;
}

export const countryName = (alpha2: string) => countries.getName(alpha2, "en") ?? alpha2;
export const alpha3Of = (alpha2: string) => countries.alpha2ToAlpha3(alpha2) ?? null;
export const allAlpha2 = () => Object.keys(countries.getAlpha2Codes());
export { countries as isoCountries };

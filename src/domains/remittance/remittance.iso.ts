/**
 * ISO 3166-1 countries and ISO 4217 currencies as table rows, from the maintained packages
 * (i18n-iso-countries, currency-codes): nothing here is typed by hand except four country names
 * ISO 4217 spells in a way no English name in i18n-iso-countries matches.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import cc from "currency-codes";
import { allAlpha2, alpha3Of, countryName, isoCountries } from "../../lib/countries.js";
import { searchKey } from "./remittance.rules.js";

export const isoCountryRows = () => allAlpha2().map((code) => ({ code, alpha3: alpha3Of(code)!, name: countryName(code) }));

/**
 * Currencies and the countries using each. INACTIVE marks what cannot be paid out: ISO's funds
 * (`IsFund` in its list, e.g. BOV, CLF, USN) and codes used by no country (metals, XDR, XTS, XXX).
 */
export function isoCurrencyRows() {
  const funds = fundCodes();
  const links: { countryCode: string; currencyCode: string }[] = [];
  const currencies = cc.data.map((c) => {
    const countries = [...new Set(c.countries.map(alpha2OfIsoName).filter((a): a is string => !!a))];
    links.push(...countries.map((countryCode) => ({ countryCode, currencyCode: c.code })));
    return {
      code: c.code,
      name: c.currency,
      minorUnits: c.digits,
      symbol: symbolOf(c.code),
      status: countries.length && !funds.has(c.code) ? ("ACTIVE" as const) : ("INACTIVE" as const),
      searchKey: searchKey(c.code, c.currency),
    };
  });
  return { currencies, links };
}

/** The narrow symbol CLDR (through Intl) knows, e.g. ₱ for PHP; null where it only knows the code. */
function symbolOf(code: string) {
  try {
    const symbol = new Intl.NumberFormat("en", { style: "currency", currency: code, currencyDisplay: "narrowSymbol" })
      .formatToParts(0)
      .find((p) => p.type === "currency")?.value;
    return symbol && symbol !== code ? symbol : null;
  } catch {
    return null;
  }
}

function fundCodes() {
  const xml = readFileSync(createRequire(import.meta.url).resolve("currency-codes/iso-4217-list-one.xml"), "utf8");
  return new Set([...xml.matchAll(/<CcyNm IsFund="true">[^<]*<\/CcyNm>\s*<Ccy>([A-Z]{3})<\/Ccy>/g)].map((m) => m[1]));
}

const ALIASES: Record<string, string> = {
  "cabo verde": "CV",
  "holy see": "VA",
  "united kingdom of great britain and northern ireland": "GB",
  "korea democratic peoples republic of": "KP",
};
const norm = (s: string) =>
  searchKey(s)
    .replace(/['’]/g, "")
    .replace(/\bthe\b/g, " ")
    .replace(/[^a-z0-9]+/g, " ")
    .trim();
let names: Map<string, string> | null = null;

/**
 * ISO 4217 names countries its own way ("Philippines (The)", "Korea (The Republic Of)", "Viet Nam");
 * tried as written, without the parenthesis, with it moved to the front, and before a comma, each
 * against every English name i18n-iso-countries lists. Organisations and metals map to nothing.
 */
export function alpha2OfIsoName(isoName: string): string | null {
  names ??= new Map(
    Object.entries(isoCountries.getNames("en", { select: "all" })).flatMap(([code, list]) =>
      [list].flat().flatMap(
        (n) =>
          [
            [norm(n), code],
            [norm(n).replaceAll(" ", ""), code],
          ] as [string, string][],
      ),
    ),
  );
  const m = /^(.*?)\s*\((.*?)\)(.*)$/.exec(isoName);
  const base = m ? m[1] + m[3] : isoName;
  const tries = [isoName, base, ...(m ? [`${m[2]} ${m[1]}`, `${m[1]} ${m[2]}`] : []), base.split(",")[0]].map(norm);
  for (const key of tries) {
    const code = ALIASES[key] ?? names.get(key) ?? names.get(key.replaceAll(" ", ""));
    if (code) return code;
  }
  return null;
}

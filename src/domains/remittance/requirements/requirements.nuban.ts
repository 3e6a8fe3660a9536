/**
 * The NUBAN check digit, written here because no maintained npm package computes it: banks-ng
 * lists the bank codes only, and the registry has no NUBAN validator.
 *
 * Algorithm: Central Bank of Nigeria, "Revised Standards on Nigeria Uniform Bank Account Number
 * (NUBAN) for Banks and Other Financial Institutions" (March 2020). A NUBAN is a 9-digit serial
 * number and a check digit. The check digit is computed over a 6-digit institution code and the
 * serial: a deposit money bank's 3-digit CBN code is padded as `000` + code, an other financial
 * institution's 5-digit code is prefixed with `9`, a 6-digit code is used as is. The 15 digits are
 * weighted 3,7,3 repeating, and the check digit is 10 minus the sum modulo 10 (10 becomes 0).
 * The CBN's worked example is bank 011 with serial 000001457: NUBAN 0000014579.
 */

/** banks-ng spells Globus Bank's CBN code 103 as `00103` (data/remittance/README.md): two leading zeros on five digits mean a 3-digit code */
const institutionCode = (bankCode: string): string | undefined => {
  if (/^00\d{3}$/.test(bankCode)) return `000${bankCode.slice(2)}`;
  if (/^\d{3}$/.test(bankCode)) return `000${bankCode}`;
  if (/^\d{5}$/.test(bankCode)) return `9${bankCode}`;
  if (/^\d{6}$/.test(bankCode)) return bankCode;
  return undefined;
};

/** The check digit of `serial` (9 digits) at the bank with `bankCode`, or undefined if either is malformed. */
export function nubanCheckDigit(bankCode: string, serial: string): number | undefined {
  const code = institutionCode(bankCode);
  if (!code || !/^\d{9}$/.test(serial)) return undefined;
  const digits = code + serial;
  let sum = 0;
  for (let i = 0; i < 15; i++) sum += (digits.charCodeAt(i) - 48) * (i % 3 === 1 ? 7 : 3);
  return (10 - (sum % 10)) % 10;
}

/** A 10-digit account number whose last digit is its NUBAN check digit at this bank. */
export const isValidNuban = (account: string, bankCode: string) =>
  /^\d{10}$/.test(account) && nubanCheckDigit(bankCode, account.slice(0, 9)) === Number(account[9]);

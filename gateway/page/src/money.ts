/**
 * An amount in minor units (spec §2: amounts are integers in minor currency units) as a person reads
 * it: 1800 EUR minor units is "18.00 EUR", 1800 JPY is "1800 JPY", 1800 BHD is "1.800 BHD". The
 * number of decimals is the currency's own (ISO 4217), as the browser's Intl knows it; a code it
 * does not know gets two. The digits are placed as text, so no amount is rounded through a float.
 */

/** The currency's number of decimal places (minor unit exponent). */
export function currencyDigits(currency: string): number {
  try {
    return new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2; // not a well-formed currency code: the spec's codes always are
  }
}

/** `amountMinor` of `currency` as "<major>.<minor> <code>". */
export function formatMinorUnits(amountMinor: number, currency: string): string {
  const digits = currencyDigits(currency);
  const sign = amountMinor < 0 ? "-" : "";
  const text = String(Math.abs(amountMinor));
  if (digits === 0) return `${sign}${text} ${currency}`;
  const padded = text.padStart(digits + 1, "0");
  return `${sign}${padded.slice(0, -digits)}.${padded.slice(-digits)} ${currency}`;
}

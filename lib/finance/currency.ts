/**
 * Currencies and their minor units (ISO 4217, https://www.iso.org/iso-4217-currency-codes.html).
 *
 * Every amount is stored as an integer number of minor units of its row's currency: cents for
 * USD, whole yen for JPY (no minor unit), fils for KWD (1/1000 dinar). Only at the edges is it
 * turned into a decimal (`toAmount`) or read from one (`toMinorUnits`), and both need the
 * currency. Codes not listed here, including providers' unofficial ones (crypto such as BTC),
 * have 2 decimals: Plaid reports those amounts as plain decimals and we keep what it sends to the
 * cent, which is what the rest of the product did before currencies had exponents.
 *
 * There is no conversion between currencies anywhere: amounts of two currencies are never added.
 */

/** Currencies whose minor unit is not 1/100 (ISO 4217 "minor unit" column; the rest are 2). */
export const EXPONENTS: Readonly<Record<string, number>> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  CLF: 4,
  UYW: 4,
};

/** The largest exponent above: SQL compares amounts of any currency scaled to it. */
export const MAX_EXPONENT = 4;

/** Decimal places of `currency` (JPY 0, USD 2, KWD 3); unknown and unofficial codes 2. */
export function minorUnits(currency: string): number {
  return EXPONENTS[currency.toUpperCase()] ?? 2;
}

/** Minor units → a decimal amount for output (USD 12345 → 123.45, JPY 12345 → 12345). */
export function toAmount(minor: number, currency: string): number {
  const exponent = minorUnits(currency);
  // Dividing by an exact power of ten gives the nearest double to the decimal (1234 / 100 = 12.34).
  return exponent === 0 ? minor : minor / 10 ** exponent;
}

/**
 * A decimal amount (a provider's JSON number) → integer minor units of `currency`, half away
 * from zero (USD 12.345 → 1235, JPY 1234 → 1234, KWD 1.234 → 1234). Never -0.
 */
export function toMinorUnits(amount: number, currency: string): number {
  // toFixed(6) first strips binary noise (12.345 * 100 = 1234.4999…), then round half away from zero.
  const scaled = Number((amount * 10 ** minorUnits(currency)).toFixed(6));
  const rounded = Math.sign(scaled) * Math.round(Math.abs(scaled));
  return rounded === 0 ? 0 : rounded;
}

/**
 * One formatter per locale and currency, made on first use (making an `Intl.NumberFormat` costs
 * far more than formatting with it: a fifth of find_unusual_activity's CPU when made per amount);
 * null for a code Intl refuses.
 */
const formatters = new Map<string, Intl.NumberFormat | null>();
function formatterFor(locale: string, currency: string): Intl.NumberFormat | null {
  const key = `${locale} ${currency}`;
  let formatter = formatters.get(key);
  if (formatter === undefined) {
    try {
      formatter = new Intl.NumberFormat(locale, {
        style: "currency",
        currency,
        minimumFractionDigits: minorUnits(currency),
        maximumFractionDigits: minorUnits(currency),
      });
    } catch {
      // Intl refuses codes that are not three letters (some unofficial codes, e.g. USDC).
      formatter = null;
    }
    if (formatters.size < 1_000) formatters.set(key, formatter);
  }
  return formatter;
}

/** `minor` formatted for people in its currency ("$1,234.56", "¥1,234", "KWD 1.234"). */
export function formatMoney(minor: number, currency: string, locale = "en-US"): string {
  const amount = toAmount(minor, currency);
  const formatter = formatterFor(locale, currency);
  return formatter ? formatter.format(amount) : `${amount.toFixed(minorUnits(currency))} ${currency}`;
}

/**
 * `rows` split by currency, codes in alphabetical order (a stable order for answers): every
 * total is computed within one of these groups, never across them.
 */
export function groupByCurrency<T>(rows: readonly T[], currencyOf: (row: T) => string): Array<[string, T[]]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const currency = currencyOf(row);
    const list = groups.get(currency);
    if (list) list.push(row);
    else groups.set(currency, [row]);
  }
  return [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Money at the edges. The database keeps integer minor units of each row's currency and sums them
 * as integers (`bigint`/`numeric`); only the final figure is turned into a decimal for the tool
 * output, by `toAmount` of lib/finance/currency.ts, which knows each currency's minor unit.
 * Drivers return 64-bit integers and numerics as strings (node-postgres), numbers or bigints
 * (PGlite); `toCents` accepts all three and refuses anything that is not a whole number.
 */

/** An integer number of minor units ("cents" of any currency) from a driver value (string, number, bigint, null → 0). */
export function toCents(value: unknown): number {
  if (value === null || value === undefined) return 0;
  const n = typeof value === "bigint" ? Number(value) : typeof value === "string" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isSafeInteger(n)) {
    throw new Error(`expected a whole number of minor units, got ${String(value)}`);
  }
  return n;
}

/** Like `toCents`, but a missing value stays null (an unknown balance is not a zero one). */
export function toCentsOrNull(value: unknown): number | null {
  return value === null || value === undefined ? null : toCents(value);
}

/** Share or rate `part / whole` rounded to 4 decimals; null when `whole` is 0 or less. */
export function ratio(part: number, whole: number): number | null {
  if (whole <= 0) return null;
  return Math.round((part / whole) * 10_000) / 10_000;
}

/** A numeric string from the database (quantities, prices, APRs) as a number, or null. */
export function toNumberOrNull(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}

import { describe, expect, it } from "vitest";
import { formatMoney, minorUnits, toAmount, toMinorUnits } from "@/lib/finance/currency";

describe("minor units by currency (ISO 4217)", () => {
  it("knows the exponent of each currency; unknown and unofficial codes have 2", () => {
    expect(minorUnits("JPY")).toBe(0);
    expect(minorUnits("KRW")).toBe(0);
    expect(minorUnits("USD")).toBe(2);
    expect(minorUnits("EUR")).toBe(2);
    expect(minorUnits("KWD")).toBe(3);
    expect(minorUnits("BHD")).toBe(3);
    expect(minorUnits("BTC")).toBe(2);
    expect(minorUnits("XYZ")).toBe(2);
  });

  it("turns minor units into decimals and back without losing a unit", () => {
    expect(toAmount(1234, "JPY")).toBe(1234);
    expect(toAmount(1234, "USD")).toBe(12.34);
    expect(toAmount(1234, "KWD")).toBe(1.234);
    expect(toAmount(-5, "USD")).toBe(-0.05);
    expect(toMinorUnits(1234, "JPY")).toBe(1234);
    expect(toMinorUnits(12.34, "USD")).toBe(1234);
    expect(toMinorUnits(1.234, "KWD")).toBe(1234);
    for (const currency of ["JPY", "USD", "KWD", "BTC"]) {
      for (const minor of [0, 1, -1, 7, 99, 100, 101, 1005, 123_456_789, -987_654_321]) {
        expect(toMinorUnits(toAmount(minor, currency), currency), `${currency} ${minor}`).toBe(minor);
      }
    }
  });

  it("rounds a provider's extra decimals half away from zero, never to -0", () => {
    expect(toMinorUnits(0.1 + 0.2, "USD")).toBe(30);
    expect(toMinorUnits(1.005, "USD")).toBe(101);
    expect(toMinorUnits(-1.005, "USD")).toBe(-101);
    expect(toMinorUnits(12.345, "USD")).toBe(1235);
    expect(toMinorUnits(245678.9, "USD")).toBe(24567890);
    expect(toMinorUnits(1234.5, "JPY")).toBe(1235);
    expect(toMinorUnits(1.2345, "KWD")).toBe(1235);
    expect(Object.is(toMinorUnits(-0.004, "USD"), 0)).toBe(true);
  });

  it("formats amounts for people with the currency's own decimals", () => {
    expect(formatMoney(123456, "USD")).toBe("$1,234.56");
    expect(formatMoney(123456, "JPY")).toBe("¥123,456");
    expect(formatMoney(1234, "KWD")).toMatch(/^KWD\s1\.234$/);
    expect(formatMoney(150, "USDC")).toBe("1.50 USDC");
    // Again, from the formatters made above (one per locale and currency, a refused code too).
    expect(formatMoney(-5, "USD")).toBe("-$0.05");
    expect(formatMoney(7, "JPY")).toBe("¥7");
    expect(formatMoney(2, "USDC")).toBe("0.02 USDC");
    expect(formatMoney(123456, "EUR", "de-DE")).toMatch(/^1\.234,56\s€$/);
    expect(formatMoney(123456, "EUR")).toBe("€1,234.56");
  });
});

/**
 * The CSV's cells (lib/export/files.ts): amounts as exact decimals of minor units in each
 * currency's decimals, and text cells quoted by RFC 4180 and defused against formulas (OWASP).
 */
import { describe, expect, it } from "vitest";
import { csvText, decimalText } from "@/lib/export/files";

describe("decimalText", () => {
  it("writes minor units with the currency's decimals, exactly", () => {
    expect(decimalText(-1234, "USD")).toBe("-12.34");
    expect(decimalText(5, "USD")).toBe("0.05");
    expect(decimalText(-5, "USD")).toBe("-0.05");
    expect(decimalText(0, "USD")).toBe("0.00");
    expect(decimalText(-1234, "JPY")).toBe("-1234");
    expect(decimalText(1, "KWD")).toBe("0.001");
    expect(decimalText(123456, "KWD")).toBe("123.456");
    expect(decimalText(1, "CLF")).toBe("0.0001");
    // Beyond what a double divided by 100 prints exactly.
    expect(decimalText(900719925474099, "USD")).toBe("9007199254740.99");
  });
});

describe("csvText", () => {
  it("leaves plain text alone and writes nothing for null", () => {
    expect(csvText("Blue Bottle Coffee")).toBe("Blue Bottle Coffee");
    expect(csvText("Café € 東京")).toBe("Café € 東京");
    expect(csvText(null)).toBe("");
    expect(csvText("")).toBe("");
  });

  it("quotes a cell with a comma, a quote or a line break, doubling quotes (RFC 4180)", () => {
    expect(csvText("a,b")).toBe('"a,b"');
    expect(csvText('say "hi"')).toBe('"say ""hi"""');
    expect(csvText("one\ntwo")).toBe('"one\ntwo"');
    expect(csvText("one\r\ntwo")).toBe('"one\r\ntwo"');
  });

  it("puts an apostrophe before a cell a spreadsheet would read as a formula, and quotes it", () => {
    expect(csvText("=1+2")).toBe('"\'=1+2"');
    expect(csvText("+1")).toBe('"\'+1"');
    expect(csvText("-2+3")).toBe('"\'-2+3"');
    expect(csvText("@SUM(A1)")).toBe('"\'@SUM(A1)"');
    expect(csvText("\tx")).toBe('"\'\tx"');
    expect(csvText("\rx")).toBe('"\'\rx"');
    expect(csvText('=HYPERLINK("x")')).toBe('"\'=HYPERLINK(""x"")"');
    // Not at the start: not a formula.
    expect(csvText("a=b")).toBe("a=b");
  });
});

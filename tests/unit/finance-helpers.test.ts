import { describe, expect, it } from "vitest";
import { toAmount } from "@/lib/finance/currency";
import { weightedApr } from "@/lib/finance/liabilities";
import { ratio, toCents } from "@/lib/finance/money";
import { equivalents, nextOccurrence, projectDates } from "@/lib/finance/recurring";
import { bucketsOf } from "@/lib/finance/spending";
import { escapeLike } from "@/lib/finance/transactions";

describe("money", () => {
  it("reads driver integers of every kind and refuses fractions", () => {
    expect(toCents("123456789012")).toBe(123_456_789_012);
    expect(toCents(42n)).toBe(42);
    expect(toCents(-7)).toBe(-7);
    expect(toCents(null)).toBe(0);
    expect(() => toCents("1.5")).toThrow();
    expect(toAmount(12_345, "USD")).toBe(123.45);
    expect(toAmount(-1, "USD")).toBe(-0.01);
    expect(ratio(1, 3)).toBe(0.3333);
    expect(ratio(1, 0)).toBeNull();
  });
});

describe("recurring", () => {
  it("turns a charge into exact yearly and rounded monthly equivalents", () => {
    expect(equivalents(-999, "weekly")).toEqual({ yearlyCents: -51_948, monthlyCents: -4_329 });
    expect(equivalents(-1_000, "biweekly")).toEqual({ yearlyCents: -26_000, monthlyCents: -2_167 });
    expect(equivalents(-1_550, "monthly")).toEqual({ yearlyCents: -18_600, monthlyCents: -1_550 });
    expect(equivalents(-10_000, "annually")).toEqual({ yearlyCents: -10_000, monthlyCents: -833 });
    expect(equivalents(250_000, "semi_monthly")).toEqual({ yearlyCents: 6_000_000, monthlyCents: 500_000 });
    expect(equivalents(-5, "quarterly")).toEqual({ yearlyCents: -20, monthlyCents: -2 });
  });

  it("steps dates by frequency, clamping month ends", () => {
    expect(nextOccurrence("2025-01-31", "monthly")).toBe("2025-02-28");
    expect(nextOccurrence("2025-01-10", "weekly")).toBe("2025-01-17");
    expect(nextOccurrence("2025-01-10", "biweekly")).toBe("2025-01-24");
    expect(nextOccurrence("2025-01-01", "semi_monthly")).toBe("2025-01-16");
    expect(nextOccurrence("2025-01-16", "semi_monthly")).toBe("2025-02-01");
    expect(nextOccurrence("2025-01-15", "semi_monthly")).toBe("2025-01-30");
    expect(nextOccurrence("2025-01-30", "semi_monthly")).toBe("2025-02-15");
    expect(nextOccurrence("2024-02-29", "annually")).toBe("2025-02-28");
  });

  it("projects a stream into a window, rolling a stale prediction forward", () => {
    const weekly = { nextDate: "2025-10-20", lastDate: "2025-10-13", frequency: "weekly" as const };
    expect(projectDates(weekly, "2025-11-01", "2025-11-20")).toEqual([
      "2025-11-03",
      "2025-11-10",
      "2025-11-17",
    ]);
    expect(projectDates({ ...weekly, nextDate: null }, "2025-10-20", "2025-10-20")).toEqual(["2025-10-20"]);
  });
});

describe("liabilities", () => {
  it("weights APR by balance, skipping unknown APRs and zero balances", () => {
    expect(
      weightedApr([
        { balanceCents: 100_000, apr: 20 },
        { balanceCents: 300_000, apr: 4 },
      ]),
    ).toBe(8);
    expect(
      weightedApr([
        { balanceCents: 100_000, apr: null },
        { balanceCents: 0, apr: 30 },
      ]),
    ).toBeNull();
  });
});

describe("cash-flow buckets", () => {
  it("covers the range with months or Monday weeks, clamped at both ends", () => {
    expect(bucketsOf({ start: "2025-01-15", end: "2025-03-10" }, "month")).toEqual([
      { key: "2025-01", start: "2025-01-15", end: "2025-01-31" },
      { key: "2025-02", start: "2025-02-01", end: "2025-02-28" },
      { key: "2025-03", start: "2025-03-01", end: "2025-03-10" },
    ]);
    // 2025-11-05 is a Wednesday; its week starts Monday 2025-11-03.
    expect(bucketsOf({ start: "2025-11-05", end: "2025-11-18" }, "week")).toEqual([
      { key: "2025-11-03", start: "2025-11-05", end: "2025-11-09" },
      { key: "2025-11-10", start: "2025-11-10", end: "2025-11-16" },
      { key: "2025-11-17", start: "2025-11-17", end: "2025-11-18" },
    ]);
  });
});

describe("search helpers", () => {
  it("escapes LIKE wildcards", () => {
    expect(escapeLike("100%_off\\")).toBe("100\\%\\_off\\\\");
  });
});

/** The shared date arguments of the tools, resolved to a finance DateRange (lib/mcp/args.ts). */
import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { resolveDateArgs, scaledAmountArg } from "@/lib/mcp/args";

const at = (iso: string) => new Date(iso);

describe("resolveDateArgs", () => {
  const ctx = { timezone: "UTC", now: at("2025-03-15T12:00:00Z") };

  it("uses the default period, or none", () => {
    expect(resolveDateArgs({}, ctx, "last_month").range).toEqual({ start: "2025-02-01", end: "2025-02-28" });
    expect(resolveDateArgs({}, ctx, undefined).range).toBeNull();
  });

  it("takes explicit dates, start alone running to today", () => {
    expect(
      resolveDateArgs({ start_date: "2025-01-01", end_date: "2025-01-31" }, ctx, "last_month").range,
    ).toEqual({
      start: "2025-01-01",
      end: "2025-01-31",
    });
    expect(resolveDateArgs({ start_date: "2025-03-01" }, ctx, undefined).range).toEqual({
      start: "2025-03-01",
      end: "2025-03-15",
    });
  });

  it("refuses start after end, end alone, and period with dates, naming the argument", () => {
    const expectInvalid = (fn: () => unknown, pattern: RegExp) => {
      try {
        fn();
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(AppError);
        expect((error as AppError).code).toBe("invalid_input");
        expect((error as AppError).message).toMatch(pattern);
      }
    };
    expectInvalid(
      () => resolveDateArgs({ start_date: "2025-02-01", end_date: "2025-01-01" }, ctx, undefined),
      /start_date.*end_date/,
    );
    expectInvalid(
      () => resolveDateArgs({ end_date: "2025-01-01" }, ctx, undefined),
      /start_date is required/,
    );
    expectInvalid(
      () => resolveDateArgs({ period: "last_month", start_date: "2025-01-01" }, ctx, undefined),
      /period/,
    );
  });
});

describe("scaledAmountArg", () => {
  it("scales a decimal bound to 1/10,000 and refuses more decimals, naming the argument", () => {
    expect(scaledAmountArg(12.34, "min_amount")).toBe(123_400);
    expect(scaledAmountArg(0.0001, "min_amount")).toBe(1);
    expect(() => scaledAmountArg(1.00001, "max_amount")).toThrow(/"max_amount" must have at most 4 decimals/);
  });
});

/**
 * Tool arguments shared by several tools, and their translation into what lib/finance takes:
 * `period` or `start_date`/`end_date` → a finance `DateRange`, category ids, decimal amount
 * bounds. Bad arguments throw `AppError("invalid_input")` naming the argument, which the tool
 * pipeline (lib/mcp/register.ts) returns as the `isError` sentence (product.md, "The tool result").
 */
import { z } from "zod";
import { AppError } from "@/lib/errors";
import { CATEGORY_IDS } from "@/lib/finance/categories";
import { MAX_EXPONENT } from "@/lib/finance/currency";
import {
  type DateRange,
  isIsoDate,
  PERIODS,
  type Period,
  resolvePeriod,
  todayIn,
} from "@/lib/finance/periods";

const isoDateSchema = z
  .string()
  .refine(isIsoDate, { message: "must be a calendar date written YYYY-MM-DD, e.g. 2025-01-31" });

/** zod schema of a category id (lib/finance/categories.ts). */
export const categorySchema = z.enum(CATEGORY_IDS);

/**
 * The date arguments shared by tools: `period`, or `start_date`/`end_date`. Spread into a tool's
 * input object; `resolveDateArgs` turns them into a range.
 */
export function dateArgsShape(defaultPeriod: Period | undefined) {
  const defaultText = defaultPeriod ? `Default ${defaultPeriod}.` : "Default: all history.";
  return {
    period: z.enum(PERIODS).optional().describe(defaultText),
    start_date: isoDateSchema.optional().describe("YYYY-MM-DD; alone, runs to today."),
    end_date: isoDateSchema.optional().describe("YYYY-MM-DD; needs start_date."),
  };
}

interface DateArgs {
  period?: Period | undefined;
  start_date?: string | undefined;
  end_date?: string | undefined;
}

interface Clock {
  timezone: string;
  now: Date;
}

/**
 * The range the caller asked for, with the named period it came from (for `previousRange`).
 * Throws `invalid_input` naming the argument when the dates do not make a range. With no dates
 * given: the default period's range, or null (all history) when the tool has no default.
 */
export function resolveDateArgs(
  args: DateArgs,
  ctx: Clock,
  defaultPeriod: Period,
): { range: DateRange; period: Period | undefined };
export function resolveDateArgs(
  args: DateArgs,
  ctx: Clock,
  defaultPeriod: undefined,
): { range: DateRange | null; period: Period | undefined };
export function resolveDateArgs(
  args: DateArgs,
  ctx: Clock,
  defaultPeriod: Period | undefined,
): { range: DateRange | null; period: Period | undefined } {
  const hasDates = args.start_date !== undefined || args.end_date !== undefined;
  if (args.period && hasDates) {
    throw new AppError("invalid_input", "Give either period or start_date/end_date, not both.", {
      argument: "period",
    });
  }
  if (args.period) return { range: resolvePeriod(args.period, ctx.timezone, ctx.now), period: args.period };
  if (hasDates) {
    if (!args.start_date) {
      throw new AppError("invalid_input", "start_date is required when end_date is given (YYYY-MM-DD).", {
        argument: "start_date",
      });
    }
    const end = args.end_date ?? todayIn(ctx.timezone, ctx.now);
    if (args.start_date > end) {
      throw new AppError(
        "invalid_input",
        `start_date (${args.start_date}) must be on or before end_date (${end}).`,
        { argument: "start_date" },
      );
    }
    return { range: { start: args.start_date, end }, period: undefined };
  }
  if (!defaultPeriod) return { range: null, period: undefined };
  return { range: resolvePeriod(defaultPeriod, ctx.timezone, ctx.now), period: defaultPeriod };
}

/**
 * A decimal amount argument → 1/10^MAX_EXPONENT units (the scale lib/finance/transactions.ts
 * compares every currency at), refusing more decimals than any currency has.
 */
export function scaledAmountArg(value: number, name: string): number {
  const scale = 10 ** MAX_EXPONENT;
  const scaled = Math.round(value * scale);
  if (Math.abs(scaled - value * scale) > 1e-6) {
    throw new AppError("invalid_input", `Argument "${name}" must have at most ${MAX_EXPONENT} decimals.`, {
      argument: name,
    });
  }
  return scaled;
}

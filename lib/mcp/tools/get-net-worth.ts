/** Tool 10: net worth now and its history from daily balance snapshots. */
import { z } from "zod";
import { AppError } from "@/lib/errors";
import {
  ACCOUNT_TYPES,
  getBalanceTotals,
  getHistoryStart,
  getNetWorthHistory,
  isLiabilityType,
} from "@/lib/finance/accounts";
import { toAmount } from "@/lib/finance/money";
import { addDays, addMonths, endOfMonth, todayIn } from "@/lib/finance/periods";
import { defineTool } from "../define-tool";

const INTERVALS = ["month", "week", "day", "none"] as const;

/** Dates of the history points: each interval's last day after `start`, ending with today. */
export function historyDates(today: string, months: number, interval: (typeof INTERVALS)[number]): string[] {
  if (interval === "none") return [];
  const start = addMonths(today, -months);
  const dates: string[] = [];
  if (interval === "day") {
    for (let d = addDays(start, 1); d < today; d = addDays(d, 1)) dates.push(d);
  } else if (interval === "week") {
    // Sundays (ends of ISO weeks).
    const dow = new Date(`${start}T00:00:00Z`).getUTCDay();
    for (let d = addDays(start, (7 - dow) % 7 || 7); d < today; d = addDays(d, 7)) dates.push(d);
  } else {
    for (let d = endOfMonth(start); d < today; d = endOfMonth(addMonths(d, 1))) dates.push(d);
  }
  dates.push(today);
  return dates;
}

export const getNetWorthTool = defineTool({
  name: "get_net_worth",
  title: "Net worth",
  description:
    "Net worth = assets (cash, investments, other) minus liabilities (credit cards and loans, as positive amounts owed), now and by account type, with a history from daily balance snapshots. Use it for 'what is my net worth', 'how has my net worth changed'. Defaults: interval month over the last 12 months (one point per month end, then today). interval none returns only the current figures. History starts at the first snapshot (history_starts); earlier points are omitted.",
  input: z.strictObject({
    interval: z
      .enum(INTERVALS)
      .default("month")
      .describe("Spacing of history points: month, week, day, or none (no history). Default month."),
    months: z
      .number()
      .int()
      .min(1)
      .max(60)
      .default(12)
      .describe("How many months of history, 1–60 (interval day: at most 12). Default 12."),
  }),
  data: z.object({
    as_of: z.string().describe("Today's date in the user's timezone."),
    currency: z.string(),
    net_worth: z.number(),
    assets: z.number(),
    liabilities: z.number().describe("Total owed, positive."),
    assets_by_type: z.array(
      z.object({ type: z.enum(ACCOUNT_TYPES), amount: z.number(), accounts: z.number().int() }),
    ),
    liabilities_by_type: z.array(
      z.object({ type: z.enum(ACCOUNT_TYPES), amount: z.number(), accounts: z.number().int() }),
    ),
    history: z.array(
      z.object({ date: z.string(), assets: z.number(), liabilities: z.number(), net_worth: z.number() }),
    ),
    history_starts: z.string().nullable().describe("Date of the first balance snapshot; null when none yet."),
  }),
  async run(args, ctx) {
    if (args.interval === "day" && args.months > 12) {
      throw new AppError("invalid_input", 'Argument "months" must be at most 12 when interval is day.', {
        argument: "months",
      });
    }
    const today = todayIn(ctx.timezone, ctx.now);
    // One round trip: the history is read for every date and cut at the first snapshot after.
    const [totals, historyStart, points] = await Promise.all([
      getBalanceTotals(ctx.db, ctx.userId),
      getHistoryStart(ctx.db, ctx.userId),
      getNetWorthHistory(ctx.db, ctx.userId, historyDates(today, args.months, args.interval)),
    ]);
    const history = historyStart ? points.filter((p) => p.date >= historyStart) : [];
    const byType = (liability: boolean) =>
      totals.byType
        .filter((t) => isLiabilityType(t.type) === liability)
        .map((t) => ({ type: t.type, amount: toAmount(t.cents), accounts: t.count }));
    return {
      data: {
        as_of: today,
        currency: totals.currencies[0] ?? "USD",
        net_worth: toAmount(totals.netWorthCents),
        assets: toAmount(totals.assetsCents),
        liabilities: toAmount(totals.liabilitiesCents),
        assets_by_type: byType(false),
        liabilities_by_type: byType(true),
        history: history.map((p) => ({
          date: p.date,
          assets: toAmount(p.assetsCents),
          liabilities: toAmount(p.liabilitiesCents),
          net_worth: toAmount(p.assetsCents - p.liabilitiesCents),
        })),
        history_starts: historyStart,
      },
      warnings:
        totals.currencies.length > 1
          ? [
              {
                code: "MIXED_CURRENCIES",
                message: `Accounts are in several currencies (${totals.currencies.join(", ")}); totals add them without conversion.`,
              },
            ]
          : undefined,
    };
  },
});

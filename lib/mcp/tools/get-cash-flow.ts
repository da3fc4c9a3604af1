/** Tool 5: income, spending, net and savings rate per month or week. */
import { z } from "zod";
import { toAmount } from "@/lib/finance/currency";
import { monthsToDate, todayIn } from "@/lib/finance/periods";
import { scopedAccountIds } from "@/lib/finance/scope";
import { CASH_FLOW_INTERVALS, type CashFlowFigures, getCashFlow } from "@/lib/finance/spending";
import { dateArgsShape, resolveDateArgs } from "../args";
import { defineTool } from "../define-tool";
import { mixedCurrencyWarnings } from "../envelope";
import { accountIdsArg, currencySchema, perCurrency, rangeSchema } from "./shared";

const flowShape = {
  income: z.number(),
  spending: z.number().describe("Positive = money spent."),
  net: z.number().describe("income − spending."),
  savings_rate: z.number().nullable().describe("net / income (0.2 = 20%); absent when there is no income."),
};

export const getCashFlowTool = defineTool({
  name: "get_cash_flow",
  title: "Cash flow",
  description:
    "Income, spending, net and savings rate (net / income) per month or week, with totals and top income sources, per currency. Income = money in from income categories; spending = money out less refunds; transfers and card payments are neither.",
  input: z.strictObject({
    months: z.number().int().min(1).max(24).default(6).describe("Months back, this one included; dates win."),
    ...dateArgsShape(undefined),
    interval: z.enum(CASH_FLOW_INTERVALS).default("month").describe("week = Monday to Sunday."),
    account_ids: accountIdsArg,
  }),
  data: z.object({
    range: rangeSchema,
    interval: z.enum(CASH_FLOW_INTERVALS),
    intervals: z.array(
      z.object({
        currency: currencySchema,
        ...flowShape,
        label: z.string().describe("YYYY-MM, or the Monday of the week."),
        start: z.string(),
        end: z.string(),
        partial: z
          .boolean()
          .describe("True when the interval is cut by the range (e.g. the current month to date)."),
      }),
    ),
    totals: perCurrency(flowShape),
    top_income_sources: z.array(
      z.object({ currency: currencySchema, source: z.string(), amount: z.number(), count: z.number().int() }),
    ),
  }),
  async run(args, ctx) {
    const today = todayIn(ctx.timezone, ctx.now);
    const range = resolveDateArgs(args, ctx, undefined).range ?? monthsToDate(today, args.months);
    const flows = await getCashFlow(
      ctx.db,
      ctx.userId,
      range,
      args.interval,
      scopedAccountIds(ctx.scope, args.account_ids),
      today,
    );
    const figures = (currency: string, f: CashFlowFigures) => ({
      currency,
      income: toAmount(f.incomeCents, currency),
      spending: toAmount(f.spendingCents, currency),
      net: toAmount(f.netCents, currency),
      savings_rate: f.savingsRate,
    });
    return {
      data: {
        range,
        interval: args.interval,
        intervals: flows.flatMap((f) =>
          f.buckets.map((b) => ({
            ...figures(f.currency, b),
            label: b.label,
            start: b.start,
            end: b.end,
            partial: b.partial,
          })),
        ),
        totals: flows.map((f) => figures(f.currency, f)),
        top_income_sources: flows.flatMap((f) =>
          f.topIncomeSources.map((s) => ({
            currency: f.currency,
            source: s.source,
            amount: toAmount(s.cents, f.currency),
            count: s.count,
          })),
        ),
      },
      warnings: mixedCurrencyWarnings(flows.map((f) => f.currency)),
    };
  },
});

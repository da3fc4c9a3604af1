/** Tool 1: the one-call summary of the user's finances. */
import { z } from "zod";
import { BILL_KINDS } from "@/lib/finance/bills";
import { toAmount } from "@/lib/finance/currency";
import { getOverview } from "@/lib/finance/overview";
import { PERIODS, previousRange, resolvePeriod, todayIn } from "@/lib/finance/periods";
import type { FlowFigures } from "@/lib/finance/spending";
import { defineTool } from "../define-tool";
import { mixedCurrencyWarnings } from "../envelope";
import { currencySchema, perCurrency, rangeSchema } from "./shared";

const flowSchema = z.object({
  income: z.number(),
  spending: z.number().describe("Positive = money spent."),
  net: z.number(),
});

export const getFinancialOverviewTool = defineTool({
  name: "get_financial_overview",
  title: "Financial overview",
  description:
    "Start here for general questions: net worth, cash, investments and debt now; income, spending and net for the period vs the previous one of the same length; top 5 spending categories; bills due in 7 days; bank health. Per currency.",
  input: z.strictObject({
    period: z.enum(PERIODS).default("this_month").describe("Period for income and spending."),
  }),
  data: z.object({
    period: rangeSchema,
    previous_period: rangeSchema,
    totals: perCurrency({
      net_worth: z.number(),
      assets: z.number(),
      cash: z.number().describe("Checking and savings balances."),
      investments: z.number(),
      debt: z.number().describe("Credit cards and loans owed, positive."),
      current: flowSchema,
      previous: flowSchema,
      change: z.object({
        income: z.number(),
        spending: z.number(),
        net: z.number(),
        spending_pct: z.number().nullable().describe("Spending change relative to the previous period."),
      }),
      top_categories: z.array(
        z.object({
          category: z.string(),
          label: z.string(),
          amount: z.number(),
          share: z.number().nullable(),
        }),
      ),
    }),
    bills_due_7_days: z.array(
      z.object({
        currency: currencySchema,
        date: z.string(),
        name: z.string(),
        amount: z.number(),
        kind: z.enum(BILL_KINDS),
      }),
    ),
    connections: z.array(
      z.object({ institution: z.string(), status: z.string(), last_synced_at: z.string().nullable() }),
    ),
  }),
  async run(args, ctx) {
    const range = resolvePeriod(args.period, ctx.timezone, ctx.now);
    const previous = previousRange(range, args.period);
    const { totals, billsDue } = await getOverview(ctx.db, ctx.userId, {
      range,
      previous,
      today: todayIn(ctx.timezone, ctx.now),
      scope: ctx.scope,
    });
    return {
      data: {
        period: range,
        previous_period: previous,
        totals: totals.map((t) => {
          const amount = (minor: number) => toAmount(minor, t.currency);
          const flow = (f: FlowFigures) => ({
            income: amount(f.incomeCents),
            spending: amount(f.spendingCents),
            net: amount(f.netCents),
          });
          return {
            currency: t.currency,
            net_worth: amount(t.netWorthCents),
            assets: amount(t.assetsCents),
            cash: amount(t.cashCents),
            investments: amount(t.investmentsCents),
            debt: amount(t.debtCents),
            current: flow(t.current),
            previous: flow(t.previous),
            change: { ...flow(t.change), spending_pct: t.change.spendingPct },
            top_categories: t.topCategories.map((c) => ({
              category: c.key,
              label: c.label,
              amount: amount(c.cents),
              share: c.share,
            })),
          };
        }),
        bills_due_7_days: billsDue.map((b) => ({
          currency: b.currency,
          date: b.date,
          name: b.name,
          amount: toAmount(b.amountCents, b.currency),
          kind: b.kind,
        })),
        connections: ctx.access.connections.map((c) => ({
          institution: c.institutionName,
          status: c.status,
          last_synced_at: c.lastSyncedAt ? c.lastSyncedAt.toISOString() : null,
        })),
      },
      warnings: mixedCurrencyWarnings([...totals, ...billsDue].map((t) => t.currency)),
    };
  },
});

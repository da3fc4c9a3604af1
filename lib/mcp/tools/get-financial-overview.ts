/** Tool 1: the one-call summary of the user's finances. */
import { z } from "zod";
import { getBalanceTotals } from "@/lib/finance/accounts";
import { getUpcomingBills } from "@/lib/finance/bills";
import { toAmount } from "@/lib/finance/currency";
import { ratio } from "@/lib/finance/money";
import { PERIODS, previousRange, resolvePeriod, todayIn } from "@/lib/finance/periods";
import { type Flow, getPeriodComparison } from "@/lib/finance/spending";
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
    "A one-call summary of the user's finances: net worth, cash, investments and debt now; income, spending and net for the period compared with the previous period of the same length; the top 5 spending categories; bills due in the next 7 days; and the health of each bank connection. Totals are per currency. Start here for general questions ('how am I doing this month?'), then use the specific tools for detail. Income excludes transfers between own accounts; spending subtracts refunds. Default period this_month (the 1st to today, compared with the same days of last month).",
  input: z.strictObject({
    period: z
      .enum(PERIODS)
      .default("this_month")
      .describe(
        `Period for income and spending, in the user's timezone: ${PERIODS.join(", ")}. Default this_month.`,
      ),
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
        kind: z.enum(["recurring", "credit_card", "loan"]),
      }),
    ),
    connections: z.array(
      z.object({ institution: z.string(), status: z.string(), last_synced_at: z.string().nullable() }),
    ),
  }),
  async run(args, ctx) {
    const range = resolvePeriod(args.period, ctx.timezone, ctx.now);
    const previous = previousRange(range, args.period);
    const today = todayIn(ctx.timezone, ctx.now);
    const [balances, flows, bills] = await Promise.all([
      getBalanceTotals(ctx.db, ctx.userId),
      getPeriodComparison(ctx.db, ctx.userId, range, previous),
      getUpcomingBills(ctx.db, ctx.userId, today, 7),
    ]);
    const currencies = [
      ...new Set([...balances.map((b) => b.currency), ...flows.map((f) => f.currency)]),
    ].sort();
    const noFlow = { incomeCents: 0, spendingCents: 0 };
    const totals = currencies.map((currency) => {
      const balance = balances.find((b) => b.currency === currency);
      const flow = flows.find((f) => f.currency === currency);
      const current = flow?.current ?? noFlow;
      const before = flow?.previous ?? noFlow;
      const amount = (minor: number) => toAmount(minor, currency);
      const typeCents = (type: string) => balance?.byType.find((t) => t.type === type)?.cents ?? 0;
      const out = (f: Flow) => ({
        income: amount(f.incomeCents),
        spending: amount(f.spendingCents),
        net: amount(f.incomeCents - f.spendingCents),
      });
      return {
        currency,
        net_worth: amount(balance?.netWorthCents ?? 0),
        assets: amount(balance?.assetsCents ?? 0),
        cash: amount(typeCents("depository")),
        investments: amount(typeCents("investment")),
        debt: amount(balance?.liabilitiesCents ?? 0),
        current: out(current),
        previous: out(before),
        change: {
          income: amount(current.incomeCents - before.incomeCents),
          spending: amount(current.spendingCents - before.spendingCents),
          net: amount(
            current.incomeCents - current.spendingCents - (before.incomeCents - before.spendingCents),
          ),
          spending_pct:
            before.spendingCents > 0
              ? Math.round(((current.spendingCents - before.spendingCents) / before.spendingCents) * 10_000) /
                10_000
              : null,
        },
        top_categories: (flow?.categories.groups ?? []).slice(0, 5).map((g) => ({
          category: g.key,
          label: g.label,
          amount: amount(g.cents),
          share: ratio(g.cents, flow?.categories.totalCents ?? 0),
        })),
      };
    });
    return {
      data: {
        period: range,
        previous_period: previous,
        totals,
        bills_due_7_days: bills.bills.map((b) => ({
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
      warnings: mixedCurrencyWarnings([...currencies, ...bills.bills.map((b) => b.currency)]),
    };
  },
});

/** Tool 1: the one-call summary of the user's finances. */
import { z } from "zod";
import { getBalanceTotals } from "@/lib/finance/accounts";
import { getUpcomingBills } from "@/lib/finance/bills";
import { ratio, toAmount } from "@/lib/finance/money";
import { PERIODS, previousRange, resolvePeriod, todayIn } from "@/lib/finance/periods";
import { getPeriodComparison } from "@/lib/finance/spending";
import { defineTool } from "../define-tool";
import { rangeSchema } from "./shared";

const flowSchema = z.object({
  income: z.number(),
  spending: z.number().describe("Positive = money spent."),
  net: z.number(),
});

export const getFinancialOverviewTool = defineTool({
  name: "get_financial_overview",
  title: "Financial overview",
  description:
    "A one-call summary of the user's finances: net worth, cash, investments and debt now; income, spending and net for the period compared with the previous period of the same length; the top 5 spending categories; bills due in the next 7 days; and the health of each bank connection. Start here for general questions ('how am I doing this month?'), then use the specific tools for detail. Income excludes transfers between own accounts; spending subtracts refunds. Default period this_month (the 1st to today, compared with the same days of last month).",
  input: z.strictObject({
    period: z
      .enum(PERIODS)
      .default("this_month")
      .describe(
        `Period for income and spending, in the user's timezone: ${PERIODS.join(", ")}. Default this_month.`,
      ),
  }),
  data: z.object({
    currency: z.string(),
    net_worth: z.number(),
    assets: z.number(),
    cash: z.number().describe("Checking and savings balances."),
    investments: z.number(),
    debt: z.number().describe("Credit cards and loans owed, positive."),
    period: rangeSchema,
    previous_period: rangeSchema,
    current: flowSchema,
    previous: flowSchema,
    change: z.object({
      income: z.number(),
      spending: z.number(),
      net: z.number(),
      spending_pct: z.number().nullable().describe("Spending change relative to the previous period."),
    }),
    top_categories: z.array(
      z.object({ category: z.string(), label: z.string(), amount: z.number(), share: z.number().nullable() }),
    ),
    bills_due_7_days: z.array(
      z.object({
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
    const { current, previous: before, categories } = flows;
    const typeCents = (type: string) => balances.byType.find((t) => t.type === type)?.cents ?? 0;
    const flow = (f: { incomeCents: number; spendingCents: number }) => ({
      income: toAmount(f.incomeCents),
      spending: toAmount(f.spendingCents),
      net: toAmount(f.incomeCents - f.spendingCents),
    });
    return {
      data: {
        currency: balances.currencies[0] ?? "USD",
        net_worth: toAmount(balances.netWorthCents),
        assets: toAmount(balances.assetsCents),
        cash: toAmount(typeCents("depository")),
        investments: toAmount(typeCents("investment")),
        debt: toAmount(balances.liabilitiesCents),
        period: range,
        previous_period: previous,
        current: flow(current),
        previous: flow(before),
        change: {
          income: toAmount(current.incomeCents - before.incomeCents),
          spending: toAmount(current.spendingCents - before.spendingCents),
          net: toAmount(
            current.incomeCents - current.spendingCents - (before.incomeCents - before.spendingCents),
          ),
          spending_pct:
            before.spendingCents > 0
              ? Math.round(((current.spendingCents - before.spendingCents) / before.spendingCents) * 10_000) /
                10_000
              : null,
        },
        top_categories: categories.groups.slice(0, 5).map((g) => ({
          category: g.key,
          label: g.label,
          amount: toAmount(g.cents),
          share: ratio(g.cents, categories.totalCents),
        })),
        bills_due_7_days: bills.bills.map((b) => ({
          date: b.date,
          name: b.name,
          amount: toAmount(b.amountCents),
          kind: b.kind,
        })),
        connections: ctx.access.connections.map((c) => ({
          institution: c.institutionName,
          status: c.status,
          last_synced_at: c.lastSyncedAt ? c.lastSyncedAt.toISOString() : null,
        })),
      },
    };
  },
});

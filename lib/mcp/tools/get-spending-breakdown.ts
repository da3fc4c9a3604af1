/** Tool 4: where the money went, by category, merchant, account or month. */
import { z } from "zod";
import { toAmount } from "@/lib/finance/currency";
import { previousRange, todayIn } from "@/lib/finance/periods";
import { scopedAccountIds } from "@/lib/finance/scope";
import { getSpendingBreakdown, SPENDING_GROUPS } from "@/lib/finance/spending";
import { dateArgsShape, resolveDateArgs } from "../args";
import { defineTool } from "../define-tool";
import { mixedCurrencyWarnings } from "../envelope";
import { accountIdsArg, amountOrNull, currencySchema, perCurrency, rangeSchema } from "./shared";

export const getSpendingBreakdownTool = defineTool({
  name: "get_spending_breakdown",
  title: "Spending breakdown",
  description:
    "Spending by category, merchant, account or month: each group's amount (positive = spent), share (0–1), count, and the previous period's amount and change. Refunds lower their category. The top_n groups per currency, the rest summed in other; totals cover all.",
  input: z.strictObject({
    group_by: z.enum(SPENDING_GROUPS).default("category").describe("Grouping."),
    ...dateArgsShape("last_month"),
    compare_to_previous: z
      .boolean()
      .default(true)
      .describe("Also the previous period of the same length, and the change."),
    top_n: z.number().int().min(1).max(50).default(15).describe("Groups listed per currency."),
    account_ids: accountIdsArg,
  }),
  data: z.object({
    range: rangeSchema,
    previous_range: rangeSchema.nullable(),
    group_by: z.enum(SPENDING_GROUPS),
    totals: perCurrency({
      total_spending: z.number().describe("All spending in the range (every group, not only those listed)."),
      previous_total_spending: z.number().nullable(),
      change: z.number().nullable().describe("total_spending − previous_total_spending."),
      other: z
        .object({ groups: z.number().int(), amount: z.number(), count: z.number().int() })
        .nullable()
        .describe("Groups beyond top_n, summed."),
    }),
    groups: z.array(
      z.object({
        currency: currencySchema,
        key: z.string().describe("Category id, merchant, account id, or YYYY-MM."),
        label: z.string(),
        amount: z.number(),
        share: z.number().nullable().describe("amount / total_spending of its currency, 0–1."),
        count: z.number().int(),
        previous_amount: z.number().nullable(),
        change: z.number().nullable(),
        change_pct: z.number().nullable().describe("change / previous_amount (e.g. 0.25 = +25%)."),
      }),
    ),
  }),
  async run(args, ctx) {
    const { range, period } = resolveDateArgs(args, ctx, "last_month");
    const previous = args.compare_to_previous ? previousRange(range, period) : null;
    const { groups, totals } = await getSpendingBreakdown(ctx.db, ctx.userId, {
      range,
      previous,
      groupBy: args.group_by,
      topN: args.top_n,
      accountIds: scopedAccountIds(ctx.scope, args.account_ids),
      today: todayIn(ctx.timezone, ctx.now),
    });
    return {
      data: {
        range,
        previous_range: previous,
        group_by: args.group_by,
        totals: totals.map((t) => ({
          currency: t.currency,
          total_spending: toAmount(t.totalCents, t.currency),
          previous_total_spending: amountOrNull(t.previousTotalCents, t.currency),
          change: amountOrNull(t.changeCents, t.currency),
          other: t.other && {
            groups: t.other.groups,
            amount: toAmount(t.other.cents, t.currency),
            count: t.other.count,
          },
        })),
        groups: groups.map((g) => ({
          currency: g.currency,
          key: g.key,
          label: g.label,
          amount: toAmount(g.cents, g.currency),
          share: g.share,
          count: g.count,
          previous_amount: amountOrNull(g.previousCents, g.currency),
          change: amountOrNull(g.changeCents, g.currency),
          change_pct: g.changePct,
        })),
      },
      warnings: mixedCurrencyWarnings(totals.map((t) => t.currency)),
    };
  },
});

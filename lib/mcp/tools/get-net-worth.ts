/** Tool 10: net worth now and its history from daily balance snapshots. */
import { z } from "zod";
import { AppError } from "@/lib/errors";
import { ACCOUNT_TYPES, getNetWorth, isLiabilityType, NET_WORTH_INTERVALS } from "@/lib/finance/accounts";
import { toAmount } from "@/lib/finance/currency";
import { todayIn } from "@/lib/finance/periods";
import { defineTool } from "../define-tool";
import { mixedCurrencyWarnings } from "../envelope";
import { currencySchema, perCurrency } from "./shared";

const byTypeSchema = z.object({
  type: z.enum(ACCOUNT_TYPES),
  amount: z.number(),
  accounts: z.number().int(),
});

export const getNetWorthTool = defineTool({
  name: "get_net_worth",
  title: "Net worth",
  description:
    "Net worth = assets minus liabilities (owed, positive), now and by account type, with a history from daily balance snapshots, per currency. History starts at the first snapshot (history_starts); interval none gives only current figures.",
  input: z.strictObject({
    interval: z
      .enum(NET_WORTH_INTERVALS)
      .default("month")
      .describe("Spacing of history points; none = no history."),
    months: z
      .number()
      .int()
      .min(1)
      .max(60)
      .default(12)
      .describe("Months of history (interval day: at most 12)."),
  }),
  data: z.object({
    as_of: z.string().describe("Today's date in the user's timezone."),
    totals: perCurrency({
      net_worth: z.number(),
      assets: z.number(),
      liabilities: z.number().describe("Total owed, positive."),
      assets_by_type: z.array(byTypeSchema),
      liabilities_by_type: z.array(byTypeSchema),
    }),
    history: z.array(
      z.object({
        currency: currencySchema,
        date: z.string(),
        assets: z.number(),
        liabilities: z.number(),
        net_worth: z.number(),
      }),
    ),
    history_starts: z
      .string()
      .nullable()
      .describe("Date of the first balance snapshot; absent when none yet."),
  }),
  async run(args, ctx) {
    if (args.interval === "day" && args.months > 12) {
      throw new AppError("invalid_input", 'Argument "months" must be at most 12 when interval is day.', {
        argument: "months",
      });
    }
    const today = todayIn(ctx.timezone, ctx.now);
    const { totals, history, historyStart } = await getNetWorth(ctx.db, ctx.userId, {
      today,
      months: args.months,
      interval: args.interval,
    });
    return {
      data: {
        as_of: today,
        totals: totals.map((t) => {
          const byType = (liability: boolean) =>
            t.byType
              .filter((b) => isLiabilityType(b.type) === liability)
              .map((b) => ({ type: b.type, amount: toAmount(b.cents, t.currency), accounts: b.count }));
          return {
            currency: t.currency,
            net_worth: toAmount(t.netWorthCents, t.currency),
            assets: toAmount(t.assetsCents, t.currency),
            liabilities: toAmount(t.liabilitiesCents, t.currency),
            assets_by_type: byType(false),
            liabilities_by_type: byType(true),
          };
        }),
        history: history.map((p) => ({
          currency: p.currency,
          date: p.date,
          assets: toAmount(p.assetsCents, p.currency),
          liabilities: toAmount(p.liabilitiesCents, p.currency),
          net_worth: toAmount(p.netWorthCents, p.currency),
        })),
        history_starts: historyStart,
      },
      warnings: mixedCurrencyWarnings([...totals.map((t) => t.currency), ...history.map((p) => p.currency)]),
    };
  },
});

/** Tool 10: net worth now and its history from daily balance snapshots. */
import { z } from "zod";
import { AppError } from "@/lib/errors";
import { ACCOUNT_TYPES, getNetWorth, isLiabilityType, NET_WORTH_INTERVALS } from "@/lib/finance/accounts";
import { groupByCurrency, toAmount } from "@/lib/finance/currency";
import { todayIn } from "@/lib/finance/periods";
import { defineTool } from "../define-tool";
import { mixedCurrencyWarnings } from "../envelope";
import { currencySchema, perCurrency } from "./shared";

const byTypeSchema = z.object({
  type: z.enum(ACCOUNT_TYPES),
  amount: z.number(),
  accounts: z.number().int(),
});

/** The values of each history point, in its row's order. */
const HISTORY_COLUMNS: ["date", "assets", "liabilities", "net_worth"] = [
  "date",
  "assets",
  "liabilities",
  "net_worth",
];

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
    history: z
      .array(
        z.object({
          currency: currencySchema,
          columns: z.tuple([
            z.literal("date"),
            z.literal("assets"),
            z.literal("liabilities"),
            z.literal("net_worth"),
          ]),
          points: z.array(z.tuple([z.string(), z.number(), z.number(), z.number()])),
        }),
      )
      .describe("Per currency: points oldest first, each a row of the values named in columns."),
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
      scope: ctx.scope,
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
        // A row per point, its columns named once per currency: a daily year is 365 points, and
        // their keys repeated in each were most of the answer.
        history: groupByCurrency(history, (p) => p.currency).map(([currency, points]) => ({
          currency,
          columns: HISTORY_COLUMNS,
          points: points.map((p): [string, number, number, number] => [
            p.date,
            toAmount(p.assetsCents, currency),
            toAmount(p.liabilitiesCents, currency),
            toAmount(p.netWorthCents, currency),
          ]),
        })),
        history_starts: historyStart,
      },
      warnings: mixedCurrencyWarnings([...totals.map((t) => t.currency), ...history.map((p) => p.currency)]),
    };
  },
});

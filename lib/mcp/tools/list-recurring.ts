/** Tool 6: subscriptions, bills and regular income, with monthly and yearly totals. */
import { z } from "zod";
import { toAmount } from "@/lib/finance/currency";
import { todayIn } from "@/lib/finance/periods";
import { getRecurring, type RecurringSums } from "@/lib/finance/recurring";
import { defineTool } from "../define-tool";
import { mixedCurrencyWarnings } from "../envelope";
import { amountOrNull, currencySchema, perCurrency } from "./shared";

const FREQUENCIES = ["weekly", "biweekly", "semi_monthly", "monthly", "quarterly", "annually"] as const;
const totalsSchema = z.object({
  count: z.number().int(),
  monthly: z.number().describe("Monthly equivalent (yearly / 12), signed."),
  yearly: z.number().describe("Yearly equivalent at the current price, signed."),
});

export const listRecurringTool = defineTool({
  name: "list_recurring",
  title: "Recurring charges and income",
  description:
    "Recurring charges (subscriptions, bills, rent, loans) and income found in transactions: merchant, frequency, average and last amount, next date, price_changed (within 12 months, with previous_amount), monthly and yearly cost, totals per currency. Money out is negative.",
  input: z.strictObject({
    direction: z
      .enum(["outflow", "inflow", "all"])
      .default("outflow")
      .describe("outflow = charges, inflow = income."),
    status: z
      .enum(["active", "inactive", "all"])
      .default("active")
      .describe("active = still recurring, inactive = stopped."),
  }),
  data: z.object({
    streams: z.array(
      z.object({
        id: z.string(),
        currency: currencySchema,
        merchant: z.string(),
        description: z.string().nullable(),
        category: z.string(),
        direction: z.enum(["inflow", "outflow"]),
        frequency: z.enum(FREQUENCIES),
        average_amount: z.number(),
        last_amount: z.number(),
        previous_amount: z.number().nullable().describe("The amount before the latest price change, if any."),
        price_changed: z.boolean().describe("The price changed within the last 12 months."),
        price_changed_on: z.string().nullable().describe("Date of the first charge at the current price."),
        first_date: z.string(),
        last_date: z.string(),
        next_date: z.string().nullable(),
        is_active: z.boolean(),
        account: z.string(),
        monthly_equivalent: z.number(),
        yearly_equivalent: z.number(),
      }),
    ),
    totals: perCurrency({
      outflow: totalsSchema.describe("Charges among the listed streams."),
      inflow: totalsSchema.describe("Income among the listed streams."),
    }),
  }),
  async run(args, ctx) {
    const { streams, totals } = await getRecurring(
      ctx.db,
      ctx.userId,
      {
        direction: args.direction,
        status: args.status,
        today: todayIn(ctx.timezone, ctx.now),
      },
      ctx.scope,
    );
    const sums = (s: RecurringSums, currency: string) => ({
      count: s.count,
      monthly: toAmount(s.monthlyCents, currency),
      yearly: toAmount(s.yearlyCents, currency),
    });
    return {
      data: {
        streams: streams.map((s) => ({
          id: s.id,
          currency: s.currency,
          merchant: s.merchant,
          description: s.description,
          category: s.category,
          direction: s.direction,
          frequency: s.frequency,
          average_amount: toAmount(s.averageCents, s.currency),
          last_amount: toAmount(s.lastCents, s.currency),
          previous_amount: amountOrNull(s.previousCents, s.currency),
          price_changed: s.priceChanged,
          price_changed_on: s.priceChangedOn,
          first_date: s.firstDate,
          last_date: s.lastDate,
          next_date: s.nextDate,
          is_active: s.isActive,
          account: s.accountName,
          monthly_equivalent: toAmount(s.monthlyCents, s.currency),
          yearly_equivalent: toAmount(s.yearlyCents, s.currency),
        })),
        totals: totals.map((t) => ({
          currency: t.currency,
          outflow: sums(t.outflow, t.currency),
          inflow: sums(t.inflow, t.currency),
        })),
      },
      warnings: mixedCurrencyWarnings(totals.map((t) => t.currency)),
    };
  },
});

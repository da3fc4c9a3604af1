/** Tool 6: subscriptions, bills and regular income, with monthly and yearly totals. */
import { z } from "zod";
import { groupByCurrency, toAmount } from "@/lib/finance/currency";
import { todayIn } from "@/lib/finance/periods";
import { equivalents, listStreams } from "@/lib/finance/recurring";
import { defineTool } from "../define-tool";
import { mixedCurrencyWarnings } from "../envelope";
import { currencySchema, perCurrency } from "./shared";

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
    "Lists recurring charges (subscriptions, bills, rent, loan payments) and recurring income (pay) detected in the user's transactions: merchant, frequency, average and last amount, last and next date, and price_changed when the price changed within the last 12 months (with the old amount and the date of the change), with monthly and yearly equivalents at the current price, per currency. Money out is negative. Use it for 'what subscriptions do I pay', 'how much do my subscriptions cost a year', 'did any price go up'. Defaults: direction outflow, status active.",
  input: z.strictObject({
    direction: z
      .enum(["outflow", "inflow", "all"])
      .default("outflow")
      .describe("outflow = charges (default), inflow = income, all."),
    status: z
      .enum(["active", "inactive", "all"])
      .default("active")
      .describe("active (default) = still recurring, inactive = stopped, all."),
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
    const streams = await listStreams(ctx.db, ctx.userId, {
      direction: args.direction,
      status: args.status,
      today: todayIn(ctx.timezone, ctx.now),
    });
    const rows = streams.map((s) => {
      const eq = equivalents(s.lastCents, s.frequency);
      const amount = (minor: number) => toAmount(minor, s.currency);
      return {
        row: {
          id: s.id,
          currency: s.currency,
          merchant: s.merchant,
          description: s.description,
          category: s.category,
          direction: s.direction,
          frequency: s.frequency,
          average_amount: amount(s.averageCents),
          last_amount: amount(s.lastCents),
          previous_amount: s.previousCents === null ? null : amount(s.previousCents),
          price_changed: s.priceChanged,
          price_changed_on: s.priceChangedOn,
          first_date: s.firstDate,
          last_date: s.lastDate,
          next_date: s.nextDate,
          is_active: s.isActive,
          account: s.accountName,
          monthly_equivalent: amount(eq.monthlyCents),
          yearly_equivalent: amount(eq.yearlyCents),
        },
        direction: s.direction,
        ...eq,
      };
    });
    // Sums of the per-stream integer equivalents, once per currency.
    const totals = groupByCurrency(rows, (r) => r.row.currency).map(([currency, ofCurrency]) => {
      const sum = (direction: "inflow" | "outflow") => {
        const of = ofCurrency.filter((r) => r.direction === direction);
        return {
          count: of.length,
          monthly: toAmount(
            of.reduce((n, r) => n + r.monthlyCents, 0),
            currency,
          ),
          yearly: toAmount(
            of.reduce((n, r) => n + r.yearlyCents, 0),
            currency,
          ),
        };
      };
      return { currency, outflow: sum("outflow"), inflow: sum("inflow") };
    });
    return {
      data: {
        streams: rows
          .map((r) => r.row)
          .sort(
            (a, b) =>
              a.currency.localeCompare(b.currency) ||
              a.monthly_equivalent - b.monthly_equivalent ||
              a.merchant.localeCompare(b.merchant),
          ),
        totals,
      },
      warnings: mixedCurrencyWarnings(totals.map((t) => t.currency)),
    };
  },
});

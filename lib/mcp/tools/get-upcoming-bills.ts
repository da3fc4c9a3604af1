/** Tool 7: bills and card/loan payments due soon, and the projected lowest cash balance. */
import { z } from "zod";
import { BILL_KINDS, getUpcomingBills } from "@/lib/finance/bills";
import { toAmount } from "@/lib/finance/currency";
import { todayIn } from "@/lib/finance/periods";
import { defineTool } from "../define-tool";
import { mixedCurrencyWarnings } from "../envelope";
import { currencySchema, perCurrency, rangeSchema } from "./shared";

export const getUpcomingBillsTool = defineTool({
  name: "get_upcoming_bills",
  title: "Upcoming bills",
  description:
    "Bills from today through days_ahead: recurring charges and card/loan due dates (minimum payment), with the total due, expected income, and the projected lowest cash (checking + savings) balance and its date, per currency.",
  input: z.strictObject({
    days_ahead: z.number().int().min(1).max(90).default(30).describe("Days to look ahead from today."),
  }),
  data: z.object({
    window: rangeSchema,
    bills: z.array(
      z.object({
        currency: currencySchema,
        date: z.string(),
        name: z.string(),
        amount: z.number().describe("Negative = money out."),
        kind: z.enum(BILL_KINDS),
        frequency: z.string().nullable(),
        account: z.string(),
        category: z.string().nullable(),
      }),
    ),
    expected_income: z.array(
      z.object({
        currency: currencySchema,
        date: z.string(),
        name: z.string(),
        amount: z.number(),
        account: z.string(),
      }),
    ),
    totals: perCurrency({
      total_due: z.number().describe("Sum of the listed bills (negative)."),
      starting_balance: z.number().describe("Current checking and savings balances."),
      projected_lowest_balance: z.number(),
      projected_lowest_date: z.string(),
      projected_ending_balance: z.number(),
    }),
  }),
  async run(args, ctx) {
    const today = todayIn(ctx.timezone, ctx.now);
    const result = await getUpcomingBills(ctx.db, ctx.userId, today, args.days_ahead, ctx.scope);
    return {
      data: {
        window: result.window,
        bills: result.bills.map((b) => ({
          currency: b.currency,
          date: b.date,
          name: b.name,
          amount: toAmount(b.amountCents, b.currency),
          kind: b.kind,
          frequency: b.frequency,
          account: b.account,
          category: b.category,
        })),
        expected_income: result.income.map((i) => ({
          currency: i.currency,
          date: i.date,
          name: i.name,
          amount: toAmount(i.amountCents, i.currency),
          account: i.account,
        })),
        totals: result.cash.map((c) => ({
          currency: c.currency,
          total_due: toAmount(c.totalDueCents, c.currency),
          starting_balance: toAmount(c.startingCashCents, c.currency),
          projected_lowest_balance: toAmount(c.lowest.cents, c.currency),
          projected_lowest_date: c.lowest.date,
          projected_ending_balance: toAmount(c.endingCashCents, c.currency),
        })),
      },
      warnings: mixedCurrencyWarnings(result.cash.map((c) => c.currency)),
    };
  },
});

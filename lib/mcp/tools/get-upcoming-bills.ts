/** Tool 7: bills and card/loan payments due soon, and the projected lowest cash balance. */
import { z } from "zod";
import { getUpcomingBills } from "@/lib/finance/bills";
import { toAmount } from "@/lib/finance/money";
import { todayIn } from "@/lib/finance/periods";
import { defineTool } from "../define-tool";
import { rangeSchema } from "./shared";

export const getUpcomingBillsTool = defineTool({
  name: "get_upcoming_bills",
  title: "Upcoming bills",
  description:
    "Lists bills expected from today through the next days_ahead days: recurring charges projected from their frequency, and credit-card and loan payment due dates (minimum payment), with the total due, the recurring income expected in the window, and a projection of the cash balance (checking and savings) to its lowest point and date. The projection is an estimate: charges on a card move cash only when the card is paid. Amounts: money out negative. Use it for 'what bills are coming up', 'will I have enough money until payday'. Default days_ahead 30 (max 90).",
  input: z.strictObject({
    days_ahead: z
      .number()
      .int()
      .min(1)
      .max(90)
      .default(30)
      .describe("Days to look ahead from today, 1–90. Default 30."),
  }),
  data: z.object({
    window: rangeSchema,
    currency: z.string(),
    bills: z.array(
      z.object({
        date: z.string(),
        name: z.string(),
        amount: z.number().describe("Negative = money out."),
        kind: z.enum(["recurring", "credit_card", "loan"]),
        frequency: z.string().nullable(),
        account: z.string(),
        category: z.string().nullable(),
      }),
    ),
    total_due: z.number().describe("Sum of all listed bills (negative)."),
    expected_income: z.array(
      z.object({ date: z.string(), name: z.string(), amount: z.number(), account: z.string() }),
    ),
    cash: z.object({
      starting_balance: z.number().describe("Current checking and savings balances."),
      projected_lowest_balance: z.number(),
      projected_lowest_date: z.string(),
      projected_ending_balance: z.number(),
    }),
  }),
  async run(args, ctx) {
    const today = todayIn(ctx.timezone, ctx.now);
    const result = await getUpcomingBills(ctx.db, ctx.userId, today, args.days_ahead);
    return {
      data: {
        window: result.window,
        currency: "USD",
        bills: result.bills.map((b) => ({
          date: b.date,
          name: b.name,
          amount: toAmount(b.amountCents),
          kind: b.kind,
          frequency: b.frequency,
          account: b.account,
          category: b.category,
        })),
        total_due: toAmount(result.bills.reduce((n, b) => n + b.amountCents, 0)),
        expected_income: result.income.map((i) => ({
          date: i.date,
          name: i.name,
          amount: toAmount(i.amountCents),
          account: i.account,
        })),
        cash: {
          starting_balance: toAmount(result.startingCashCents),
          projected_lowest_balance: toAmount(result.lowest.cents),
          projected_lowest_date: result.lowest.date,
          projected_ending_balance: toAmount(result.endingCashCents),
        },
      },
    };
  },
});

import { z } from "zod";
import { monthArg, monthRange } from "./args";
import { definePrompt } from "./define-prompt";

export const monthlyReview = definePrompt({
  name: "monthly_review",
  title: "Monthly money review",
  description:
    "Review one month of finances: income, spending by category, cash flow, unusual activity and what to do next.",
  args: z.object({ month: monthArg.optional() }),
  build: ({ month }) => {
    const dates = month
      ? (() => {
          const { start, end } = monthRange(month);
          return `start_date "${start}" and end_date "${end}"`;
        })()
      : `period "last_month"`;
    const label = month ?? "last month";
    return [
      `Give me a review of my finances for ${label}.`,
      "",
      "Use the Ledgerlink tools:",
      `1. get_financial_overview with ${dates} for income, spending, net and how they compare with the month before.`,
      `2. get_spending_breakdown with group_by "category", ${dates} and compare_to_previous true for where the money went.`,
      `3. get_cash_flow with ${dates} for income, spending and savings rate.`,
      `4. find_unusual_activity with ${dates} for large, duplicate or new charges and fees.`,
      "5. list_recurring for subscriptions and bills that repeat.",
      "",
      "Then write: a three-line summary (income, spending, net, savings rate); the top categories with their change from the previous month; anything unusual worth checking; and three concrete suggestions for next month.",
      "Use the amounts exactly as the tools return them (money out is negative). If a tool answers setup_required, or carries a NO_CONNECTIONS or REAUTH_REQUIRED warning, tell me first and give me its link.",
    ].join("\n");
  },
});

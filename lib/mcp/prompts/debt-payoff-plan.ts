import { z } from "zod";
import { amountArg } from "./args";
import { definePrompt } from "./define-prompt";

export const debtPayoffPlan = definePrompt({
  name: "debt_payoff_plan",
  title: "Debt payoff plan",
  description:
    "Build a month-by-month plan to pay off credit cards and loans with the avalanche or snowball method.",
  args: z.object({
    strategy: z
      .enum(["avalanche", "snowball"], { error: 'strategy must be "avalanche" or "snowball"' })
      .optional()
      .describe('"avalanche" (highest APR first, the default) or "snowball" (smallest balance first).'),
    extra_per_month: amountArg.optional(),
  }),
  build: ({ strategy, extra_per_month }) => {
    const method = strategy ?? "avalanche";
    const extra = extra_per_month ?? "0";
    const order =
      method === "avalanche"
        ? "highest APR first (avalanche), which pays the least interest"
        : "smallest balance first (snowball), which clears whole debts soonest";
    return [
      `Make me a plan to pay off my debts, ${order}, putting an extra ${extra} per month on top of the minimum payments.`,
      "",
      "Use the Ledgerlink tools:",
      "1. get_liabilities for every card and loan: balance, APR, minimum payment, due date, and the total debt and weighted APR.",
      "2. get_cash_flow with months 6 for my average monthly income, spending and what is left over.",
      "3. get_upcoming_bills with days_ahead 30 so the plan does not collide with bills due soon.",
      "",
      `Then write: the order in which to pay the debts (${method}), the monthly payment for each, the month each one is paid off, the total interest paid, and how much interest and time the extra ${extra} per month saves compared with paying only the minimums. Show the arithmetic assumptions (monthly interest = APR / 12). Say so if my cash flow cannot support the extra amount.`,
      "If a tool answers setup_required, or carries a NO_CONNECTIONS or REAUTH_REQUIRED warning, tell me first and give me its link.",
    ].join("\n");
  },
});

import { z } from "zod";
import { wholeNumberArg } from "./args";
import { definePrompt } from "./define-prompt";

export const spendingDeepDive = definePrompt({
  name: "spending_deep_dive",
  title: "Spending deep dive",
  description:
    "Look closely at what I spend on one category or merchant: trend by month, biggest charges, and how to spend less.",
  args: z.object({
    category_or_merchant: z
      .string({
        error: "category_or_merchant is required: a spending category (e.g. groceries) or a merchant name",
      })
      .trim()
      .min(1, {
        error: "category_or_merchant is required: a spending category (e.g. groceries) or a merchant name",
      })
      .max(100, { error: "category_or_merchant must be at most 100 characters" })
      .describe("A spending category (e.g. groceries, restaurants) or a merchant name (e.g. Amazon)."),
    months: wholeNumberArg("months", 1, 24, "How many months back to look, 1 to 24 (default 6).").optional(),
  }),
  build: ({ category_or_merchant, months }) => {
    const span = months ?? 6;
    const subject = JSON.stringify(category_or_merchant);
    return [
      `Take a deep dive into my spending on ${subject} over the last ${span} months.`,
      "",
      "Use the Ledgerlink tools:",
      `1. get_spending_breakdown with group_by "category" and then group_by "merchant" over the last ${span} months (start_date/end_date) to see whether ${subject} is a category or a merchant and how big it is.`,
      `2. search_transactions with query ${subject} (or categories [${subject}] if it is a category), direction "outflow", over the same range; its summary covers all matches, not just the page. Page through with cursor to find the biggest charges and to total them by month.`,
      `3. get_cash_flow with months ${span} to compare it with my total spending each month.`,
      "4. list_recurring to see which of these charges repeat.",
      "",
      "Then write: total and monthly average, the trend by month, the largest charges, how much of it is recurring, and two or three specific ways to spend less, each with an estimated monthly saving.",
      "If a tool answers setup_required, or carries a NO_CONNECTIONS or REAUTH_REQUIRED warning, tell me first and give me its link.",
    ].join("\n");
  },
});

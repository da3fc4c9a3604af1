import { z } from "zod";
import { wholeNumberArg } from "./args";
import { definePrompt } from "./define-prompt";

export const upcomingBillsCheck = definePrompt({
  name: "upcoming_bills_check",
  title: "Upcoming bills check",
  description:
    "List the bills and card or loan payments due soon and check that there is enough cash to cover them.",
  args: z.object({
    days: wholeNumberArg("days", 1, 90, "How many days ahead to look, 1 to 90 (default 30).").optional(),
  }),
  build: ({ days }) => {
    const window = days ?? 30;
    return [
      `Check the bills I have to pay in the next ${window} days.`,
      "",
      "Use the Ledgerlink tools:",
      `1. get_upcoming_bills with days_ahead ${window} for recurring charges and card or loan due dates, and the projected lowest cash balance with its date.`,
      '2. list_accounts with types ["depository"] for the cash I have now.',
      "3. get_liabilities for minimum payments, due dates and anything overdue.",
      "",
      "Then write the bills in date order (date, payee, amount, which account pays it), the total, and whether my cash covers them at the projected lowest point. Flag anything overdue or any day the balance could go below zero, and say what to move or pay first.",
      "If a tool answers setup_required, or carries a NO_CONNECTIONS or REAUTH_REQUIRED warning, tell me first and give me its link.",
    ].join("\n");
  },
});

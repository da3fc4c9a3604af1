import { z } from "zod";
import { definePrompt } from "./define-prompt";

export const subscriptionAudit = definePrompt({
  name: "subscription_audit",
  title: "Subscription audit",
  description:
    "Find every recurring charge, what it costs per month and per year, and which ones went up or look forgotten.",
  args: z.object({}),
  build: () =>
    [
      "Audit my subscriptions and other recurring charges.",
      "",
      "Use the Ledgerlink tools:",
      '1. list_recurring with direction "outflow" and status "active" for every recurring charge, its frequency, average and last amount, next date and whether the price changed.',
      '2. find_unusual_activity with kinds ["price_increase", "duplicate"] and period "last_90_days" for recent price rises and double charges.',
      "3. search_transactions with the merchant as query when you need the full charge history of one subscription.",
      "",
      "Then write a table of all recurring charges (merchant, frequency, monthly cost, yearly cost, last charged), the monthly and yearly totals, the ones whose price went up (old and new price), possible duplicates, and which ones I might cancel, with the yearly saving of each.",
      "If a tool answers setup_required, or carries a NO_CONNECTIONS or REAUTH_REQUIRED warning, tell me first and give me its link.",
    ].join("\n"),
});

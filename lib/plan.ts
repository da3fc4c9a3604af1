/** What a subscription gives, in people's words: the landing page and Billing say the same. */
import { getEnv } from "@/lib/env";

export function priceLabel(): string {
  return getEnv().PRICE_LABEL;
}

export const INCLUDED: readonly string[] = [
  "Your assistant reads balances, transactions, spending, cash flow, bills, investments, debt and net worth",
  "As many banks and AI apps as you like",
  "Read only: Ledgerlink can never move money",
  "Cancel any time; keys and app access can be revoked at once",
];

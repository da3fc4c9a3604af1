/** Pieces shared by several tool definitions: argument fields and output fragments. */
import { z } from "zod";
import { toAmount } from "@/lib/finance/currency";

/** `account_ids`: ids from list_accounts; ids of other users' accounts simply match nothing. */
export const accountIdsArg = z
  .array(z.string().min(1).max(100))
  .min(1)
  .max(50)
  .optional()
  .describe("Ids from list_accounts.");

/** An inclusive date range in the output. */
export const rangeSchema = z.object({
  start: z.string().describe("First day included (YYYY-MM-DD)."),
  end: z.string().describe("Last day included (YYYY-MM-DD)."),
});

/**
 * The currency of the amounts beside it: every row and every total carries one, and totals come
 * once per currency (product.md, "Currency"). Kept without a description: it repeats in every
 * schema and tools/list has a size budget.
 */
export const currencySchema = z.string();

/** A `totals` list: one entry per currency, in code order (one entry when all is in one currency). */
export function perCurrency<S extends z.ZodRawShape>(shape: S) {
  return z.array(z.object({ currency: currencySchema, ...shape }));
}

/** A nullable amount in minor units as the decimal a tool answers with (null stays null: unknown, not zero). */
export function amountOrNull(minor: number | null, currency: string): number | null {
  return minor === null ? null : toAmount(minor, currency);
}

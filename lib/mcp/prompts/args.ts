/** String-typed prompt arguments (prompts/get sends strings), parsed into typed values. */
import { z } from "zod";

/** A whole number from `min` to `max`, sent as a string ("30"). */
export function wholeNumberArg(name: string, min: number, max: number, description: string) {
  const message = `${name} must be a whole number from ${min} to ${max}`;
  return z
    .string({ error: message })
    .trim()
    .regex(/^\d{1,6}$/, { error: message })
    .transform(Number)
    .pipe(z.number().int().min(min, { error: message }).max(max, { error: message }))
    .describe(description);
}

/** A calendar month `YYYY-MM`. */
export const monthArg = z
  .string({ error: "month must be YYYY-MM, e.g. 2025-03" })
  .trim()
  .regex(/^\d{4}-(0[1-9]|1[0-2])$/, { error: "month must be YYYY-MM, e.g. 2025-03" })
  .describe("The month to review as YYYY-MM (default: last month).");

/** A non-negative amount with at most two decimals ("250", "99.50"). */
export const amountArg = z
  .string({ error: "extra_per_month must be a non-negative amount such as 200 or 150.50" })
  .trim()
  .regex(/^\d{1,9}(\.\d{1,2})?$/, {
    error: "extra_per_month must be a non-negative amount such as 200 or 150.50",
  })
  .describe("Extra money per month to put toward debt, as a decimal (e.g. 200 or 150.50). Default: 0.");

/** First and last day (ISO dates) of a `YYYY-MM` month. */
export function monthRange(month: string): { start: string; end: string } {
  const [year, mon] = month.split("-").map(Number) as [number, number];
  const lastDay = new Date(Date.UTC(year, mon, 0)).getUTCDate();
  return { start: `${month}-01`, end: `${month}-${String(lastDay).padStart(2, "0")}` };
}

/** Pieces shared by several tool definitions: argument fields and output fragments. */
import { z } from "zod";

/** `account_ids`: ids from list_accounts; ids of other users' accounts simply match nothing. */
export const accountIdsArg = z
  .array(z.string().min(1).max(100))
  .min(1)
  .max(50)
  .optional()
  .describe("Only these accounts (ids from list_accounts). Default: all accounts.");

/** An inclusive date range in the output. */
export const rangeSchema = z.object({
  start: z.string().describe("First day included (YYYY-MM-DD)."),
  end: z.string().describe("Last day included (YYYY-MM-DD)."),
});

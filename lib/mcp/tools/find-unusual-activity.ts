/** Tool 11: transactions worth a second look. */
import { z } from "zod";
import { toAmount } from "@/lib/finance/currency";
import { findUnusualActivity, UNUSUAL_KINDS } from "@/lib/finance/unusual";
import { dateArgsShape, resolveDateArgs } from "../args";
import { defineTool } from "../define-tool";
import { mixedCurrencyWarnings } from "../envelope";
import { amountOrNull, currencySchema, rangeSchema } from "./shared";

export const findUnusualActivityTool = defineTool({
  name: "find_unusual_activity",
  title: "Unusual activity",
  description:
    "Transactions worth a look, with reason and typical amount: large (3× the usual in its category, at least 100), duplicate (same amount, merchant and account within a day), new_merchant, fees, price_increase (a recurring charge went up). For more, raise limit. counts cover the whole range.",
  input: z.strictObject({
    ...dateArgsShape("last_30_days"),
    kinds: z.array(z.enum(UNUSUAL_KINDS)).min(1).optional().describe("Only these kinds."),
    limit: z.number().int().min(1).max(100).default(20).describe("Findings to return."),
  }),
  data: z.object({
    range: rangeSchema,
    findings: z.array(
      z.object({
        kind: z.enum(UNUSUAL_KINDS),
        reason: z.string(),
        transaction: z.object({
          id: z.string().nullable(),
          date: z.string(),
          amount: z.number(),
          currency: currencySchema,
          merchant: z.string(),
          category: z.string(),
          account: z.string(),
        }),
        typical_amount: z
          .number()
          .nullable()
          .describe("What this usually costs (same sign and currency as amount), when known."),
      }),
    ),
    counts: z
      .object(
        Object.fromEntries(UNUSUAL_KINDS.map((k) => [k, z.number().int().optional()])) as Record<
          (typeof UNUSUAL_KINDS)[number],
          z.ZodOptional<z.ZodNumber>
        >,
      )
      .describe("Matches per kind searched, over the whole range (the list is cut to limit)."),
  }),
  async run(args, ctx) {
    const { range } = resolveDateArgs(args, ctx, "last_30_days");
    const result = await findUnusualActivity(
      ctx.db,
      ctx.userId,
      range,
      args.kinds ?? UNUSUAL_KINDS,
      args.limit,
      ctx.scope,
    );
    return {
      data: {
        range,
        findings: result.findings.map((f) => ({
          kind: f.kind,
          reason: f.reason,
          transaction: {
            id: f.transaction.id,
            date: f.transaction.date,
            amount: toAmount(f.transaction.amountCents, f.transaction.currency),
            currency: f.transaction.currency,
            merchant: f.transaction.merchant,
            category: f.transaction.category,
            account: f.transaction.account,
          },
          typical_amount: amountOrNull(f.typicalCents, f.transaction.currency),
        })),
        counts: result.counts,
      },
      warnings: mixedCurrencyWarnings(result.findings.map((f) => f.transaction.currency)),
    };
  },
});

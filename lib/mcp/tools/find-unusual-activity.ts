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
    "Finds transactions worth a second look, each with the reason and, where it applies, the typical amount: large (at least 3× the usual charge in its category and at least 100), duplicate (same amount, merchant and account within a day), new_merchant (first charge at a merchant never seen before the range), fees (bank fees and interest charged), price_increase (a recurring charge that went up). Transfers between own accounts are never findings. Use it for 'anything odd on my accounts', 'was I charged twice', 'what fees did I pay'. Defaults: last_30_days, all kinds, 20 findings (max 100), most actionable kinds first; counts give every kind's total.",
  input: z.strictObject({
    ...dateArgsShape("last_30_days"),
    kinds: z
      .array(z.enum(UNUSUAL_KINDS))
      .min(1)
      .optional()
      .describe(`Only these kinds: ${UNUSUAL_KINDS.join(", ")}. Default: all.`),
    limit: z.number().int().min(1).max(100).default(20).describe("Findings to return, 1–100. Default 20."),
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

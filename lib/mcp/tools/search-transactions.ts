/** Tool 3: search transactions, with a summary over every match and a cursor. */
import { z } from "zod";
import { AppError } from "@/lib/errors";
import { toAmount } from "@/lib/finance/currency";
import { todayIn } from "@/lib/finance/periods";
import { scopedAccountIds } from "@/lib/finance/scope";
import { searchTransactions, TRANSACTION_SORTS, type TransactionFilter } from "@/lib/finance/transactions";
import { categorySchema, dateArgsShape, resolveDateArgs, scaledAmountArg } from "../args";
import { decodeCursor, pageOf, searchFingerprint, searchKeyShape } from "../cursor";
import { defineTool } from "../define-tool";
import { mixedCurrencyWarnings } from "../envelope";
import { accountIdsArg, currencySchema, perCurrency, rangeSchema } from "./shared";

export const searchTransactionsTool = defineTool({
  name: "search_transactions",
  title: "Search transactions",
  description:
    "Transactions matching the filters, with a summary (count, inflow, outflow, net per currency) over ALL matches, not only this page. Money out is negative. Default: all history, newest first, 25 rows; for more, raise limit or pass cursor = page.next_cursor.",
  input: z.strictObject({
    query: z.string().trim().min(1).max(200).optional().describe("Text in the merchant or description."),
    ...dateArgsShape(undefined),
    account_ids: accountIdsArg,
    categories: z.array(categorySchema).min(1).optional().describe("Only these categories."),
    direction: z
      .enum(["all", "inflow", "outflow"])
      .default("all")
      .describe("inflow = money in, outflow = money out."),
    min_amount: z
      .number()
      .min(0)
      .max(1e12)
      .optional()
      .describe("Smallest absolute amount (100 matches -100 and 100)."),
    max_amount: z.number().min(0).max(1e12).optional().describe("Largest absolute amount."),
    include_pending: z.boolean().default(true).describe("Include pending transactions."),
    exclude_transfers: z.boolean().default(false).describe("Leave out own transfers and card payments."),
    sort: z.enum(TRANSACTION_SORTS).default("date_desc").describe("amount_*: by absolute amount."),
    limit: z.number().int().min(1).max(250).default(25).describe("Rows per page."),
    cursor: z.string().min(1).max(500).optional().describe("page.next_cursor of the last call."),
  }),
  data: z.object({
    range: rangeSchema.nullable().describe("The dates searched; absent = all history."),
    transactions: z.array(
      z.object({
        id: z.string(),
        date: z.string(),
        amount: z.number().describe("Negative = money out."),
        currency: currencySchema,
        name: z.string(),
        merchant: z.string().nullable(),
        category: z.string(),
        account: z.string(),
        pending: z.boolean(),
        is_transfer: z.boolean(),
      }),
    ),
    summary: z
      .object({
        count: z.number().int(),
        totals: perCurrency({
          count: z.number().int(),
          inflow: z.number().describe("Sum of positive amounts."),
          outflow: z.number().describe("Sum of negative amounts (negative)."),
          net: z.number(),
        }),
      })
      .describe("Over ALL matches, not only this page."),
  }),
  async run(args, ctx) {
    const { range } = resolveDateArgs(args, ctx, undefined);
    const minAbs = args.min_amount === undefined ? undefined : scaledAmountArg(args.min_amount, "min_amount");
    const maxAbs = args.max_amount === undefined ? undefined : scaledAmountArg(args.max_amount, "max_amount");
    if (minAbs !== undefined && maxAbs !== undefined && minAbs > maxAbs) {
      throw new AppError("invalid_input", 'Argument "min_amount" must not be greater than "max_amount".', {
        argument: "min_amount",
      });
    }
    const filter: TransactionFilter = {
      range,
      query: args.query,
      accountIds: scopedAccountIds(ctx.scope, args.account_ids),
      categories: args.categories,
      direction: args.direction,
      minAbs,
      maxAbs,
      includePending: args.include_pending,
      excludeTransfers: args.exclude_transfers,
    };
    const fingerprint = searchFingerprint(ctx.userId, filter, args.sort);
    const after = args.cursor ? decodeCursor(args.cursor, fingerprint, searchKeyShape(args.sort)) : null;
    const result = await searchTransactions(ctx.db, ctx.userId, filter, {
      sort: args.sort,
      limit: args.limit,
      after,
      today: todayIn(ctx.timezone, ctx.now),
    });
    return {
      data: {
        range,
        transactions: result.transactions.map(({ amountCents, isTransfer, ...t }) => ({
          ...t,
          amount: toAmount(amountCents, t.currency),
          is_transfer: isTransfer,
        })),
        summary: {
          count: result.totalCount,
          totals: result.summary.map((s) => ({
            currency: s.currency,
            count: s.count,
            inflow: toAmount(s.inflowCents, s.currency),
            outflow: toAmount(s.outflowCents, s.currency),
            net: toAmount(s.netCents, s.currency),
          })),
        },
      },
      warnings: mixedCurrencyWarnings(result.summary.map((s) => s.currency)),
      page: pageOf(result.nextKey, fingerprint, result.totalCount),
    };
  },
});

/** Tool 8: investment holdings, allocation, and investment transactions. */
import { z } from "zod";
import { toAmount } from "@/lib/finance/currency";
import {
  type AllocationRow,
  getAllocationView,
  getHoldingsView,
  getInvestmentTransactionsView,
  type HoldingTotals,
} from "@/lib/finance/investments";
import { scopedAccountIds } from "@/lib/finance/scope";
import { dateArgsShape, resolveDateArgs } from "../args";
import { decodeCursor, fingerprintOf, pageOf } from "../cursor";
import { defineTool } from "../define-tool";
import { mixedCurrencyWarnings } from "../envelope";
import { accountIdsArg, amountOrNull, currencySchema, perCurrency, rangeSchema } from "./shared";

const VIEWS = ["holdings", "allocation", "transactions"] as const;
const shareSchema = z.object({
  currency: currencySchema,
  key: z.string(),
  value: z.number(),
  share: z.number().nullable(),
});

export const getInvestmentsTool = defineTool({
  name: "get_investments",
  title: "Investments",
  description:
    "holdings: quantity, price, value, cost basis and gain, largest first; allocation: value and share by security type and by account; transactions: buys (negative), sells, dividends, fees, with sums per type over all matches. Totals per currency. For more rows, raise limit or pass cursor = page.next_cursor.",
  input: z.strictObject({
    view: z.enum(VIEWS).default("holdings").describe("What to show."),
    account_ids: accountIdsArg,
    ...dateArgsShape("last_90_days"),
    limit: z.number().int().min(1).max(250).default(50).describe("Rows per page."),
    cursor: z.string().min(1).max(500).optional().describe("page.next_cursor of the last call."),
  }),
  data: z.object({
    view: z.enum(VIEWS),
    totals: perCurrency({
      value: z.number(),
      cost_basis: z.number().describe("Sum of reported cost bases."),
      gain: z.number().describe("value − cost basis over positions that report a cost basis."),
      gain_pct: z.number().nullable(),
      holdings_count: z.number().int(),
    }),
    holdings: z
      .array(
        z.object({
          account: z.string(),
          account_id: z.string(),
          currency: currencySchema,
          security: z.string(),
          ticker: z.string().nullable(),
          type: z.string(),
          quantity: z.number().nullable(),
          price: z.number().nullable(),
          value: z.number(),
          cost_basis: z.number().nullable(),
          gain: z.number().nullable(),
          gain_pct: z.number().nullable(),
        }),
      )
      .optional(),
    allocation: z.object({ by_type: z.array(shareSchema), by_account: z.array(shareSchema) }).optional(),
    range: rangeSchema.optional(),
    transactions: z
      .array(
        z.object({
          id: z.string(),
          date: z.string(),
          account: z.string(),
          currency: currencySchema,
          name: z.string(),
          type: z.string(),
          security: z.string().nullable(),
          ticker: z.string().nullable(),
          quantity: z.number().nullable(),
          price: z.number().nullable(),
          amount: z.number().describe("Cash effect: buys negative, sales and dividends positive."),
          fees: z.number().nullable(),
        }),
      )
      .optional(),
    transactions_by_type: z
      .array(
        z.object({ currency: currencySchema, type: z.string(), amount: z.number(), count: z.number().int() }),
      )
      .optional()
      .describe("Sum and count per type over ALL matching transactions."),
  }),
  async run(args, ctx) {
    const { range } = resolveDateArgs(args, ctx, "last_90_days");
    const accountIds = scopedAccountIds(ctx.scope, args.account_ids);
    const fingerprint = fingerprintOf([
      ctx.userId,
      args.view,
      [...(accountIds ?? [])].sort(),
      args.view === "transactions" ? range : null,
    ]);
    // Transactions page by keyset ([date, id] of the last row: rows synced between pages never
    // repeat); holdings are one snapshot the sync replaces whole, paged by position.
    const key = args.cursor
      ? decodeCursor(args.cursor, fingerprint, args.view === "transactions" ? ["date", "string"] : ["number"])
      : null;
    if (args.view === "allocation") {
      const v = await getAllocationView(ctx.db, ctx.userId, accountIds);
      const shares = (rows: AllocationRow[]) =>
        rows.map((r) => ({
          currency: r.currency,
          key: r.key,
          value: toAmount(r.cents, r.currency),
          share: r.share,
        }));
      return {
        data: {
          ...base(args.view, v.totals),
          allocation: { by_type: shares(v.byType), by_account: shares(v.byAccount) },
        },
        warnings: mixedCurrencyWarnings(v.totals.map((t) => t.currency)),
      };
    }
    if (args.view === "transactions") {
      const v = await getInvestmentTransactionsView(ctx.db, ctx.userId, {
        range,
        accountIds,
        limit: args.limit,
        after: key,
      });
      return {
        data: {
          ...base(args.view, v.totals),
          range,
          transactions: v.rows.map(({ accountName, amountCents, feesCents, ...r }) => ({
            ...r,
            account: accountName,
            amount: toAmount(amountCents, r.currency),
            fees: amountOrNull(feesCents, r.currency),
          })),
          transactions_by_type: v.byType.map(({ cents, ...t }) => ({
            ...t,
            amount: toAmount(cents, t.currency),
          })),
        },
        warnings: mixedCurrencyWarnings([...v.totals, ...v.byType].map((t) => t.currency)),
        page: pageOf(v.nextKey, fingerprint, v.total),
      };
    }
    const offset = key ? Number(key[0]) : 0;
    const v = await getHoldingsView(ctx.db, ctx.userId, {
      accountIds,
      offset,
      limit: args.limit,
    });
    return {
      data: {
        ...base(args.view, v.totals),
        holdings: v.holdings.map(
          ({ accountName, accountId, valueCents, costBasisCents, gainCents, gainPct, ...h }) => ({
            ...h,
            account: accountName,
            account_id: accountId,
            value: toAmount(valueCents, h.currency),
            cost_basis: amountOrNull(costBasisCents, h.currency),
            gain: amountOrNull(gainCents, h.currency),
            gain_pct: gainPct,
          }),
        ),
      },
      warnings: mixedCurrencyWarnings(v.totals.map((t) => t.currency)),
      page: pageOf(v.nextOffset === null ? null : [v.nextOffset], fingerprint, v.total),
    };
  },
});

/** What every view carries: the view and the totals over every holding, per currency. */
function base(view: (typeof VIEWS)[number], totals: HoldingTotals[]) {
  return {
    view,
    totals: totals.map((t) => ({
      currency: t.currency,
      value: toAmount(t.valueCents, t.currency),
      cost_basis: toAmount(t.costBasisCents, t.currency),
      gain: toAmount(t.gainCents, t.currency),
      gain_pct: t.gainPct,
      holdings_count: t.count,
    })),
  };
}

/** Tool 8: investment holdings, allocation, and investment transactions. */
import { z } from "zod";
import { toAmount } from "@/lib/finance/currency";
import {
  type AllocationRow,
  getAllocation,
  getHoldingTotals,
  type HoldingTotals,
  listHoldings,
  listInvestmentTransactions,
} from "@/lib/finance/investments";
import { ratio } from "@/lib/finance/money";
import { dateArgsShape, resolveDateArgs } from "../args";
import { decodeCursor, encodeCursor, fingerprintOf } from "../cursor";
import { defineTool } from "../define-tool";
import { mixedCurrencyWarnings } from "../envelope";
import { accountIdsArg, currencySchema, perCurrency, rangeSchema } from "./shared";

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
    "The user's investment and retirement accounts. view holdings (default): positions with quantity, price, value, cost basis and gain, largest first; view allocation: value and share by security type (equity, etf, mutual fund, fixed income, cash …) and by account; view transactions: buys (negative cash), sells, dividends, fees, contributions with a sum per type over all matches (dates default last_90_days). Totals (value, cost basis, gain) always cover every holding, per currency. Use it for 'how are my investments doing', 'what is my allocation', 'dividends this year'. limit 50 (max 250) with cursor for holdings and transactions.",
  input: z.strictObject({
    view: z.enum(VIEWS).default("holdings").describe("holdings (default), allocation, or transactions."),
    account_ids: accountIdsArg,
    ...dateArgsShape("last_90_days"),
    limit: z.number().int().min(1).max(250).default(50).describe("Rows per page, 1–250. Default 50."),
    cursor: z
      .string()
      .min(1)
      .max(500)
      .optional()
      .describe("page.next_cursor from the previous call with the same arguments."),
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
    const baseOf = (totals: HoldingTotals[]) => ({
      view: args.view,
      totals: totals.map((t) => ({
        currency: t.currency,
        value: toAmount(t.valueCents, t.currency),
        cost_basis: toAmount(t.costBasisCents, t.currency),
        gain: toAmount(t.gainCents, t.currency),
        gain_pct: ratio(t.gainCents, t.costBasisCents),
        holdings_count: t.count,
      })),
    });
    const warningsOf = (totals: HoldingTotals[], more: Array<{ currency: string }> = []) =>
      mixedCurrencyWarnings([...totals, ...more].map((t) => t.currency));
    // The totals and the view's own rows are read together (one round trip).
    const totalsQuery = () => getHoldingTotals(ctx.db, ctx.userId, args.account_ids);
    const { range } = resolveDateArgs(args, ctx, "last_90_days");
    const fingerprint = fingerprintOf([
      ctx.userId,
      args.view,
      [...(args.account_ids ?? [])].sort(),
      args.view === "transactions" ? range : null,
    ]);
    // Transactions page by keyset ([date, id] of the last row: rows synced between pages never
    // repeat); holdings are one snapshot the sync replaces whole, paged by position.
    const after =
      args.cursor && args.view === "transactions"
        ? decodeCursor(args.cursor, fingerprint, ["date", "string"])
        : null;
    const offset =
      args.cursor && args.view !== "transactions"
        ? Number(decodeCursor(args.cursor, fingerprint, ["number"])[0])
        : 0;

    if (args.view === "allocation") {
      const [totals, allocation] = await Promise.all([
        totalsQuery(),
        getAllocation(ctx.db, ctx.userId, args.account_ids),
      ]);
      const totalValue = new Map(totals.map((t) => [t.currency, t.valueCents]));
      const shares = (rows: AllocationRow[]) =>
        rows.map((r) => ({
          currency: r.currency,
          key: r.key,
          value: toAmount(r.cents, r.currency),
          share: ratio(r.cents, totalValue.get(r.currency) ?? 0),
        }));
      return {
        data: {
          ...baseOf(totals),
          allocation: { by_type: shares(allocation.byType), by_account: shares(allocation.byAccount) },
        },
        warnings: warningsOf(totals),
      };
    }

    if (args.view === "transactions" && range) {
      const [totals, result] = await Promise.all([
        totalsQuery(),
        listInvestmentTransactions(ctx.db, ctx.userId, {
          range,
          accountIds: args.account_ids,
          limit: args.limit,
          after,
        }),
      ]);
      return {
        data: {
          ...baseOf(totals),
          range,
          transactions: result.rows.map((r) => ({
            id: r.id,
            date: r.date,
            account: r.accountName,
            currency: r.currency,
            name: r.name,
            type: r.type,
            security: r.security,
            ticker: r.ticker,
            quantity: r.quantity,
            price: r.price,
            amount: toAmount(r.amountCents, r.currency),
            fees: r.feesCents === null ? null : toAmount(r.feesCents, r.currency),
          })),
          transactions_by_type: result.byType.map((t) => ({
            currency: t.currency,
            type: t.type,
            amount: toAmount(t.cents, t.currency),
            count: t.count,
          })),
        },
        warnings: warningsOf(totals, result.byType),
        page: {
          ...(result.nextKey ? { next_cursor: encodeCursor(result.nextKey, fingerprint) } : {}),
          has_more: result.hasMore,
          total_count: result.total,
        },
      };
    }

    const [totals, all] = await Promise.all([
      totalsQuery(),
      listHoldings(ctx.db, ctx.userId, args.account_ids),
    ]);
    const page = all.slice(offset, offset + args.limit);
    const hasMore = offset + args.limit < all.length;
    return {
      data: {
        ...baseOf(totals),
        holdings: page.map((h) => {
          const gain = h.costBasisCents === null ? null : h.valueCents - h.costBasisCents;
          return {
            account: h.accountName,
            account_id: h.accountId,
            currency: h.currency,
            security: h.security,
            ticker: h.ticker,
            type: h.type,
            quantity: h.quantity,
            price: h.price,
            value: toAmount(h.valueCents, h.currency),
            cost_basis: h.costBasisCents === null ? null : toAmount(h.costBasisCents, h.currency),
            gain: gain === null ? null : toAmount(gain, h.currency),
            gain_pct: gain === null || h.costBasisCents === null ? null : ratio(gain, h.costBasisCents),
          };
        }),
      },
      warnings: warningsOf(totals),
      page: {
        ...(hasMore ? { next_cursor: encodeCursor([offset + args.limit], fingerprint) } : {}),
        has_more: hasMore,
        total_count: all.length,
      },
    };
  },
});

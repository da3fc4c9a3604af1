/**
 * Investments: holdings (positions), allocation, and investment transactions.
 *
 * Rules: value and cost basis are the provider's, in cents; gain = value − cost basis (null when
 * the cost basis is unknown); totals are SQL sums over all holdings (gain only over positions with
 * a cost basis). Allocation shares are value / total value by security type and by account.
 * Investment transactions keep the cash-effect sign: buys negative, sales and dividends positive.
 * Every sum is grouped by currency (holdings' and transactions' own), shares are within it.
 *
 * get_investments has three views; each is one function here that reads the totals over every
 * holding together with the view's own rows (one round trip): `getHoldingsView`,
 * `getAllocationView`, `getInvestmentTransactionsView`.
 */
import { and, desc, eq, gte, inArray, lte, type SQL, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { bankAccounts, holdings, investmentTransactions, securities } from "@/db/schema";
import { ratio, toCents, toCentsOrNull, toNumberOrNull } from "./money";
import type { DateRange } from "./periods";
import type { SortKey } from "./transactions";

export interface HoldingRow {
  accountId: string;
  accountName: string;
  security: string;
  ticker: string | null;
  type: string;
  quantity: number | null;
  price: number | null;
  valueCents: number;
  costBasisCents: number | null;
  /** value − cost basis; null when the cost basis is unknown. */
  gainCents: number | null;
  /** gain / cost basis, rounded to 4 decimals. */
  gainPct: number | null;
  currency: string;
}

function holdingConditions(userId: string, accountIds?: string[]): SQL[] {
  const c: SQL[] = [eq(holdings.userId, userId)];
  if (accountIds && accountIds.length > 0) c.push(inArray(holdings.accountId, accountIds));
  return c;
}

/** Every position, by currency, largest value first within it. */
async function listHoldings(db: Database, userId: string, accountIds?: string[]): Promise<HoldingRow[]> {
  const rows = await db
    .select({
      accountId: holdings.accountId,
      accountName: bankAccounts.name,
      security: securities.name,
      ticker: securities.tickerSymbol,
      type: securities.type,
      quantity: holdings.quantity,
      price: holdings.price,
      value: holdings.valueMinor,
      costBasis: holdings.costBasisMinor,
      currency: holdings.currency,
    })
    .from(holdings)
    .innerJoin(bankAccounts, eq(bankAccounts.id, holdings.accountId))
    .innerJoin(securities, eq(securities.id, holdings.securityId))
    .where(and(...holdingConditions(userId, accountIds)))
    .orderBy(holdings.currency, desc(holdings.valueMinor), holdings.id);
  return rows.map((r) => {
    const valueCents = toCents(r.value);
    const costBasisCents = toCentsOrNull(r.costBasis);
    const gainCents = costBasisCents === null ? null : valueCents - costBasisCents;
    return {
      accountId: r.accountId,
      accountName: r.accountName,
      security: r.security,
      ticker: r.ticker,
      type: r.type,
      quantity: toNumberOrNull(r.quantity),
      price: toNumberOrNull(r.price),
      valueCents,
      costBasisCents,
      gainCents,
      gainPct: gainCents === null || costBasisCents === null ? null : ratio(gainCents, costBasisCents),
      currency: r.currency,
    };
  });
}

export interface HoldingTotals {
  currency: string;
  valueCents: number;
  costBasisCents: number;
  gainCents: number;
  /** gain / cost basis, rounded to 4 decimals; null without a cost basis. */
  gainPct: number | null;
  count: number;
}

/** SQL totals over all holdings per currency: value, cost basis and gain (over positions with a basis). */
async function getHoldingTotals(
  db: Database,
  userId: string,
  accountIds?: string[],
): Promise<HoldingTotals[]> {
  const rows = await db
    .select({
      currency: holdings.currency,
      value: sql<string>`coalesce(sum(${holdings.valueMinor}), 0)`,
      basis: sql<string>`coalesce(sum(${holdings.costBasisMinor}), 0)`,
      gain: sql<string>`coalesce(sum(${holdings.valueMinor} - ${holdings.costBasisMinor}) filter (where ${holdings.costBasisMinor} is not null), 0)`,
      count: sql<string>`count(*)`,
    })
    .from(holdings)
    .where(and(...holdingConditions(userId, accountIds)))
    .groupBy(holdings.currency)
    .orderBy(holdings.currency);
  return rows.map((r) => {
    const costBasisCents = toCents(r.basis);
    const gainCents = toCents(r.gain);
    return {
      currency: r.currency,
      valueCents: toCents(r.value),
      costBasisCents,
      gainCents,
      gainPct: ratio(gainCents, costBasisCents),
      count: toCents(r.count),
    };
  });
}

export interface AllocationRow {
  currency: string;
  key: string;
  cents: number;
  /** cents / the currency's total holding value. */
  share: number | null;
}

/** Value by currency and security type, and by currency and account, in SQL (largest first within a currency). */
async function getAllocation(
  db: Database,
  userId: string,
  accountIds?: string[],
): Promise<{ byType: Array<Omit<AllocationRow, "share">>; byAccount: Array<Omit<AllocationRow, "share">> }> {
  const where = and(...holdingConditions(userId, accountIds));
  const [byType, byAccount] = await Promise.all([
    db
      .select({
        currency: holdings.currency,
        key: securities.type,
        value: sql<string>`sum(${holdings.valueMinor})`,
      })
      .from(holdings)
      .innerJoin(securities, eq(securities.id, holdings.securityId))
      .where(where)
      .groupBy(holdings.currency, securities.type)
      .orderBy(holdings.currency, sql`3 desc`),
    db
      .select({
        currency: holdings.currency,
        key: bankAccounts.name,
        value: sql<string>`sum(${holdings.valueMinor})`,
      })
      .from(holdings)
      .innerJoin(bankAccounts, eq(bankAccounts.id, holdings.accountId))
      .where(where)
      .groupBy(holdings.currency, bankAccounts.id, bankAccounts.name)
      .orderBy(holdings.currency, sql`3 desc`),
  ]);
  const out = (r: { currency: string; key: string; value: string }) => ({
    currency: r.currency,
    key: r.key,
    cents: toCents(r.value),
  });
  return { byType: byType.map(out), byAccount: byAccount.map(out) };
}

export interface InvestmentTransactionRow {
  id: string;
  date: string;
  accountName: string;
  name: string;
  type: string;
  security: string | null;
  ticker: string | null;
  quantity: number | null;
  price: number | null;
  amountCents: number;
  feesCents: number | null;
  currency: string;
}

interface InvestmentTransactionsQuery {
  range: DateRange;
  accountIds?: string[] | undefined;
  limit: number;
  /** `[date, id]` of the previous page's last row: this page starts strictly after it. */
  after: SortKey | null;
}

interface InvestmentTransactionsPage {
  rows: InvestmentTransactionRow[];
  /** `[date, id]` of this page's last row, when more rows follow. */
  nextKey: [string, string] | null;
  total: number;
  /** Sum and count per currency and type, over every match. */
  byType: Array<{ currency: string; type: string; cents: number; count: number }>;
}

/** A page of investment transactions (newest first) and SQL sums by type over all matches. */
async function listInvestmentTransactions(
  db: Database,
  userId: string,
  options: InvestmentTransactionsQuery,
): Promise<InvestmentTransactionsPage> {
  const conditions: SQL[] = [
    eq(investmentTransactions.userId, userId),
    gte(investmentTransactions.date, options.range.start),
    lte(investmentTransactions.date, options.range.end),
  ];
  if (options.accountIds && options.accountIds.length > 0) {
    conditions.push(inArray(investmentTransactions.accountId, options.accountIds));
  }
  const where = and(...conditions);
  const [afterDate, afterId] = options.after ?? [];
  const pageWhere = options.after
    ? and(
        where,
        sql`(${investmentTransactions.date}, ${investmentTransactions.id}) < (${afterDate}::date, ${afterId})`,
      )
    : where;
  const [rows, byType] = await Promise.all([
    db
      .select({
        id: investmentTransactions.id,
        date: investmentTransactions.date,
        accountName: bankAccounts.name,
        name: investmentTransactions.name,
        type: investmentTransactions.type,
        security: securities.name,
        ticker: securities.tickerSymbol,
        quantity: investmentTransactions.quantity,
        price: investmentTransactions.price,
        amount: investmentTransactions.amountMinor,
        fees: investmentTransactions.feesMinor,
        currency: investmentTransactions.currency,
      })
      .from(investmentTransactions)
      .innerJoin(bankAccounts, eq(bankAccounts.id, investmentTransactions.accountId))
      .leftJoin(securities, eq(securities.id, investmentTransactions.securityId))
      .where(pageWhere)
      .orderBy(desc(investmentTransactions.date), desc(investmentTransactions.id))
      .limit(options.limit + 1),
    db
      .select({
        currency: investmentTransactions.currency,
        type: investmentTransactions.type,
        cents: sql<string>`sum(${investmentTransactions.amountMinor})`,
        count: sql<string>`count(*)`,
      })
      .from(investmentTransactions)
      .where(where)
      .groupBy(investmentTransactions.currency, investmentTransactions.type)
      .orderBy(investmentTransactions.currency, investmentTransactions.type),
  ]);
  const summary = byType.map((r) => ({
    currency: r.currency,
    type: r.type,
    cents: toCents(r.cents),
    count: toCents(r.count),
  }));
  const last = rows[options.limit - 1];
  return {
    rows: rows.slice(0, options.limit).map((r) => ({
      id: r.id,
      date: r.date,
      accountName: r.accountName,
      name: r.name,
      type: r.type,
      security: r.security,
      ticker: r.ticker,
      quantity: toNumberOrNull(r.quantity),
      price: toNumberOrNull(r.price),
      amountCents: toCents(r.amount),
      feesCents: toCentsOrNull(r.fees),
      currency: r.currency,
    })),
    nextKey: rows.length > options.limit && last ? [last.date, last.id] : null,
    total: summary.reduce((n, r) => n + r.count, 0),
    byType: summary,
  };
}

/** The holdings view: totals over every holding, and `limit` positions from `offset`. */
export async function getHoldingsView(
  db: Database,
  userId: string,
  options: { accountIds?: string[] | undefined; offset: number; limit: number },
): Promise<{ totals: HoldingTotals[]; holdings: HoldingRow[]; total: number; nextOffset: number | null }> {
  const [totals, all] = await Promise.all([
    getHoldingTotals(db, userId, options.accountIds),
    listHoldings(db, userId, options.accountIds),
  ]);
  const end = options.offset + options.limit;
  return {
    totals,
    holdings: all.slice(options.offset, end),
    total: all.length,
    nextOffset: end < all.length ? end : null,
  };
}

/** The allocation view: totals, and value and share by security type and by account. */
export async function getAllocationView(
  db: Database,
  userId: string,
  accountIds?: string[],
): Promise<{ totals: HoldingTotals[]; byType: AllocationRow[]; byAccount: AllocationRow[] }> {
  const [totals, allocation] = await Promise.all([
    getHoldingTotals(db, userId, accountIds),
    getAllocation(db, userId, accountIds),
  ]);
  const totalValue = new Map(totals.map((t) => [t.currency, t.valueCents]));
  const withShares = (rows: Array<Omit<AllocationRow, "share">>) =>
    rows.map((r) => ({ ...r, share: ratio(r.cents, totalValue.get(r.currency) ?? 0) }));
  return { totals, byType: withShares(allocation.byType), byAccount: withShares(allocation.byAccount) };
}

/** The transactions view: totals over every holding, and a page of transactions with sums by type. */
export async function getInvestmentTransactionsView(
  db: Database,
  userId: string,
  options: InvestmentTransactionsQuery,
): Promise<InvestmentTransactionsPage & { totals: HoldingTotals[] }> {
  const [totals, page] = await Promise.all([
    getHoldingTotals(db, userId, options.accountIds),
    listInvestmentTransactions(db, userId, options),
  ]);
  return { totals, ...page };
}

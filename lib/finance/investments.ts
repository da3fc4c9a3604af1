/**
 * Investments: holdings (positions), allocation, and investment transactions.
 *
 * Rules: value and cost basis are the provider's, in cents; gain = value − cost basis (null when
 * the cost basis is unknown); totals are SQL sums over all holdings (gain only over positions with
 * a cost basis). Allocation shares are value / total value by security type and by account.
 * Investment transactions keep the cash-effect sign: buys negative, sales and dividends positive.
 * Every sum is grouped by currency (holdings' and transactions' own), shares are within it.
 */
import { and, desc, eq, gte, inArray, lte, type SQL, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { bankAccounts, holdings, investmentTransactions, securities } from "@/db/schema";
import { toCents, toCentsOrNull, toNumberOrNull } from "./money";
import type { DateRange } from "./periods";

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
  currency: string;
}

function holdingConditions(userId: string, accountIds?: string[]): SQL[] {
  const c: SQL[] = [eq(holdings.userId, userId)];
  if (accountIds && accountIds.length > 0) c.push(inArray(holdings.accountId, accountIds));
  return c;
}

/** Every position, by currency, largest value first within it. */
export async function listHoldings(
  db: Database,
  userId: string,
  accountIds?: string[],
): Promise<HoldingRow[]> {
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
  return rows.map((r) => ({
    accountId: r.accountId,
    accountName: r.accountName,
    security: r.security,
    ticker: r.ticker,
    type: r.type,
    quantity: toNumberOrNull(r.quantity),
    price: toNumberOrNull(r.price),
    valueCents: toCents(r.value),
    costBasisCents: toCentsOrNull(r.costBasis),
    currency: r.currency,
  }));
}

export interface HoldingTotals {
  currency: string;
  valueCents: number;
  costBasisCents: number;
  gainCents: number;
  count: number;
}

/** SQL totals over all holdings per currency: value, cost basis and gain (over positions with a basis). */
export async function getHoldingTotals(
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
  return rows.map((r) => ({
    currency: r.currency,
    valueCents: toCents(r.value),
    costBasisCents: toCents(r.basis),
    gainCents: toCents(r.gain),
    count: toCents(r.count),
  }));
}

export interface AllocationRow {
  currency: string;
  key: string;
  cents: number;
}

/** Value by currency and security type, and by currency and account, in SQL (largest first within a currency). */
export async function getAllocation(
  db: Database,
  userId: string,
  accountIds?: string[],
): Promise<{ byType: AllocationRow[]; byAccount: AllocationRow[] }> {
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

/** A page of investment transactions (newest first) and SQL sums by type over all matches. */
export async function listInvestmentTransactions(
  db: Database,
  userId: string,
  options: {
    range: DateRange;
    accountIds?: string[] | undefined;
    limit: number;
    /** `[date, id]` of the previous page's last row: this page starts strictly after it. */
    after: readonly (string | number)[] | null;
  },
): Promise<{
  rows: InvestmentTransactionRow[];
  hasMore: boolean;
  /** `[date, id]` of this page's last row, when more rows follow. */
  nextKey: [string, string] | null;
  total: number;
  /** Sum and count per currency and type, over every match. */
  byType: Array<{ currency: string; type: string; cents: number; count: number }>;
}> {
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
    hasMore: rows.length > options.limit,
    nextKey: rows.length > options.limit && last ? [last.date, last.id] : null,
    total: summary.reduce((n, r) => n + r.count, 0),
    byType: summary,
  };
}

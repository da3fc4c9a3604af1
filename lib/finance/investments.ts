/**
 * Investments: holdings (positions), allocation, and investment transactions.
 *
 * Rules: value and cost basis are the provider's, in cents; gain = value − cost basis (null when
 * the cost basis is unknown); totals are SQL sums over all holdings (gain only over positions with
 * a cost basis). Allocation shares are value / total value by security type and by account.
 * Investment transactions keep the cash-effect sign: buys negative, sales and dividends positive.
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

/** Every position, largest value first. */
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
    .orderBy(desc(holdings.valueMinor), holdings.id);
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

/** SQL totals over all holdings: value, cost basis and gain (over positions with a basis). */
export async function getHoldingTotals(
  db: Database,
  userId: string,
  accountIds?: string[],
): Promise<{ valueCents: number; costBasisCents: number; gainCents: number; count: number }> {
  const [row] = await db
    .select({
      value: sql<string>`coalesce(sum(${holdings.valueMinor}), 0)`,
      basis: sql<string>`coalesce(sum(${holdings.costBasisMinor}), 0)`,
      gain: sql<string>`coalesce(sum(${holdings.valueMinor} - ${holdings.costBasisMinor}) filter (where ${holdings.costBasisMinor} is not null), 0)`,
      count: sql<string>`count(*)`,
    })
    .from(holdings)
    .where(and(...holdingConditions(userId, accountIds)));
  return {
    valueCents: toCents(row?.value),
    costBasisCents: toCents(row?.basis),
    gainCents: toCents(row?.gain),
    count: toCents(row?.count),
  };
}

/** Value by security type and by account, in SQL. */
export async function getAllocation(
  db: Database,
  userId: string,
  accountIds?: string[],
): Promise<{
  byType: Array<{ key: string; cents: number }>;
  byAccount: Array<{ key: string; cents: number }>;
}> {
  const where = and(...holdingConditions(userId, accountIds));
  const [byType, byAccount] = await Promise.all([
    db
      .select({ key: securities.type, value: sql<string>`sum(${holdings.valueMinor})` })
      .from(holdings)
      .innerJoin(securities, eq(securities.id, holdings.securityId))
      .where(where)
      .groupBy(securities.type)
      .orderBy(sql`2 desc`),
    db
      .select({ key: bankAccounts.name, value: sql<string>`sum(${holdings.valueMinor})` })
      .from(holdings)
      .innerJoin(bankAccounts, eq(bankAccounts.id, holdings.accountId))
      .where(where)
      .groupBy(bankAccounts.id, bankAccounts.name)
      .orderBy(sql`2 desc`),
  ]);
  return {
    byType: byType.map((r) => ({ key: r.key, cents: toCents(r.value) })),
    byAccount: byAccount.map((r) => ({ key: r.key, cents: toCents(r.value) })),
  };
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
  byType: Array<{ type: string; cents: number; count: number }>;
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
      })
      .from(investmentTransactions)
      .innerJoin(bankAccounts, eq(bankAccounts.id, investmentTransactions.accountId))
      .leftJoin(securities, eq(securities.id, investmentTransactions.securityId))
      .where(pageWhere)
      .orderBy(desc(investmentTransactions.date), desc(investmentTransactions.id))
      .limit(options.limit + 1),
    db
      .select({
        type: investmentTransactions.type,
        cents: sql<string>`sum(${investmentTransactions.amountMinor})`,
        count: sql<string>`count(*)`,
      })
      .from(investmentTransactions)
      .where(where)
      .groupBy(investmentTransactions.type)
      .orderBy(investmentTransactions.type),
  ]);
  const summary = byType.map((r) => ({ type: r.type, cents: toCents(r.cents), count: toCents(r.count) }));
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
    })),
    hasMore: rows.length > options.limit,
    nextKey: rows.length > options.limit && last ? [last.date, last.id] : null,
    total: summary.reduce((n, r) => n + r.count, 0),
    byType: summary,
  };
}

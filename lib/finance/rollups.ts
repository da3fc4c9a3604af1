/**
 * Summaries over many months without reading every row: whole calendar months come from the
 * monthly rollup `transaction_months` (kept by triggers in the same transaction as the rows, see
 * db/schema.ts), and only the rows of the partial months at the edges of a range are read. A
 * ten-year history costs about what a month costs.
 *
 * The rollup has the dimensions the search filters use (account, category, currency, pending,
 * transfer) and the measures (sums and counts of money in and out); a filter on text or on the
 * amount cannot be answered from it, and those summaries read the rows.
 */
import { and, eq, gt, gte, inArray, lt, lte, or, type SQL, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { transactionMonths, transactions } from "@/db/schema";
import { toCents } from "./money";
import { addMonths, type DateRange, endOfMonth, startOfMonth } from "./periods";
import { executeRows, text } from "./sql";
import type { TransactionFilter } from "./transactions";

/** The whole calendar months inside `range` (first days of the first and last), or null when none. */
export function wholeMonths(range: DateRange): { first: string; last: string } | null {
  const first =
    range.start === startOfMonth(range.start) ? range.start : addMonths(startOfMonth(range.start), 1);
  const last =
    range.end === endOfMonth(range.end) ? startOfMonth(range.end) : addMonths(startOfMonth(range.end), -1);
  return first <= last ? { first, last } : null;
}

/** Whether a filter can be summed from the rollup (no text, no amount bounds). */
function rollable(filter: TransactionFilter): boolean {
  return !filter.query?.trim() && filter.minAbs === undefined && filter.maxAbs === undefined;
}

export interface CurrencySummary {
  currency: string;
  count: number;
  /** Minor units. */
  inflow: number;
  /** Minor units (a negative number). */
  outflow: number;
}

/**
 * Count, money in (sum of positive amounts) and money out (sum of negative ones) per currency
 * over every row `filter` selects, in code order: the rollup for whole months, the rows for the
 * rest.
 */
export async function summarizeTransactions(
  db: Database,
  userId: string,
  filter: TransactionFilter,
  /** The WHERE of the rows `filter` selects (transactions.ts `transactionConditions`). */
  rows: SQL,
): Promise<CurrencySummary[]> {
  const rawPart = (where: SQL) => sql`
    select ${transactions.currency} as currency, count(*) as n,
      coalesce(sum(${transactions.amountMinor}) filter (where ${transactions.amountMinor} > 0), 0) as i,
      coalesce(sum(${transactions.amountMinor}) filter (where ${transactions.amountMinor} < 0), 0) as o
    from ${transactions} where ${where} group by ${transactions.currency}`;
  const months = filter.range ? wholeMonths(filter.range) : { first: null, last: null };
  let union: SQL;
  if (!rollable(filter) || months === null) union = rawPart(rows);
  else {
    const m = transactionMonths;
    const conditions: SQL[] = [eq(m.userId, userId)];
    if (months.first !== null && months.last !== null)
      conditions.push(gte(m.month, months.first), lte(m.month, months.last));
    if (filter.accountIds && filter.accountIds.length > 0)
      conditions.push(inArray(m.accountId, filter.accountIds));
    if (filter.categories && filter.categories.length > 0)
      conditions.push(inArray(m.category, filter.categories));
    if (!filter.includePending) conditions.push(eq(m.pending, false));
    if (filter.excludeTransfers) conditions.push(eq(m.isTransfer, false));
    const [n, i, o] =
      filter.direction === "inflow"
        ? [m.inflowCount, m.inflowMinor, sql`0`]
        : filter.direction === "outflow"
          ? [m.outflowCount, sql`0`, m.outflowMinor]
          : [m.count, m.inflowMinor, m.outflowMinor];
    const rolled = sql`select ${m.currency} as currency, ${n} as n, ${i} as i, ${o} as o
      from ${m} where ${and(...conditions)}`;
    // The rows outside the whole months: the partial months at the edges of the range.
    union =
      months.first === null || months.last === null
        ? rolled
        : sql`${rolled} union all ${rawPart(
            and(
              rows,
              or(lt(transactions.date, months.first), gt(transactions.date, endOfMonth(months.last))),
            ) as SQL,
          )}`;
  }
  const result = await executeRows(
    db,
    sql`select currency, sum(n)::text as count, sum(i)::text as inflow, sum(o)::text as outflow
      from (${union}) as parts group by currency having sum(n) > 0 order by currency`,
  );
  return result.map((r) => ({
    currency: text(r, "currency"),
    count: toCents(r.count),
    inflow: toCents(r.inflow),
    outflow: toCents(r.outflow),
  }));
}

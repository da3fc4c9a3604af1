/**
 * Transaction search: filters, a compact page, and a summary over ALL matches.
 *
 * The summary (count, inflow, outflow, net) is one SQL aggregate per currency over every row the
 * filters select, whatever the page size; `total_count` is the count of all of them. Amount
 * bounds are decimals, read in each row's own currency (100 = $100.00 or ¥100). Inflow is the sum of positive
 * amounts, outflow the sum of negative ones (a negative number), net their sum. The summary is a
 * plain sum of what matched: it follows the caller's filters (`exclude_transfers`,
 * `include_pending`) rather than the income/spending rules of lib/finance/rules.ts. A purchase is
 * one row whether pending or posted (the sync replaces the pending row; rules.ts, rule 3).
 *
 * Paging is by keyset: a page ends at its last row's sort key (`nextKey`) and the next page
 * starts strictly after it (`after`), so rows added or removed between two pages never make an
 * unchanged row repeat or go missing (an offset would shift). Turning the key into an opaque
 * cursor tied to the query is the MCP layer's business (lib/mcp/cursor.ts).
 */
import { and, asc, desc, eq, gte, lte, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { type Database, PLANNED_EACH_RUN } from "@/db";
import { asParam, type Bind, runFixed, shapedStatement } from "@/db/fixed-statement";
import { bankAccounts, transactions } from "@/db/schema";
import { toCents } from "./money";
import { addMonths, type DateRange, startOfMonth } from "./periods";
import { type CurrencySummary, summarizeTransactions } from "./rollups";
import { text, writtenLimit } from "./sql";

export const TRANSACTION_SORTS = ["date_desc", "date_asc", "amount_desc", "amount_asc"] as const;
export type TransactionSort = (typeof TRANSACTION_SORTS)[number];

export interface TransactionFilter {
  range: DateRange | null;
  query?: string | undefined;
  accountIds?: string[] | undefined;
  categories?: string[] | undefined;
  direction: "all" | "inflow" | "outflow";
  /** Bounds on the absolute amount, in 1/10^MAX_EXPONENT of a unit of any currency (see absScaled). */
  minAbs?: number | undefined;
  maxAbs?: number | undefined;
  includePending: boolean;
  excludeTransfers: boolean;
}

/** `%`, `_` and `\` in user text match themselves in ILIKE. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * Whether a folded search text (`search_text` of `transactions`) holds `query`: folded like the
 * column (case and accents). The trigram index finds it, which only a plan made for the pattern
 * uses.
 */
export function textMatches(column: AnyPgColumn, query: string, bind: Bind = asParam): SQL {
  return sql`${column} like ledgerlink_fold(${bind(likePattern(query))}) escape '\\' ${sql.raw(PLANNED_EACH_RUN)}`;
}

/**
 * `textMatches` for `transaction_text_months`, in one plan made once for every pattern, the
 * pattern folded once per run (a subquery). Folded in the plan made once, it was folded again for
 * every row (the heavy user's summary of a text search on PGlite: 4.9 ms instead of 1.2 planned
 * for the pattern), so it was planned on every run. No ESCAPE clause: LIKE's own escape is the
 * backslash `escapeLike` writes, and one written with a pattern not known when planning escapes
 * the pattern again on every row.
 *
 * A query with three letters or digits in a row is matched through the trigram index on the
 * texts (the heavy user's `coffee`: 64 rows read instead of all 2,293 of the user's, 0.19 ms
 * for the statement in its kept plan); a shorter one gives the index no trigram to look up, and the index would read
 * all of itself, every user's texts, so it reads the user's months instead (the column written
 * as an expression the index does not serve).
 */
export function textMonthsMatch(column: AnyPgColumn, query: string, bind: Bind = asParam): SQL {
  return hasTrigram(query)
    ? sql`${column} like (select ledgerlink_fold(${bind(likePattern(query))}))`
    : textFiltered(column, query, bind);
}

/** Whether `query` has a trigram the index can look up (three letters or digits in a row). */
function hasTrigram(query: string): boolean {
  return /[\p{L}\p{N}]{3}/u.test(query);
}

/**
 * `textMatches` in one plan made once for every pattern, the pattern folded once per run, and
 * tested on each row the plan reads: written as an expression no index serves, so that the plan
 * reads the rows by its other conditions (a recent page by date, the user's text months). The
 * match is never null (neither side is); in `coalesce` it is an expression the planner expects
 * half the rows to pass, where it expects a LIKE of a pattern it does not know to pass one in 200:
 * expecting few matches, the plan of a recent page read every recent row of every user by date
 * and sorted them, instead of the user's newest rows until the page is full.
 */
export function textFiltered(column: AnyPgColumn, query: string, bind: Bind = asParam): SQL {
  return sql`coalesce((${column} || '') like (select ledgerlink_fold(${bind(likePattern(query))})), false)`;
}

function likePattern(query: string): string {
  return `%${escapeLike(query)}%`;
}

/**
 * `abs(amount_minor)` in 1/10^MAX_EXPONENT of its row's currency unit (USD cents × 100, yen ×
 * 10,000), so one decimal bound compares right in every currency: the SQL function
 * `ledgerlink_abs_scaled` (migration 0009, which writes EXPONENTS into it; a test holds the two
 * equal), indexed per user for amount bounds.
 */
function absScaled(): SQL {
  return sql`ledgerlink_abs_scaled(${transactions.amountMinor}, ${transactions.currency})`;
}

/**
 * The WHERE conditions of a filter; always scoped to `userId` (a foreign account id finds nothing).
 * A text `query` is matched by `text` (by default through the trigram index, `textMatches`).
 * Every value goes through `bind` (db/fixed-statement.ts `shapedStatement`); what the conditions
 * are depends only on `filterShape(f)`.
 */
export function transactionConditions(
  userId: string,
  f: TransactionFilter,
  text: (column: AnyPgColumn, query: string, bind: Bind) => SQL = textMatches,
  bind: Bind = asParam,
): SQL[] {
  const conditions: SQL[] = [eq(transactions.userId, bind(userId))];
  if (f.range) {
    conditions.push(gte(transactions.date, bind(f.range.start)), lte(transactions.date, bind(f.range.end)));
  }
  const query = f.query?.trim();
  if (query) conditions.push(text(transactions.searchText, query, bind));
  if (f.accountIds && f.accountIds.length > 0)
    conditions.push(sql`${transactions.accountId} = any(${bind(f.accountIds)}::text[])`);
  if (f.categories && f.categories.length > 0)
    conditions.push(sql`${transactions.category} = any(${bind(f.categories)}::text[])`);
  if (f.direction === "inflow") conditions.push(sql`${transactions.amountMinor} > 0`);
  if (f.direction === "outflow") conditions.push(sql`${transactions.amountMinor} < 0`);
  if (f.minAbs !== undefined) conditions.push(sql`${absScaled()} >= ${bind(f.minAbs)}`);
  if (f.maxAbs !== undefined) conditions.push(sql`${absScaled()} <= ${bind(f.maxAbs)}`);
  if (!f.includePending) conditions.push(eq(transactions.pending, false));
  if (f.excludeTransfers) conditions.push(eq(transactions.isTransfer, false));
  return conditions;
}

/** What `transactionConditions` writes for `f`, apart from its values. */
export function filterShape(f: TransactionFilter): string {
  const query = f.query?.trim();
  return [
    f.range ? "r" : "",
    query ? (hasTrigram(query) ? "q" : "Q") : "",
    f.accountIds && f.accountIds.length > 0 ? "a" : "",
    f.categories && f.categories.length > 0 ? "c" : "",
    f.direction ?? "",
    f.minAbs !== undefined ? "m" : "",
    f.maxAbs !== undefined ? "M" : "",
    f.includePending ? "p" : "",
    f.excludeTransfers ? "t" : "",
  ].join("/");
}

/** Where a page ends: the last row's sort key, id last. The next page starts strictly after it. */
export type SortKey = readonly (string | number)[];

// ───────────────────────────── search ─────────────────────────────

export interface TransactionRow {
  id: string;
  date: string;
  /** Signed minor units of `currency` (negative = money out). */
  amountCents: number;
  currency: string;
  name: string;
  merchant: string | null;
  category: string;
  account: string;
  pending: boolean;
  isTransfer: boolean;
}

/** The matches of one currency, in its minor units. */
export interface SearchSummary {
  currency: string;
  count: number;
  inflowCents: number;
  outflowCents: number;
  netCents: number;
}

export interface SearchResult {
  transactions: TransactionRow[];
  /** One per currency of the matches (code order). */
  summary: SearchSummary[];
  /** Where the page ended, when more rows follow. */
  nextKey: SortKey | null;
  totalCount: number;
}

/** Rows strictly after `after` in the order of `sort` (the keyset condition). */
function afterKey(sort: TransactionSort, after: SortKey): SQL {
  const abs = sql`abs(${transactions.amountMinor})`;
  const [a, b, c] = after;
  switch (sort) {
    case "date_desc":
      return sql`(${transactions.date}, ${transactions.id}) < (${a}::date, ${b})`;
    case "date_asc":
      return sql`(${transactions.date}, ${transactions.id}) > (${a}::date, ${b})`;
    case "amount_desc":
      return sql`(${abs} < ${a} or (${abs} = ${a} and (${transactions.date}, ${transactions.id}) < (${b}::date, ${c})))`;
    case "amount_asc":
      return sql`(${abs} > ${a} or (${abs} = ${a} and (${transactions.date}, ${transactions.id}) < (${b}::date, ${c})))`;
  }
}

/** The order of `sort` over a row's date, id and amount (of `transactions`, or of a page of it). */
function orderBy(
  sort: TransactionSort,
  row: { date: SQLWrapper; id: SQLWrapper; amountMinor: SQLWrapper } = transactions,
): SQL[] {
  switch (sort) {
    case "date_desc":
      return [desc(row.date), desc(row.id)];
    case "date_asc":
      return [asc(row.date), asc(row.id)];
    case "amount_desc":
      return [sql`abs(${row.amountMinor}) desc`, desc(row.date), desc(row.id)];
    case "amount_asc":
      return [sql`abs(${row.amountMinor}) asc`, desc(row.date), desc(row.id)];
  }
}

/**
 * A text search's first page is read newest first from the date index, in one plan made once,
 * when its rows lie within this many calendar months (the newest one included): a plan made for
 * the pattern (to use the trigram index) costs more to make than the recent rows cost to read.
 */
const RECENT_PAGE_MONTHS = 2;

/** A page's options: its order, its size, and where the page before it ended. */
export interface PageOptions {
  sort: TransactionSort;
  limit: number;
  after: SortKey | null;
}

/**
 * The rows of one page (one more than `limit`: whether more follow) among the rows `rowsWhere`
 * selects, with their accounts' names. The page is read alone, then joined to its accounts: its
 * one table costs less planning than the join of every match (the heavy user's `coffee` planned
 * for its pattern on PGlite, planning and execution: 0.51-1.59 ms against 0.62-1.68 over five
 * rounds).
 */
export function searchPage(db: Database, rowsWhere: SQL, options: PageOptions) {
  const page = db
    .select({
      id: transactions.id,
      date: transactions.date,
      amountMinor: transactions.amountMinor,
      currency: transactions.currency,
      name: transactions.name,
      merchantName: transactions.merchantName,
      category: transactions.category,
      accountId: transactions.accountId,
      pending: transactions.pending,
      isTransfer: transactions.isTransfer,
    })
    .from(transactions)
    .where(options.after ? and(rowsWhere, afterKey(options.sort, options.after)) : rowsWhere)
    .orderBy(...orderBy(options.sort))
    .limit(writtenLimit(options.limit + 1))
    .as("page");
  return db
    .select({
      id: page.id,
      date: page.date,
      amountMinor: page.amountMinor,
      currency: page.currency,
      name: page.name,
      merchantName: page.merchantName,
      category: page.category,
      accountName: bankAccounts.name,
      pending: page.pending,
      isTransfer: page.isTransfer,
    })
    .from(page)
    .innerJoin(bankAccounts, eq(bankAccounts.id, page.accountId))
    .orderBy(...orderBy(options.sort, page));
}

/**
 * The rows of a text search dated from `recentFrom` on, the pattern tested on each row the date
 * index gives (`textFiltered`): read newest first, in one plan for every pattern.
 */
export function recentRowsWhere(
  userId: string,
  filter: TransactionFilter,
  recentFrom: string,
  bind: Bind = asParam,
): SQL {
  return and(
    ...transactionConditions(userId, filter, textFiltered, bind),
    gte(transactions.date, bind(recentFrom)),
  ) as SQL;
}

/**
 * A text search's first page, newest first, in one statement: the newest matches of the recent
 * months (`recent`, read by the date index from the newest back, the pattern tested on each row)
 * when they fill the page; otherwise the page of every match (`where`, by the trigram index), read
 * only then (a one-time filter on the count of the recent rows). Both used to be chosen between
 * by the summary's count of recent matches, a round trip before the page.
 */
async function textFirstPage(
  db: Database,
  userId: string,
  filter: TransactionFilter,
  recentFrom: string,
  limit: number,
): Promise<PageRow[]> {
  const n = writtenLimit(limit + 1);
  const t = transactions;
  const columns = sql`${t.id} as id, ${t.date}::text as date, ${t.amountMinor}::text as amount_minor,
    ${t.currency} as currency, ${t.name} as name, ${t.merchantName} as merchant_name,
    ${t.category} as category, ${t.accountId} as account_id, ${t.pending} as pending,
    ${t.isTransfer} as is_transfer`;
  const order = sql.join(orderBy("date_desc"), sql`, `);
  const { statement, values } = shapedStatement(`first-page:${filterShape(filter)}:${limit}`, (bind) => {
    const where = and(...transactionConditions(userId, filter, textMatches, bind)) as SQL;
    const recent = recentRowsWhere(userId, filter, recentFrom, bind);
    return sql`with recent as materialized (
        select ${columns} from ${t} where ${recent} order by ${order} limit ${n}
      ), "page" as (
        select * from recent where (select count(*) from recent) > ${sql.raw(String(limit))}
        union all
        select * from (
          select ${columns} from ${t} where ${where} order by ${order} limit ${n}
        ) as whole where (select count(*) from recent) <= ${sql.raw(String(limit))}
      )
      select p.*, a.name as account_name from "page" p join ${bankAccounts} a on a.id = p.account_id
      order by p.date desc, p.id desc`;
  });
  const rows = await runFixed(db, statement, values);
  return rows.map((r) => ({
    id: text(r, "id"),
    date: text(r, "date"),
    amountMinor: toCents(r.amount_minor),
    currency: text(r, "currency"),
    name: text(r, "name"),
    merchantName: r.merchant_name === null ? null : text(r, "merchant_name"),
    category: text(r, "category"),
    accountName: text(r, "account_name"),
    pending: r.pending === true || r.pending === "t",
    isTransfer: r.is_transfer === true || r.is_transfer === "t",
  }));
}

/** A row of a page as `searchPage` reads it. */
type PageRow = Awaited<ReturnType<typeof searchPage>>[number];

/** One page of matches plus the summary over every match (rollups.ts). */
export async function searchTransactions(
  db: Database,
  userId: string,
  filter: TransactionFilter,
  options: PageOptions & { today: string },
): Promise<SearchResult> {
  let rows: PageRow[];
  let totals: CurrencySummary[];
  if (filter.query?.trim() && options.sort === "date_desc" && !options.after) {
    // A text search's first page, newest first, beside its summary: one round trip for both.
    const newest = filter.range && filter.range.end < options.today ? filter.range.end : options.today;
    const recentFrom = addMonths(startOfMonth(newest), 1 - RECENT_PAGE_MONTHS);
    [rows, totals] = await Promise.all([
      textFirstPage(db, userId, filter, recentFrom, options.limit),
      summarizeTransactions(db, userId, filter, options.today),
    ]);
  } else {
    const where = and(...transactionConditions(userId, filter)) as SQL;
    [rows, totals] = await Promise.all([
      searchPage(db, where, options),
      summarizeTransactions(db, userId, filter, options.today),
    ]);
  }
  const hasMore = rows.length > options.limit;
  const shown = rows.slice(0, options.limit);
  const last = shown.at(-1);
  const summary = totals.map((t) => ({
    currency: t.currency,
    count: t.count,
    inflowCents: t.inflow,
    outflowCents: t.outflow,
    netCents: t.inflow + t.outflow,
  }));
  return {
    transactions: shown.map((r) => ({
      id: r.id,
      date: r.date,
      amountCents: toCents(r.amountMinor),
      currency: r.currency,
      name: r.name,
      merchant: r.merchantName,
      category: r.category,
      account: r.accountName,
      pending: r.pending,
      isTransfer: r.isTransfer,
    })),
    summary,
    nextKey: hasMore && last ? keyOf(options.sort, last) : null,
    totalCount: summary.reduce((n, s) => n + s.count, 0),
  };
}

function keyOf(sort: TransactionSort, row: { date: string; id: string; amountMinor: unknown }): SortKey {
  return sort === "date_desc" || sort === "date_asc"
    ? [row.date, row.id]
    : [Math.abs(toCents(row.amountMinor)), row.date, row.id];
}

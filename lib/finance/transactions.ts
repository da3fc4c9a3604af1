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
 * Paging is by keyset: the opaque base64url cursor carries the last row's sort key and id, and
 * the next page starts strictly after it, so rows added or removed between two pages never make
 * an unchanged row repeat or go missing (an offset would shift). The cursor also carries a
 * fingerprint of the user, filters and sort, so a cursor from another query, another user or a
 * garbled one is refused instead of silently returning the wrong rows.
 */
import { createHash } from "node:crypto";
import { and, asc, desc, eq, gte, inArray, lte, type SQL, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { bankAccounts, transactions } from "@/db/schema";
import { AppError } from "@/lib/errors";
import { EXPONENTS, MAX_EXPONENT, toAmount } from "./currency";
import { toCents } from "./money";
import type { DateRange } from "./periods";
import { summarizeTransactions } from "./rollups";

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
 * `abs(amount_minor)` in 1/10^MAX_EXPONENT of its row's currency unit (USD cents × 100, yen ×
 * 10,000), so one decimal bound compares right in every currency. The factors are our constants,
 * written into the SQL as literals.
 */
function absScaled(): SQL {
  const factor = (exponent: number) => 10 ** (MAX_EXPONENT - exponent);
  const cases = Object.entries(EXPONENTS)
    .map(([code, exponent]) => `when '${code}' then ${factor(exponent)}`)
    .join(" ");
  return sql`abs(${transactions.amountMinor}) * (case ${transactions.currency} ${sql.raw(cases)} else ${sql.raw(String(factor(2)))} end)`;
}

/** The WHERE conditions of a filter; always scoped to `userId` (a foreign account id finds nothing). */
export function transactionConditions(userId: string, f: TransactionFilter): SQL[] {
  const conditions: SQL[] = [eq(transactions.userId, userId)];
  if (f.range) {
    conditions.push(gte(transactions.date, f.range.start), lte(transactions.date, f.range.end));
  }
  const query = f.query?.trim();
  if (query) {
    // Folded like the column (case and accents), matched by the trigram index.
    const pattern = `%${escapeLike(query)}%`;
    conditions.push(sql`${transactions.searchText} like ledgerlink_fold(${pattern}) escape '\\'`);
  }
  if (f.accountIds && f.accountIds.length > 0) conditions.push(inArray(transactions.accountId, f.accountIds));
  if (f.categories && f.categories.length > 0) conditions.push(inArray(transactions.category, f.categories));
  if (f.direction === "inflow") conditions.push(sql`${transactions.amountMinor} > 0`);
  if (f.direction === "outflow") conditions.push(sql`${transactions.amountMinor} < 0`);
  if (f.minAbs !== undefined) conditions.push(sql`${absScaled()} >= ${f.minAbs}`);
  if (f.maxAbs !== undefined) conditions.push(sql`${absScaled()} <= ${f.maxAbs}`);
  if (!f.includePending) conditions.push(eq(transactions.pending, false));
  if (f.excludeTransfers) conditions.push(eq(transactions.isTransfer, false));
  return conditions;
}

// ───────────────────────────── cursor ─────────────────────────────

/** The position a page ends at: the last row's sort key, id last. */
export type CursorKey = readonly (string | number)[];
type KeyPart = "string" | "number" | "date";

interface CursorPayload {
  /** The last row's sort key. */
  k: CursorKey;
  /** Fingerprint of the user, filters and sort the cursor belongs to. */
  f: string;
}

/** A short, stable fingerprint of everything that decides the row order and set. */
export function filterFingerprint(userId: string, filter: TransactionFilter, sort: TransactionSort): string {
  const canonical = JSON.stringify([
    userId,
    filter.range,
    filter.query?.trim() ?? null,
    [...(filter.accountIds ?? [])].sort(),
    [...(filter.categories ?? [])].sort(),
    filter.direction,
    filter.minAbs ?? null,
    filter.maxAbs ?? null,
    filter.includePending,
    filter.excludeTransfers,
    sort,
  ]);
  return createHash("sha256").update(canonical).digest("base64url").slice(0, 16);
}

/** An opaque `page.next_cursor`: where the page ended, tied to the query by its fingerprint. */
export function encodeCursor(key: CursorKey, fingerprint: string): string {
  return Buffer.from(JSON.stringify({ k: key, f: fingerprint } satisfies CursorPayload)).toString(
    "base64url",
  );
}

const fitsPart = (value: unknown, part: KeyPart) =>
  part === "number"
    ? typeof value === "number" && Number.isSafeInteger(value) && value >= 0
    : typeof value === "string" &&
      value.length <= 200 &&
      (part === "string" || (/^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value))));

/**
 * The sort key a cursor ends at, checked against the parts the query's sort expects;
 * `invalid_input` naming `cursor` when it is garbled, tampered or from another query or user.
 */
export function decodeCursor(cursor: string, fingerprint: string, shape: readonly KeyPart[]): CursorKey {
  const invalid = () =>
    new AppError(
      "invalid_input",
      'Argument "cursor" is not valid for these arguments: pass the page.next_cursor returned by the previous call with the same arguments, or omit cursor to start from the first page.',
      { argument: "cursor" },
    );
  let payload: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid();
    payload = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw invalid();
  }
  if (typeof payload !== "object" || payload === null || !("k" in payload) || !("f" in payload))
    throw invalid();
  const { k, f } = payload as { k: unknown; f: unknown };
  if (f !== fingerprint || !Array.isArray(k) || k.length !== shape.length) throw invalid();
  if (!k.every((value, i) => fitsPart(value, shape[i] as KeyPart))) throw invalid();
  return k as CursorKey;
}

/** The key parts of each sort: `[date, id]`, or `[abs amount in minor units, date, id]`. */
export function cursorShape(sort: TransactionSort): readonly KeyPart[] {
  return sort === "date_desc" || sort === "date_asc" ? ["date", "string"] : ["number", "date", "string"];
}

// ───────────────────────────── search ─────────────────────────────

export interface TransactionRow {
  id: string;
  date: string;
  amount: number;
  currency: string;
  name: string;
  merchant: string | null;
  category: string;
  account: string;
  pending: boolean;
  is_transfer: boolean;
}

export interface SearchSummary {
  currency: string;
  count: number;
  inflow: number;
  outflow: number;
  net: number;
}

export interface SearchResult {
  transactions: TransactionRow[];
  /** One per currency of the matches (code order). */
  summary: SearchSummary[];
  /** Where the page ended, when more rows follow. */
  nextKey: CursorKey | null;
  totalCount: number;
}

/** Rows strictly after `after` in the order of `sort` (the keyset condition). */
function afterKey(sort: TransactionSort, after: CursorKey): SQL {
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

function orderBy(sort: TransactionSort): SQL[] {
  switch (sort) {
    case "date_desc":
      return [desc(transactions.date), desc(transactions.id)];
    case "date_asc":
      return [asc(transactions.date), asc(transactions.id)];
    case "amount_desc":
      return [sql`abs(${transactions.amountMinor}) desc`, desc(transactions.date), desc(transactions.id)];
    case "amount_asc":
      return [sql`abs(${transactions.amountMinor}) asc`, desc(transactions.date), desc(transactions.id)];
  }
}

/** One page of matches plus the summary over every match (two queries, run together; rollups.ts). */
export async function searchTransactions(
  db: Database,
  userId: string,
  filter: TransactionFilter,
  options: { sort: TransactionSort; limit: number; after: CursorKey | null },
): Promise<SearchResult> {
  const where = and(...transactionConditions(userId, filter));
  const pageWhere = options.after ? and(where, afterKey(options.sort, options.after)) : where;
  const [rows, totals] = await Promise.all([
    db
      .select({
        id: transactions.id,
        date: transactions.date,
        amountMinor: transactions.amountMinor,
        currency: transactions.currency,
        name: transactions.name,
        merchantName: transactions.merchantName,
        category: transactions.category,
        accountName: bankAccounts.name,
        pending: transactions.pending,
        isTransfer: transactions.isTransfer,
      })
      .from(transactions)
      .innerJoin(bankAccounts, eq(bankAccounts.id, transactions.accountId))
      .where(pageWhere)
      .orderBy(...orderBy(options.sort))
      .limit(options.limit + 1),
    summarizeTransactions(db, userId, filter, where as SQL),
  ]);
  const hasMore = rows.length > options.limit;
  const page = rows.slice(0, options.limit);
  const last = page.at(-1);
  const summary = totals.map((t) => ({
    currency: t.currency,
    count: t.count,
    inflow: toAmount(t.inflow, t.currency),
    outflow: toAmount(t.outflow, t.currency),
    net: toAmount(t.inflow + t.outflow, t.currency),
  }));
  return {
    transactions: page.map((r) => ({
      id: r.id,
      date: r.date,
      amount: toAmount(toCents(r.amountMinor), r.currency),
      currency: r.currency,
      name: r.name,
      merchant: r.merchantName,
      category: r.category,
      account: r.accountName,
      pending: r.pending,
      is_transfer: r.isTransfer,
    })),
    summary,
    nextKey: hasMore && last ? keyOf(options.sort, last) : null,
    totalCount: summary.reduce((n, s) => n + s.count, 0),
  };
}

function keyOf(sort: TransactionSort, row: { date: string; id: string; amountMinor: unknown }): CursorKey {
  return sort === "date_desc" || sort === "date_asc"
    ? [row.date, row.id]
    : [Math.abs(toCents(row.amountMinor)), row.date, row.id];
}

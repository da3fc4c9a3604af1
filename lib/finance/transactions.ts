/**
 * Transaction search: filters, a compact page, and a summary over ALL matches.
 *
 * The summary (count, inflow, outflow, net) is one SQL aggregate over every row the filters
 * select, whatever the page size; `total_count` is the same count. Inflow is the sum of positive
 * amounts, outflow the sum of negative ones (a negative number), net their sum. The summary is a
 * plain sum of what matched: it follows the caller's filters (`exclude_transfers`,
 * `include_pending`) rather than the income/spending rules of lib/finance/rules.ts. A purchase is
 * one row whether pending or posted (the sync replaces the pending row; rules.ts, rule 3).
 *
 * Paging uses an offset wrapped in an opaque base64url cursor that also carries a fingerprint of
 * the filters and sort, so a cursor from another query (or a garbled one) is refused instead of
 * silently returning the wrong rows.
 */
import { createHash } from "node:crypto";
import { and, asc, desc, eq, gte, inArray, lte, or, type SQL, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { bankAccounts, transactions } from "@/db/schema";
import { AppError } from "@/lib/errors";
import { toAmount, toCents } from "./money";
import type { DateRange } from "./periods";

export const TRANSACTION_SORTS = ["date_desc", "date_asc", "amount_desc", "amount_asc"] as const;
export type TransactionSort = (typeof TRANSACTION_SORTS)[number];

export interface TransactionFilter {
  range: DateRange | null;
  query?: string | undefined;
  accountIds?: string[] | undefined;
  categories?: string[] | undefined;
  direction: "all" | "inflow" | "outflow";
  /** Bounds on the absolute amount, in cents. */
  minAbsCents?: number | undefined;
  maxAbsCents?: number | undefined;
  includePending: boolean;
  excludeTransfers: boolean;
}

/** `%`, `_` and `\` in user text match themselves in ILIKE. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The WHERE conditions of a filter; always scoped to `userId` (a foreign account id finds nothing). */
export function transactionConditions(userId: string, f: TransactionFilter): SQL[] {
  const conditions: SQL[] = [eq(transactions.userId, userId)];
  if (f.range) {
    conditions.push(gte(transactions.date, f.range.start), lte(transactions.date, f.range.end));
  }
  const query = f.query?.trim();
  if (query) {
    const pattern = `%${escapeLike(query)}%`;
    conditions.push(
      or(
        sql`${transactions.merchantName} ilike ${pattern} escape '\\'`,
        sql`${transactions.name} ilike ${pattern} escape '\\'`,
      ) as SQL,
    );
  }
  if (f.accountIds && f.accountIds.length > 0) conditions.push(inArray(transactions.accountId, f.accountIds));
  if (f.categories && f.categories.length > 0) conditions.push(inArray(transactions.category, f.categories));
  if (f.direction === "inflow") conditions.push(sql`${transactions.amountMinor} > 0`);
  if (f.direction === "outflow") conditions.push(sql`${transactions.amountMinor} < 0`);
  if (f.minAbsCents !== undefined) conditions.push(sql`abs(${transactions.amountMinor}) >= ${f.minAbsCents}`);
  if (f.maxAbsCents !== undefined) conditions.push(sql`abs(${transactions.amountMinor}) <= ${f.maxAbsCents}`);
  if (!f.includePending) conditions.push(eq(transactions.pending, false));
  if (f.excludeTransfers) conditions.push(eq(transactions.isTransfer, false));
  return conditions;
}

// ───────────────────────────── cursor ─────────────────────────────

interface CursorPayload {
  /** Offset of the next row. */
  o: number;
  /** Fingerprint of the filters and sort the cursor belongs to. */
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
    filter.minAbsCents ?? null,
    filter.maxAbsCents ?? null,
    filter.includePending,
    filter.excludeTransfers,
    sort,
  ]);
  return createHash("sha256").update(canonical).digest("base64url").slice(0, 16);
}

/** An opaque `page.next_cursor`: the next offset, tied to the query by its fingerprint. */
export function encodeCursor(offset: number, fingerprint: string): string {
  return Buffer.from(JSON.stringify({ o: offset, f: fingerprint } satisfies CursorPayload)).toString(
    "base64url",
  );
}

/** The offset a cursor points at; `invalid_input` naming `cursor` when it is garbled or from another query. */
export function decodeCursor(cursor: string, fingerprint: string): number {
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
  if (
    typeof payload !== "object" ||
    payload === null ||
    !("o" in payload) ||
    !("f" in payload) ||
    typeof payload.o !== "number" ||
    !Number.isSafeInteger(payload.o) ||
    payload.o < 0 ||
    payload.f !== fingerprint
  ) {
    throw invalid();
  }
  return payload.o;
}

// ───────────────────────────── search ─────────────────────────────

export interface TransactionRow {
  id: string;
  date: string;
  amount: number;
  name: string;
  merchant: string | null;
  category: string;
  account: string;
  pending: boolean;
  is_transfer: boolean;
}

export interface SearchResult {
  transactions: TransactionRow[];
  summary: { count: number; inflow: number; outflow: number; net: number };
  nextOffset: number | null;
  totalCount: number;
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

/** One page of matches plus the summary over every match (two queries, run together). */
export async function searchTransactions(
  db: Database,
  userId: string,
  filter: TransactionFilter,
  options: { sort: TransactionSort; limit: number; offset: number },
): Promise<SearchResult> {
  const where = and(...transactionConditions(userId, filter));
  const [rows, totals] = await Promise.all([
    db
      .select({
        id: transactions.id,
        date: transactions.date,
        amountMinor: transactions.amountMinor,
        name: transactions.name,
        merchantName: transactions.merchantName,
        category: transactions.category,
        accountName: bankAccounts.name,
        pending: transactions.pending,
        isTransfer: transactions.isTransfer,
      })
      .from(transactions)
      .innerJoin(bankAccounts, eq(bankAccounts.id, transactions.accountId))
      .where(where)
      .orderBy(...orderBy(options.sort))
      .limit(options.limit + 1)
      .offset(options.offset),
    db
      .select({
        count: sql<string>`count(*)`,
        inflow: sql<string>`coalesce(sum(${transactions.amountMinor}) filter (where ${transactions.amountMinor} > 0), 0)`,
        outflow: sql<string>`coalesce(sum(${transactions.amountMinor}) filter (where ${transactions.amountMinor} < 0), 0)`,
      })
      .from(transactions)
      .where(where),
  ]);
  const hasMore = rows.length > options.limit;
  const page = rows.slice(0, options.limit);
  const count = toCents(totals[0]?.count);
  const inflow = toCents(totals[0]?.inflow);
  const outflow = toCents(totals[0]?.outflow);
  return {
    transactions: page.map((r) => ({
      id: r.id,
      date: r.date,
      amount: toAmount(toCents(r.amountMinor)),
      name: r.name,
      merchant: r.merchantName,
      category: r.category,
      account: r.accountName,
      pending: r.pending,
      is_transfer: r.isTransfer,
    })),
    summary: { count, inflow: toAmount(inflow), outflow: toAmount(outflow), net: toAmount(inflow + outflow) },
    nextOffset: hasMore ? options.offset + options.limit : null,
    totalCount: count,
  };
}

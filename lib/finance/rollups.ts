/**
 * Summaries over many months without reading every row: whole calendar months come from the
 * monthly rollup `transaction_months` (kept by triggers in the same transaction as the rows, see
 * db/schema.ts), and only the rows of the partial months at the edges of a range are read. A
 * ten-year history costs about what a month costs.
 *
 * The rollup has the dimensions the search filters and the spending groups use (account,
 * category, merchant, currency, pending, transfer) and the measures (sums and counts of money in
 * and out); `transaction_month_totals` is the same summed over accounts, categories and merchants,
 * for summaries filtered by neither; `transaction_text_months` has the text a `query` matches
 * instead of the merchant, for text searches. A filter on the amount cannot be answered from
 * them, and those summaries read the rows.
 */
import { and, between, eq, gte, lte, or, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { type Database, PLANNED_EACH_RUN } from "@/db";
import { asParam, type Bind, runFixed, shapedStatement } from "@/db/fixed-statement";
import {
  transactionCategoryMonths,
  transactionDays,
  transactionMerchantSpans,
  transactionMonths,
  transactionMonthTotals,
  transactions,
  transactionTextMonths,
} from "@/db/schema";
import { toCents } from "./money";
import { addDays, addMonths, type DateRange, daysBetween, endOfMonth, startOfMonth } from "./periods";
import { countedForTotals, isIncome, isSpending } from "./rules";
import { text } from "./sql";
import {
  filterShape,
  type TransactionFilter,
  textFiltered,
  textMatches,
  textMonthsMatch,
  transactionConditions,
} from "./transactions";

/** The whole calendar months inside `range` (first days of the first and last), or null when none. */
export function wholeMonths(range: DateRange): { first: string; last: string } | null {
  const first =
    range.start === startOfMonth(range.start) ? range.start : addMonths(startOfMonth(range.start), 1);
  const last =
    range.end === endOfMonth(range.end) ? startOfMonth(range.end) : addMonths(startOfMonth(range.end), -1);
  return first <= last ? { first, last } : null;
}

/** Whether a filter can be summed from the rollups (no amount bounds). */
function rollable(filter: TransactionFilter): boolean {
  return filter.minAbs === undefined && filter.maxAbs === undefined;
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
  /** Today in the user's timezone: the days after it hold no rows (`splitRange`). */
  today?: string,
): Promise<CurrencySummary[]> {
  const parts = summaryParts(filter, today);
  const { statement, values } = shapedStatement(
    [
      "summary",
      filterShape(filter),
      parts.months === null ? "" : `${parts.months.first === null ? "all" : "months"}`,
      parts.add.length,
      parts.subtract.length,
    ].join(":"),
    (bind) => summaryStatement(userId, filter, bind, parts),
  );
  const result = await runFixed(db, statement, values);
  return result.map((r) => ({
    currency: text(r, "currency"),
    count: toCents(r.count),
    inflow: toCents(r.inflow),
    outflow: toCents(r.outflow),
  }));
}

/**
 * How `summaryStatement` sums the range of `filter` (`splitRange` without cuts): the rollup's
 * months from `first` to `last` (null: none; both null: every month), plus the rows of the `add`
 * days, less the rows of the `subtract` days. The last 12 months from the 3rd are the rollup from
 * last December less its first two days, then this month's two days: four days of rows instead
 * of 31.
 */
function summaryParts(
  filter: TransactionFilter,
  today?: string,
): { months: { first: string | null; last: string | null } | null; add: DateRange[]; subtract: DateRange[] } {
  if (!filter.range) return { months: { first: null, last: null }, add: [], subtract: [] };
  const { months, days, minus } = splitRange(filter.range, [], today);
  const [run, ...more] = months;
  if (more.length > 0) throw new Error("a range without cuts splits into one run of months");
  return {
    months: run ? { first: run.start, last: startOfMonth(run.end) } : null,
    add: days,
    subtract: minus,
  };
}

/** The statement of `summarizeTransactions`, each value through `bind`. */
export function summaryStatement(
  userId: string,
  filter: TransactionFilter,
  bind: Bind = asParam,
  parts = summaryParts(filter),
): SQL {
  // The rows `where` selects, counted and summed in (sign 1) or out (sign -1) of the total.
  const rawPart = (where: SQL, sign: 1 | -1 = 1) => {
    const signed = (value: SQL) => (sign === 1 ? value : sql`-${value}`);
    return sql`
    select ${transactions.currency} as currency, ${signed(sql`count(*)`)} as n,
      ${signed(sql`coalesce(sum(${transactions.amountMinor}) filter (where ${transactions.amountMinor} > 0), 0)`)} as i,
      ${signed(sql`coalesce(sum(${transactions.amountMinor}) filter (where ${transactions.amountMinor} < 0), 0)`)} as o
    from ${transactions} where ${where} group by ${transactions.currency}`;
  };
  const months = parts.months;
  let union: SQL;
  if (!rollable(filter) || months === null)
    union = rawPart(and(...transactionConditions(userId, filter, textMatches, bind)) as SQL);
  else {
    const byAccount = filter.accountIds !== undefined && filter.accountIds.length > 0;
    const byCategory = filter.categories !== undefined && filter.categories.length > 0;
    const query = filter.query?.trim();
    // A text search sums the months of the texts it matches; without an account or category
    // filter, the rollup summed over them is enough (far fewer rows).
    const m = query
      ? transactionTextMonths
      : byAccount || byCategory
        ? transactionMonths
        : transactionMonthTotals;
    const conditions: SQL[] = [eq(m.userId, bind(userId))];
    if (months.first !== null && months.last !== null)
      conditions.push(gte(m.month, bind(months.first)), lte(m.month, bind(months.last)));
    if (query) conditions.push(textMonthsMatch(transactionTextMonths.searchText, query, bind));
    const byMonth = query ? transactionTextMonths : transactionMonths;
    if (byAccount) conditions.push(sql`${byMonth.accountId} = any(${bind(filter.accountIds)}::text[])`);
    if (byCategory) conditions.push(sql`${byMonth.category} = any(${bind(filter.categories)}::text[])`);
    if (!filter.includePending) conditions.push(eq(m.pending, false));
    if (filter.excludeTransfers) conditions.push(eq(m.isTransfer, false));
    const [n, i, o] =
      filter.direction === "inflow"
        ? [m.inflowCount, m.inflowMinor, sql`0`]
        : filter.direction === "outflow"
          ? [m.outflowCount, sql`0`, m.outflowMinor]
          : [m.count, m.inflowMinor, m.outflowMinor];
    const pieces = [
      sql`select ${m.currency} as currency, ${n} as n, ${i} as i, ${o} as o
      from ${m} where ${and(...conditions)}`,
    ];
    // The rows of the days the months leave out or take in beyond the range (`summaryParts`): at
    // most half a month at each end, read by date with the text tested on each row (the trigram
    // index would read every match of every year), in a plan made once.
    const ofDays = (ranges: DateRange[]) =>
      and(
        ...transactionConditions(userId, { ...filter, range: null }, textFiltered, bind),
        or(...ranges.map((r) => between(transactions.date, bind(r.start), bind(r.end)))),
      ) as SQL;
    if (parts.add.length > 0) pieces.push(rawPart(ofDays(parts.add)));
    if (parts.subtract.length > 0) pieces.push(rawPart(ofDays(parts.subtract), -1));
    union = sql.join(pieces, sql` union all `);
  }
  return sql`select currency, sum(n)::text as count, sum(i)::text as inflow, sum(o)::text as outflow
      from (${union}) as parts group by currency having sum(n) > 0 order by currency`;
}

/** Ranges that follow each other without a gap joined into one. */
function joined(ranges: DateRange[]): DateRange[] {
  const out: DateRange[] = [];
  for (const r of ranges) {
    const last = out[out.length - 1];
    if (last && addDays(last.end, 1) === r.start) last.end = r.end;
    else out.push({ ...r });
  }
  return out;
}

/** Days read negated, dated `dated` (a day of the piece of the range their month stands for). */
export interface MinusRange extends DateRange {
  dated: string;
}

/**
 * `range` split into the months to read from the rollup and the days to read from the rows: a
 * month is read from the rollup only when each of `cuts` holds all of its part in `range` or none
 * of it. A part of a month (at the edges of the range or of a cut) is read as its own days, or,
 * when those are more than the month's other days that may hold rows (none after `today`), as the
 * whole month from the rollup less those other days (`minus`, read from the rows and subtracted).
 * Such a month's rollup rows, and the days subtracted from it, are dated the first day of the part
 * (`redated` when that is not the month's 1st), so that they fall in the part's cut. A range to
 * today subtracts days to come, which hold no rows (read all the same: a bank may date a row after
 * the user's today); a year from the 11th reads its first month as the month less its first ten
 * days (a rolling year by merchant against the year before, on the 10th, read 60 days of rows,
 * now 30; on the 3rd, 9).
 */
export function splitRange(
  range: DateRange,
  cuts: DateRange[],
  /** Today: the days after it hold no rows yet, so a month read less them costs no rows. */
  today?: string,
): {
  months: DateRange[];
  days: DateRange[];
  minus: MinusRange[];
  redated: Array<{ month: string; dated: string }>;
} {
  // ISO dates compare as strings. Each piece between two cut points is inside or outside every cut.
  const points = [...new Set(cuts.flatMap((c) => [c.start, addDays(c.end, 1)]))]
    .filter((p) => p > range.start && p <= range.end)
    .sort();
  const months: DateRange[] = [];
  const days: DateRange[] = [];
  const minus: MinusRange[] = [];
  const redated: Array<{ month: string; dated: string }> = [];
  /** Days of `from`..`to` that may hold rows: none after today. */
  const withRows = (from: string, to: string) => {
    const end = today !== undefined && today < to ? today : to;
    return end < from ? 0 : daysBetween(from, end) + 1;
  };
  /** Days `from`..`to` of one month: themselves, or the month less its other days when those are fewer. */
  const partOfMonth = (from: string, to: string) => {
    const first = startOfMonth(from);
    const last = endOfMonth(from);
    const others =
      (from > first ? withRows(first, addDays(from, -1)) : 0) +
      (to < last ? withRows(addDays(to, 1), last) : 0);
    if (others >= withRows(from, to)) {
      days.push({ start: from, end: to });
      return;
    }
    months.push({ start: first, end: last });
    if (from > first) {
      redated.push({ month: first, dated: from });
      minus.push({ start: first, end: addDays(from, -1), dated: from });
    }
    if (to < last) minus.push({ start: addDays(to, 1), end: last, dated: from });
  };
  /** The days of `start`..`end` (no whole month among them), month by month. */
  const partsOfMonths = (start: string, end: string) => {
    for (let from = start; from <= end; from = addDays(endOfMonth(from), 1))
      partOfMonth(from, endOfMonth(from) < end ? endOfMonth(from) : end);
  };
  [range.start, ...points].forEach((start, i) => {
    const piece = { start, end: i < points.length ? addDays(points[i] as string, -1) : range.end };
    const whole = wholeMonths(piece);
    if (whole === null) {
      partsOfMonths(piece.start, piece.end);
      return;
    }
    const end = endOfMonth(whole.last);
    if (piece.start < whole.first) partOfMonth(piece.start, addDays(whole.first, -1));
    months.push({ start: whole.first, end });
    if (end < piece.end) partOfMonth(addDays(end, 1), piece.end);
  });
  return { months: joined(months), days: joined(days), minus, redated };
}

/** The columns of `countedRows`. */
export const counted = {
  currency: sql.raw("counted.currency"),
  category: sql.raw("counted.category"),
  /** `coalesce(merchant_name, name)`. */
  merchant: sql.raw("counted.merchant"),
  accountId: sql.raw("counted.account_id"),
  /** A row's date, or the 1st of a month of the rollup. */
  date: sql.raw("counted.date"),
  /** Minor units. */
  amount: sql.raw("counted.amount"),
  /** Rows summed. */
  n: sql.raw("counted.n"),
};

/** The placeholders of a statement's `i`th range named `name`: `<name>_<i>_start` and `_end`. */
export function rangePlaceholders(name: string, i: number) {
  return { start: sql.placeholder(`${name}_${i}_start`), end: sql.placeholder(`${name}_${i}_end`) };
}

/** The values of `rangePlaceholders(name, i)` for each of `ranges`. */
export function rangeValues(name: string, ranges: DateRange[]): Record<string, string> {
  return Object.fromEntries(
    ranges.flatMap((r, i) => [
      [`${name}_${i}_start`, r.start],
      [`${name}_${i}_end`, r.end],
    ]),
  );
}

/** `countedRows` for one call: the shape of its subquery, and the values it is run with. */
export interface Counted {
  /**
   * Same key, same subquery: which tables it reads and how many date ranges of each kind. A
   * statement built on `from()` is built once per key (db/fixed-statement.ts `perDatabaseVariant`):
   * building and rendering it with the query builder cost the request thread more than the
   * database's work for it (a fifth of its CPU for two years of cash flow).
   */
  key: string;
  /** The subquery `counted`, its values as placeholders (named after `counted_`) given by `values`. */
  from: () => SQL;
  values: Record<string, unknown>;
}

/**
 * The rows of `range` that count toward income and spending (rule 1 of rules.ts: no transfers),
 * as the subquery `counted` (columns in `counted`) whose sums of `amount` and `n` grouped by any
 * of its columns (the date only by month, or by ranges given as `cuts`) equal those over the
 * rows: the rollup for whole months, the rows themselves for the days around them. A month of
 * which the range holds most days is read whole, less its other days, negated, with the month's
 * rows dated the first day the range holds of it (`splitRange`): for a range to today, its days
 * to come, usually no rows at all. Pending rows count, as they do in the rows (a posted row
 * replaces its pending one).
 *
 * Without an account filter the rows are never read: with `byCategory` (the caller groups by
 * nothing finer than currency, category and date), whole months come from
 * `transaction_category_months` and days from `transaction_days`, and `merchant` is null; with
 * `byMerchant` (nothing finer than the merchant, and the date only by the cuts), everything comes
 * from the merchant rollups (whole quarters, months and days, summed over accounts). Both read
 * the pieces of `rollupPieces`, in one statement text whatever the range (`piecesSubquery`), and
 * `account_id` is null.
 *
 * A statement reading both the months and the rows of past days is never kept prepared (db/index.ts
 * `PLANNED_EACH_RUN`: a generic plan of a 12-month breakdown by merchant, when it read them, cost
 * the server 8.8 ms instead of 5.4).
 */
export function countedRows(
  userId: string,
  range: DateRange,
  options: {
    accountIds?: string[] | undefined;
    cuts?: DateRange[];
    byCategory?: boolean;
    byMerchant?: boolean;
    /** Today in the user's timezone (`splitRange`). */
    today?: string | undefined;
    /**
     * The categories the caller sums (its WHERE keeps them too, rules.ts `isIncome` or
     * `isSpending`): the rollups, whose pieces are read apart, read only their rows (a filter
     * outside never reaches them). Two years of income sources on the heavy user: 0.33 ms of
     * PGlite's thread instead of 0.96, the index skipping every spending row.
     */
    kind?: "income" | "spending";
  } = {},
): Counted {
  const { accountIds, cuts = [], byCategory = false, byMerchant = false, today, kind } = options;
  const ofAccounts = accountIds !== undefined && accountIds.length > 0;
  const source = ofAccounts ? "rows" : byCategory ? "category" : byMerchant ? "merchant" : "rows";
  if (source !== "rows") {
    const pieces = rollupPieces(range, cuts, today, { quarters: source === "merchant" });
    return {
      key: `${source} ${kind ?? "all"}`,
      from: () => piecesSubquery(source, kind),
      values: { counted_user: userId, counted_pieces: JSON.stringify(pieces) },
    };
  }
  const { months, days, minus, redated } = splitRange(range, cuts, today);
  const values: Record<string, unknown> = {
    counted_user: userId,
    ...rangeValues("counted_months", months),
    ...rangeValues("counted_days", days),
    ...rangeValues("counted_minus", minus),
  };
  minus.forEach((m, i) => {
    values[`counted_minus_${i}_dated`] = m.dated;
  });
  redated.forEach((r, i) => {
    values[`counted_redated_${i}_month`] = r.month;
    values[`counted_redated_${i}_dated`] = r.dated;
  });
  if (ofAccounts) values.counted_accounts = accountIds;
  const shape = { months: months.length, days: days.length, minus: minus.length, redated: redated.length };
  return {
    key: `rows ${ofAccounts} ${shape.months} ${shape.days} ${shape.minus} ${shape.redated}`,
    from: () => rowsSubquery(ofAccounts, shape),
    values,
  };
}

/** A key range of a rollup read with a sign and dated a day of its piece of `range` (`rollupPieces`). */
interface RollupPiece {
  span: "day" | "month" | "quarter";
  /** The first day, month or quarter read. */
  start: string;
  /** The last day read (days), or the first day of the last month or quarter read. */
  end: string;
  /** The date its rows count on; null: each day, month or quarter its own. */
  dated: string | null;
  sign: 1 | -1;
}

/**
 * What a sum over `range` cut by `cuts` (`splitRange`) reads of the rollups: its whole months,
 * joined where they follow each other (with `quarters`, three of them as one quarter where no cut
 * divides the quarter); the days around them; a month read less some of its days, those days
 * with the sign -1. Each is dated as `splitRange` dates it (a month the range starts within, the
 * first day the range holds of it, so it stands alone).
 */
export function rollupPieces(
  range: DateRange,
  cuts: DateRange[],
  today: string | undefined,
  options: { quarters: boolean },
): RollupPiece[] {
  const { months, days, minus, redated } = splitRange(range, cuts, today);
  // A quarter is read whole only when no cut divides it, so that it lies in one piece of the cuts.
  const points = cuts.flatMap((c) => [c.start, addDays(c.end, 1)]);
  const redatedAs = new Map(redated.map((r) => [r.month, r.dated]));
  const pieces: RollupPiece[] = [];
  for (const run of months) {
    for (let month = run.start; month <= run.end; ) {
      const last = endOfMonth(addMonths(month, 2));
      const quarter =
        options.quarters &&
        Number(month.slice(5, 7)) % 3 === 1 &&
        last <= run.end &&
        !points.some((p) => p > month && p <= last);
      const dated = redatedAs.get(month) ?? null;
      const previous = pieces[pieces.length - 1];
      if (quarter) pieces.push({ span: "quarter", start: month, end: month, dated, sign: 1 });
      else if (
        previous?.span === "month" &&
        previous.dated === null &&
        dated === null &&
        addMonths(previous.end, 1) === month
      )
        previous.end = month;
      else pieces.push({ span: "month", start: month, end: month, dated, sign: 1 });
      month = addMonths(month, quarter ? 3 : 1);
    }
  }
  for (const d of days) pieces.push({ span: "day", start: d.start, end: d.end, dated: null, sign: 1 });
  for (const m of minus) pieces.push({ span: "day", start: m.start, end: m.end, dated: m.dated, sign: -1 });
  return pieces;
}

/**
 * The subquery of `countedRows` from the rollups: the pieces of `rollupPieces` as one JSON value,
 * each joined to its rows by key. One text whatever the range, so one plan kept for it: a nested
 * loop over the pieces, each read by the index (a rolling year by merchant against the year
 * before, on the heavy user: 16 pieces, about 600 rows instead of 1,283 read by a plan made on
 * every run). The planner counts a JSON value's rows the same whatever it holds, so its plan
 * made once costs what one made for the values does, and is kept: the overview's comparison,
 * when its months and days were placeholders of their own, was planned anew on every run on a
 * database of one long history (its few days made a plan for the values look cheaper), 0.7 ms of
 * PGlite's thread. A lateral subquery kept apart (`offset 0`: not merged into a join) keeps a
 * plan made once from joining the whole table; kept apart, it is reached by no filter of the
 * caller's, and `kind` puts the caller's categories in it.
 *
 * By merchant, `transaction_merchant_spans` holds every span; by category, months come from
 * `transaction_category_months` and days from `transaction_days` (each branch runs only for its
 * pieces: a filter on the piece alone is checked once per piece).
 */
function piecesSubquery(source: "category" | "merchant", kind: "income" | "spending" | undefined): SQL {
  const p = sql.placeholder;
  const ofKind = (category: SQLWrapper) =>
    kind ? sql` and ${(kind === "income" ? isIncome : isSpending)(category)}` : sql``;
  /** A rollup's rows within the piece (`start`: its date column; `span`: the piece's spans it holds). */
  const read = (
    t: typeof transactionMerchantSpans | typeof transactionCategoryMonths | typeof transactionDays,
    start: SQLWrapper,
    merchant: SQLWrapper,
    span: SQL,
  ) => sql`select ${t.currency} as currency, ${t.category} as category, ${merchant} as merchant,
        ${start} as start, ${t.inflowMinor} + ${t.outflowMinor} as amount, ${t.count} as n
      from ${t} where ${t.userId} = ${p("counted_user")} and ${span}
        and ${start} between piece.start and piece."end" and not ${t.isTransfer}${ofKind(t.category)}`;
  const s = transactionMerchantSpans;
  const m = transactionCategoryMonths;
  const d = transactionDays;
  const lateral =
    source === "merchant"
      ? read(s, s.start, s.merchant, sql`${s.span} = piece.span`)
      : sql`${read(m, m.month, sql`null::text`, sql`piece.span = 'month'`)}
        union all ${read(d, d.date, sql`null::text`, sql`piece.span = 'day'`)}`;
  return sql`(select r.currency, r.category, r.merchant, null::text as account_id,
      coalesce(piece.dated, r.start) as date, r.amount * piece.sign as amount, r.n * piece.sign as n
    from jsonb_to_recordset(${p("counted_pieces")}::jsonb)
      as piece(span text, start date, "end" date, dated date, sign int)
    cross join lateral (${lateral} offset 0) as r) as counted`;
}

/** The subquery of `countedRows` from the rows and `transaction_months`, for a shape, its values as placeholders. */
function rowsSubquery(
  ofAccounts: boolean,
  shape: { months: number; days: number; minus: number; redated: number },
): SQL {
  const p = sql.placeholder;
  const userId = p("counted_user");
  /** `column` within any of the `count` ranges of `part` (none: false). */
  const within = (column: SQLWrapper, part: "months" | "days" | "minus") =>
    shape[part] > 0
      ? or(
          ...Array.from({ length: shape[part] }, (_, i) => {
            const r = rangePlaceholders(`counted_${part}`, i);
            return between(column, r.start, r.end);
          }),
        )
      : sql`false`;
  const ofAccount = (column: SQLWrapper) =>
    ofAccounts ? sql`${column} = any(${p("counted_accounts")}::text[])` : undefined;
  /** A rollup month's date: the day it is dated when it stands for part of a range, else its 1st. */
  const monthDated = (month: SQLWrapper) =>
    shape.redated > 0
      ? sql`case ${month} ${sql.join(
          Array.from(
            { length: shape.redated },
            (_, i) =>
              sql`when ${p(`counted_redated_${i}_month`)}::date then ${p(`counted_redated_${i}_dated`)}::date`,
          ),
          sql` `,
        )} else ${month} end`
      : sql`${month}`;
  /** A subtracted row's date: that of the month it is subtracted from (`monthDated`). */
  const minusDated = (date: SQLWrapper) =>
    sql`case ${sql.join(
      Array.from({ length: shape.minus }, (_, i) => {
        const r = rangePlaceholders("counted_minus", i);
        return sql`when ${date} between ${r.start} and ${r.end} then ${p(`counted_minus_${i}_dated`)}::date`;
      }),
      sql` `,
    )} end`;
  const m = transactionMonths;
  const t = transactions;
  const rolled = sql`select ${m.currency} as currency, ${m.category} as category, ${m.merchant} as merchant,
      ${m.accountId} as account_id, ${monthDated(m.month)} as date, ${m.inflowMinor} + ${m.outflowMinor} as amount, ${m.count} as n
    from ${m} where ${and(
      eq(m.userId, userId),
      eq(m.isTransfer, false),
      within(m.month, "months"),
      ofAccount(m.accountId),
    )}`;
  // Over months and the rows of days (or of a month's first days, subtracted), its ranges decide
  // between the rollup's and the rows' indexes: planned for them on each run. Within one month
  // (the common question), or over whole months to today (less the month's days to come, which
  // hold no rows), a kept plan costs least.
  const planned =
    shape.months > 0 && (shape.days > 0 || shape.redated > 0) ? sql.raw(PLANNED_EACH_RUN) : sql``;
  // The rows; for `minus` negated and dated as the month they are subtracted from.
  const rowsOf = (part: "days" | "minus") => {
    const less = part === "minus";
    return sql`select ${t.currency}, ${t.category},
      coalesce(${t.merchantName}, ${t.name}), ${t.accountId},
      ${less ? minusDated(t.date) : t.date}, ${less ? sql`-` : sql``}${t.amountMinor}, ${less ? sql`-1` : sql`1`}
    from ${t} where ${and(eq(t.userId, userId), countedForTotals(), within(t.date, part), ofAccount(t.accountId))}`;
  };
  return sql`(${rolled} union all ${rowsOf("days")}${shape.minus > 0 ? sql` union all ${rowsOf("minus")}` : sql``}) ${planned} as counted`;
}

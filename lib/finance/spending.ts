/**
 * Spending breakdowns and cash flow, computed in SQL over the whole range with the counting rules
 * of lib/finance/rules.ts (transfers excluded; income = SUM over income categories; spending =
 * −SUM over spending categories, so refunds lower their category; pending rows count until they
 * post, then only the posted row counts). Every sum is grouped by the transactions' currency and
 * every result is per currency: amounts of two currencies are never added. Sums over a range read
 * the monthly rollup for its whole months and the rows for the rest (rollups.ts `countedRows`).
 */
import { and, eq, gte, inArray, lte, type SQL, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { perDatabaseVariant } from "@/db/fixed-statement";
import { bankAccounts, transactions } from "@/db/schema";
import { categoryKind, categoryLabel } from "./categories";
import { groupByCurrency } from "./currency";
import { ratio, toCents } from "./money";
import { addDays, addMonths, type DateRange, endOfMonth, spanOf, startOfMonth } from "./periods";
import { type Counted, counted, countedRows, rangePlaceholders, rangeValues } from "./rollups";
import { countedForTotals, incomeSum, isIncome, isSpending, spendingSum } from "./rules";

export const SPENDING_GROUPS = ["category", "merchant", "account", "month"] as const;
export type SpendingGroup = (typeof SPENDING_GROUPS)[number];

function rangeConditions(userId: string, range: DateRange, accountIds?: string[]): SQL[] {
  const conditions: SQL[] = [
    eq(transactions.userId, userId),
    gte(transactions.date, range.start),
    lte(transactions.date, range.end),
    countedForTotals(),
  ];
  if (accountIds && accountIds.length > 0) conditions.push(inArray(transactions.accountId, accountIds));
  return conditions;
}

export interface Flow {
  incomeCents: number;
  spendingCents: number;
}

/** A flow with its net (income − spending), in minor units. */
export interface FlowFigures extends Flow {
  netCents: number;
}

export function withNet(f: Flow): FlowFigures {
  return {
    incomeCents: f.incomeCents,
    spendingCents: f.spendingCents,
    netCents: f.incomeCents - f.spendingCents,
  };
}

/** A flow with its net and savings rate (net / income, null without income), as cash flow reports it. */
export interface CashFlowFigures extends FlowFigures {
  savingsRate: number | null;
}

function withSavingsRate(f: Flow): CashFlowFigures {
  const figures = withNet(f);
  return { ...figures, savingsRate: ratio(figures.netCents, figures.incomeCents) };
}

/** Income and spending in minor units over a range (rule 2 of rules.ts), per currency in code order. */
export async function getIncomeAndSpending(
  db: Database,
  userId: string,
  range: DateRange,
  accountIds?: string[],
): Promise<Array<Flow & { currency: string }>> {
  const rows = await db
    .select({ currency: transactions.currency, income: incomeSum(), spending: spendingSum() })
    .from(transactions)
    .where(and(...rangeConditions(userId, range, accountIds)))
    .groupBy(transactions.currency)
    .orderBy(transactions.currency);
  return rows.map((r) => ({
    currency: r.currency,
    incomeCents: toCents(r.income),
    spendingCents: toCents(r.spending),
  }));
}

export interface SpendingGroupRow {
  currency: string;
  key: string;
  label: string;
  /** Spending in cents (positive = money spent; refunds lower it). */
  cents: number;
  count: number;
}

/** Spending groups of one currency and their total (over all of them, not only a top N). */
export interface SpendingGroups {
  currency: string;
  groups: SpendingGroupRow[];
  totalCents: number;
}

/** The statement of `getSpendingByGroup` for a grouping, a number of ranges and a shape of `counted`. */
const spendingByGroupQuery = perDatabaseVariant(
  (v: { groupBy: SpendingGroup; ranges: number; counted: Counted }) =>
    `${v.groupBy} ${v.ranges} ${v.counted.key}`,
  (db, { groupBy, ranges, counted: from }) => {
    const c = counted;
    const key = sql<string>`${
      groupBy === "category"
        ? c.category
        : groupBy === "merchant"
          ? c.merchant
          : groupBy === "account"
            ? c.accountId
            : sql`to_char(${c.date}, 'YYYY-MM')`
    }`;
    // Every row is in the one range when there is one: no filter to evaluate per row.
    const within = (i: number) => {
      const r = rangePlaceholders("range", i);
      return ranges === 1 ? sql`true` : sql`${c.date} between ${r.start} and ${r.end}`;
    };
    const each = (f: (i: number) => SQL) =>
      sql.join(
        Array.from({ length: ranges }, (_, i) => f(i)),
        sql`, `,
      );
    // Each sum once, named, and the order by the first range's by name: written again in the
    // ORDER BY with its own placeholders, it was a sum of its own, computed once more for every
    // row, and it made the plan made once look costlier than one made for the values: on the
    // heavy user alone a year by merchant was planned anew on every run (PGlite's thread: 2.1 ms
    // for the statement instead of 1.7).
    const sums = Object.fromEntries(
      Array.from({ length: ranges }, (_, i) => [
        [
          `spent_${i}`,
          sql<string>`coalesce(-sum(${c.amount}) filter (where ${within(i)}), 0)`.as(`spent_${i}`),
        ],
        [`n_${i}`, sql<string>`coalesce(sum(${c.n}) filter (where ${within(i)}), 0)`.as(`n_${i}`)],
      ]).flat(),
    );
    const groups = db
      .select({ currency: sql<string>`${c.currency}`.as("currency"), key: key.as("key"), ...sums })
      .from(from.from())
      .where(isSpending(c.category))
      .groupBy(c.currency, key)
      // A month of the rollup whose rows were all removed sums nothing (n = 0): no group.
      .having(sql`sum(${c.n}) > 0`)
      .as("groups");
    const column = (name: string) => sql.raw(`"groups"."${name}"`);
    // Only a breakdown by account names its groups after an account (the join costs the others
    // a third of their time on a long history).
    const accountName =
      groupBy === "account"
        ? sql<string>`(select ${bankAccounts.name} from ${bankAccounts} where ${bankAccounts.id} = ${column("key")})`
        : sql<string>`null`;
    return db
      .select({
        currency: sql<string>`${column("currency")}`,
        key: sql<string>`${column("key")}`,
        accountName,
        // A month of the rollup is dated its 1st, and no range cuts it (the cuts below).
        spending: sql<string[]>`array[${each((i) => sql`${column(`spent_${i}`)}::text`)}]`,
        count: sql<string[]>`array[${each((i) => sql`${column(`n_${i}`)}::text`)}]`,
      })
      .from(groups)
      .orderBy(column("currency"), sql`${column("spent_0")} desc`, column("key"))
      .prepare("");
  },
);

/**
 * Spending per currency and group over each of `ranges`, in ONE pass over them (the rollups
 * cut at every range's edges): per range, per currency (code order), every group largest first
 * in the first range (callers cut the top N), and the total over all its groups.
 */
async function getSpendingByGroup(
  db: Database,
  userId: string,
  ranges: [DateRange, ...DateRange[]],
  groupBy: SpendingGroup,
  accountIds: string[] | undefined,
  today: string | undefined,
): Promise<SpendingGroups[][]> {
  const from = countedRows(userId, spanOf(ranges), {
    accountIds,
    today,
    cuts: ranges,
    byCategory: groupBy === "category" || groupBy === "month",
    byMerchant: groupBy === "merchant",
    kind: "spending",
  });
  const rows = await spendingByGroupQuery(db, { groupBy, ranges: ranges.length, counted: from }).execute({
    ...from.values,
    ...rangeValues("range", ranges),
  });
  return ranges.map((_, i) =>
    groupByCurrency(
      rows.filter((r) => toCents(r.count[i]) > 0),
      (r) => r.currency,
    ).map(([currency, ofCurrency]) => {
      const groups = ofCurrency.map((r) => ({
        currency,
        key: r.key,
        label: groupBy === "category" ? categoryLabel(r.key) : groupBy === "account" ? r.accountName : r.key,
        cents: toCents(r.spending[i]),
        count: toCents(r.count[i]),
      }));
      return { currency, groups, totalCents: groups.reduce((n, g) => n + g.cents, 0) };
    }),
  );
}

/** A listed group of a breakdown: its spending, share of its currency's total and the change. */
interface BreakdownGroup extends SpendingGroupRow {
  /** cents / the currency's total spending. */
  share: number | null;
  /** The group's spending in the previous range (0 when it had none); null without a comparison. */
  previousCents: number | null;
  changeCents: number | null;
  /** change / previous, rounded to 4 decimals; null when the previous amount is not positive. */
  changePct: number | null;
}

/** A breakdown's totals in one currency: every group, not only the listed ones. */
interface BreakdownTotals {
  currency: string;
  totalCents: number;
  previousTotalCents: number | null;
  changeCents: number | null;
  /** The groups beyond the top N, summed; null when none is left out. */
  other: { groups: number; cents: number; count: number } | null;
}

/**
 * Spending by group over `range`, per currency (code order): the top `topN` groups of each
 * currency and its totals, compared with `previous` when given (a currency with spending in
 * only one of the two ranges counts 0 in the other).
 */
export async function getSpendingBreakdown(
  db: Database,
  userId: string,
  options: {
    range: DateRange;
    previous: DateRange | null;
    groupBy: SpendingGroup;
    topN: number;
    accountIds?: string[] | undefined;
    /** Today in the user's timezone: which edges of the ranges cost fewer rows (rollups.ts `splitRange`). */
    today?: string | undefined;
  },
): Promise<{ groups: BreakdownGroup[]; totals: BreakdownTotals[] }> {
  const { groupBy, accountIds, previous, today } = options;
  // Both ranges in one statement, except by account: one statement per range, run together (one
  // pass over both read the rows by account of every month, and cost more than two). By merchant
  // one pass reads the merchant months and, once, the days the two ranges meet on (a year by
  // merchant on the heavy user: 2.3–2.7 ms of PostgreSQL CPU per call instead of 2.5–3.2).
  const ranges: [DateRange, ...DateRange[]] = previous ? [options.range, previous] : [options.range];
  const [current = [], before = null] =
    groupBy !== "account"
      ? await getSpendingByGroup(db, userId, ranges, groupBy, accountIds, today)
      : (
          await Promise.all(
            ranges.map((r) => getSpendingByGroup(db, userId, [r], groupBy, accountIds, today)),
          )
        ).flat();
  const currencies = [...new Set([...current, ...(before ?? [])].map((c) => c.currency))].sort();
  const none = { groups: [], totalCents: 0 };
  const groups: BreakdownGroup[] = [];
  const totals = currencies.map((currency) => {
    const now = current.find((c) => c.currency === currency) ?? none;
    const then = before ? (before.find((c) => c.currency === currency) ?? none) : null;
    const previousByKey = new Map(then?.groups.map((g) => [g.key, g.cents]) ?? []);
    for (const g of now.groups.slice(0, options.topN)) {
      const previousCents = then ? (previousByKey.get(g.key) ?? 0) : null;
      groups.push({
        ...g,
        share: ratio(g.cents, now.totalCents),
        previousCents,
        changeCents: previousCents === null ? null : g.cents - previousCents,
        changePct: previousCents === null ? null : ratio(g.cents - previousCents, previousCents),
      });
    }
    const rest = now.groups.slice(options.topN);
    return {
      currency,
      totalCents: now.totalCents,
      previousTotalCents: then ? then.totalCents : null,
      changeCents: then ? now.totalCents - then.totalCents : null,
      other:
        rest.length > 0
          ? {
              groups: rest.length,
              cents: rest.reduce((n, g) => n + g.cents, 0),
              count: rest.reduce((n, g) => n + g.count, 0),
            }
          : null,
    };
  });
  return { groups, totals };
}

export interface PeriodComparison {
  currency: string;
  current: Flow;
  previous: Flow;
  categories: { groups: SpendingGroupRow[]; totalCents: number };
}

/** The statement of `getPeriodComparison` for a shape of `counted` (range 0 the current, 1 the previous). */
const periodComparisonQuery = perDatabaseVariant(
  (from: Counted) => from.key,
  (db, from) => {
    const c = counted;
    const within = (i: number) => {
      const r = rangePlaceholders("range", i);
      return sql`${c.date} between ${r.start} and ${r.end}`;
    };
    return (
      db
        .select({
          currency: sql<string>`${c.currency}`,
          category: sql<string>`${c.category}`,
          current: sql<string>`coalesce(sum(${c.amount}) filter (where ${within(0)}), 0)`,
          currentCount: sql<string>`coalesce(sum(${c.n}) filter (where ${within(0)}), 0)`,
          previous: sql<string>`coalesce(sum(${c.amount}) filter (where ${within(1)}), 0)`,
        })
        // A month of the rollup is dated its 1st: one that either range cuts is read from the days.
        .from(from.from())
        .groupBy(c.currency, c.category)
        .having(sql`sum(${c.n}) > 0`)
        .prepare("")
    );
  },
);

/**
 * What the overview needs of a period, per currency (code order), in ONE pass over the rows of
 * both ranges and the days between them (instead of three queries), whole months from the
 * rollup: income and spending of `current` and of `previous` (same rules as
 * getIncomeAndSpending) and the spending per category of `current` (same groups and total as
 * getSpendingByGroup(…, "category"), largest first, then by key). The statement sums each
 * currency and category per range (three sums filtered by date alone); which categories are
 * income and which spending is then the categories' own kind (rules.ts, categoryKind), not a
 * category list tested on every row in SQL (0.87 → 0.61 ms per call on PostgreSQL, 1.32 → 0.99
 * on PGlite, heavy user).
 */
export async function getPeriodComparison(
  db: Database,
  userId: string,
  current: DateRange,
  previous: DateRange,
  /** Today in the user's timezone (rollups.ts `splitRange`). */
  today?: string,
  /** Only these accounts (lib/finance/scope.ts `scopedAccountIds`); undefined for all. */
  accountIds?: string[],
): Promise<PeriodComparison[]> {
  const from = countedRows(userId, spanOf([current, previous]), {
    accountIds,
    cuts: [current, previous],
    byCategory: true,
    today,
  });
  const rows = await periodComparisonQuery(db, from).execute({
    ...from.values,
    ...rangeValues("range", [current, previous]),
  });
  return groupByCurrency(rows, (r) => r.currency).map(([currency, ofCurrency]) => {
    const out: PeriodComparison = {
      currency,
      current: { incomeCents: 0, spendingCents: 0 },
      previous: { incomeCents: 0, spendingCents: 0 },
      categories: { groups: [], totalCents: 0 },
    };
    for (const r of ofCurrency) {
      const kind = categoryKind(r.category);
      if (kind === "transfer") continue;
      const now = toCents(r.current);
      const then = toCents(r.previous);
      if (kind === "income") {
        out.current.incomeCents += now;
        out.previous.incomeCents += then;
        continue;
      }
      out.current.spendingCents -= now;
      out.previous.spendingCents -= then;
      const count = toCents(r.currentCount);
      // A category is a spending group when the current range has rows in it.
      if (count === 0) continue;
      out.categories.groups.push({
        currency,
        key: r.category,
        label: categoryLabel(r.category),
        cents: 0 - now,
        count,
      });
      out.categories.totalCents -= now;
    }
    out.categories.groups.sort((a, b) => b.cents - a.cents || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return out;
  });
}

export const CASH_FLOW_INTERVALS = ["month", "week"] as const;
export type CashFlowInterval = (typeof CASH_FLOW_INTERVALS)[number];

export interface CashFlowBucket extends CashFlowFigures {
  /** First and last day of the bucket, clamped to the range. */
  start: string;
  end: string;
  /** YYYY-MM, or the Monday of the week. */
  label: string;
  /** Cut by the range (not a whole month or Monday–Sunday week), or still running today. */
  partial: boolean;
}

/** Monday of the ISO week `date` is in. */
function startOfWeek(date: string): string {
  const day = new Date(`${date}T00:00:00Z`).getUTCDay(); // 0 = Sunday
  return addDays(date, -((day + 6) % 7));
}

/** Every bucket of the range in order, including empty ones. */
export function bucketsOf(
  range: DateRange,
  interval: CashFlowInterval,
): Array<{ start: string; end: string; key: string }> {
  const buckets: Array<{ start: string; end: string; key: string }> = [];
  let first = interval === "month" ? startOfMonth(range.start) : startOfWeek(range.start);
  while (first <= range.end) {
    const next = interval === "month" ? addMonths(first, 1) : addDays(first, 7);
    const last = interval === "month" ? endOfMonth(first) : addDays(first, 6);
    buckets.push({
      key: interval === "month" ? first.slice(0, 7) : first,
      // ISO dates compare as strings; clamp the bucket to the range.
      start: [first, range.start].sort()[1] ?? first,
      end: [last, range.end].sort()[0] ?? last,
    });
    first = next;
  }
  return buckets;
}

/** Whether a bucket of `bucketsOf` is cut by the range: not from a month's 1st to its last day, or not Monday to Sunday. */
function isCut(b: { start: string; end: string; key: string }, interval: CashFlowInterval): boolean {
  return interval === "month"
    ? b.start !== `${b.key}-01` || b.end !== endOfMonth(b.start)
    : b.start !== b.key || b.end !== addDays(b.key, 6);
}

/** The cash flow of one currency over a range. */
export interface CashFlow extends CashFlowFigures {
  currency: string;
  buckets: CashFlowBucket[];
  topIncomeSources: Array<{ source: string; cents: number; count: number }>;
}

/** Income and spending per currency and bucket (`getCashFlow`), for an interval and a shape of `counted`. */
const cashFlowBucketsQuery = perDatabaseVariant(
  (v: { interval: CashFlowInterval; counted: Counted }) => `${v.interval} ${v.counted.key}`,
  (db, { interval, counted: from }) => {
    // Grouped by the truncated date and formatted once per bucket: formatting every row (to_char
    // per row before grouping) cost twice as much on PGlite (16 ms → 9.5 ms for 6 months of the
    // heavy user). The literals are raw so the select and GROUP BY expressions match.
    const c = counted;
    const bucket = sql`date_trunc(${sql.raw(interval === "month" ? "'month'" : "'week'")}, ${c.date}::timestamp)`;
    return db
      .select({
        currency: sql<string>`${c.currency}`,
        key: sql<string>`to_char(${bucket}, ${sql.raw(interval === "month" ? "'YYYY-MM'" : "'YYYY-MM-DD'")})`,
        income: incomeSum(c.amount, c.category),
        spending: spendingSum(c.amount, c.category),
      })
      .from(from.from())
      .groupBy(c.currency, bucket)
      .having(sql`sum(${c.n}) > 0`)
      .prepare("");
  },
);

/** The top 5 income sources of each currency (`getCashFlow`; a window rank, so one query for all currencies). */
const incomeSourcesQuery = perDatabaseVariant(
  (from: Counted) => from.key,
  (db, from) => {
    const c = counted;
    const source = sql<string>`${c.merchant}`;
    return db
      .select({
        currency: sql<string>`${c.currency}`,
        source,
        income: sql<string>`sum(${c.amount})`,
        count: sql<string>`sum(${c.n})`,
        rank: sql<string>`row_number() over (partition by ${c.currency} order by sum(${c.amount}) desc, ${source})`,
      })
      .from(from.from())
      .where(isIncome(c.category))
      .groupBy(c.currency, source)
      .having(sql`sum(${c.n}) > 0`)
      .orderBy(c.currency, sql`3 desc`, source)
      .prepare("");
  },
);

/**
 * Income and spending per month or week over the range, plus the top 5 income sources, per
 * currency (code order) of the counted rows in the range; every bucket of the range is listed for
 * each currency, empty ones included. No rows: no currency, an empty list.
 */
export async function getCashFlow(
  db: Database,
  userId: string,
  range: DateRange,
  interval: CashFlowInterval,
  accountIds: string[] | undefined,
  /** Today in the user's timezone: a bucket reaching it is partial. */
  today: string,
): Promise<CashFlow[]> {
  const all = bucketsOf(range, interval);
  // Cut by the buckets: whole months for months, the days' sums for weeks (no week holds a whole
  // month); the rows themselves only with an account filter.
  const buckets = countedRows(userId, range, { accountIds, cuts: all, byCategory: true, today });
  // Over the whole range: sources are not per bucket, so nothing is cut.
  const bySource = countedRows(userId, range, { accountIds, byMerchant: true, today, kind: "income" });
  const [rows, sources] = await Promise.all([
    cashFlowBucketsQuery(db, { interval, counted: buckets }).execute(buckets.values),
    incomeSourcesQuery(db, bySource).execute(bySource.values),
  ]);
  return groupByCurrency(rows, (r) => r.currency).map(([currency, ofCurrency]) => {
    const byKey = new Map(ofCurrency.map((r) => [r.key, r]));
    let incomeCents = 0;
    let spendingCents = 0;
    const buckets = all.map((b) => {
      const row = byKey.get(b.key);
      const income = toCents(row?.income);
      const spending = toCents(row?.spending);
      incomeCents += income;
      spendingCents += spending;
      return {
        start: b.start,
        end: b.end,
        label: b.key,
        partial: b.end >= today || isCut(b, interval),
        ...withSavingsRate({ incomeCents: income, spendingCents: spending }),
      };
    });
    const topIncomeSources = sources
      .filter((s) => s.currency === currency && toCents(s.rank) <= 5)
      .map((s) => ({ source: s.source, cents: toCents(s.income), count: toCents(s.count) }));
    return { currency, buckets, ...withSavingsRate({ incomeCents, spendingCents }), topIncomeSources };
  });
}

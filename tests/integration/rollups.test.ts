/**
 * The monthly rollup `transaction_months` equals the raw aggregation of `transactions` after every
 * kind of write (sync with pending rows replaced by posted ones, random inserts, updates of every
 * rolled-up column, deletes, an account removed), and the rebuild gives the same rollup. The
 * answers that read the rollup for whole months (search summary, cash flow, spending by category
 * and by merchant, overview) equal plain TypeScript sums of the raw rows for ranges with and
 * without partial months, and over a multi-year range they read `transactions` by index only for
 * the days around the whole months.
 */
import { and, eq, like, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { syncDatabaseFor } from "@/db";
import { fixedStatement, runFixed } from "@/db/fixed-statement";
import { bankAccounts, transactions } from "@/db/schema";
import { syncConnection } from "@/lib/banking/connections";
import { categoryKind } from "@/lib/finance/categories";
import { addDays, addMonths, startOfMonth } from "@/lib/finance/periods";
import { countedRows, rollupPieces, splitRange, wholeMonths } from "@/lib/finance/rollups";
import { bucketsOf } from "@/lib/finance/spending";
import { executeRows } from "@/lib/finance/sql";
import { getCashFlowTool } from "@/lib/mcp/tools/get-cash-flow";
import { getFinancialOverviewTool } from "@/lib/mcp/tools/get-financial-overview";
import { getSpendingBreakdownTool } from "@/lib/mcp/tools/get-spending-breakdown";
import { searchTransactionsTool } from "@/lib/mcp/tools/search-transactions";
import { useTestDatabase } from "../helpers/db";
import { linkSandboxBank } from "../helpers/fixtures";
import { addAccount, addConnection, callTool, cents, contextFor, createUser, random } from "./tools-helpers";

const getDb = useTestDatabase();
const LINKED = new Date("2025-09-10T12:00:00Z");
const NOW = new Date("2025-11-10T12:00:00Z");

/** Rollup rows with something in them, and the same aggregation of the raw rows, both as text. */
async function compare(userId: string) {
  const db = getDb();
  const keys = "account_id, month, category, merchant, currency, pending, is_transfer";
  const rolled = await executeRows(
    db,
    sql`select ${sql.raw(keys)}, inflow_minor::text as i, outflow_minor::text as o, count, inflow_count, outflow_count
        from transaction_months where user_id = ${userId} and count <> 0 order by ${sql.raw(keys)}`,
  );
  const raw = await executeRows(
    db,
    sql`select account_id, date_trunc('month', date::timestamp)::date as month, category,
          coalesce(merchant_name, name) as merchant, currency, pending, is_transfer,
          coalesce(sum(amount_minor) filter (where amount_minor > 0), 0)::text as i,
          coalesce(sum(amount_minor) filter (where amount_minor < 0), 0)::text as o,
          count(*)::int as count, (count(*) filter (where amount_minor > 0))::int as inflow_count,
          (count(*) filter (where amount_minor < 0))::int as outflow_count
        from transactions where user_id = ${userId} group by 1, 2, 3, 4, 5, 6, 7 order by ${sql.raw(keys)}`,
  );
  const norm = (rows: Array<Record<string, unknown>>) =>
    rows.map((r) =>
      Object.fromEntries(
        Object.entries(r).map(([k, v]) => [k, String(v instanceof Date ? v.toISOString().slice(0, 10) : v)]),
      ),
    );
  // The totals over accounts, categories and merchants, against the same sums of the raw rows.
  const totalKeys = "month, currency, pending, is_transfer";
  const totals = await executeRows(
    db,
    sql`select ${sql.raw(totalKeys)}, inflow_minor::text as i, outflow_minor::text as o, count, inflow_count, outflow_count
        from transaction_month_totals where user_id = ${userId} and count <> 0 order by ${sql.raw(totalKeys)}`,
  );
  const rawTotals = await executeRows(
    db,
    sql`select date_trunc('month', date::timestamp)::date as month, currency, pending, is_transfer,
          coalesce(sum(amount_minor) filter (where amount_minor > 0), 0)::text as i,
          coalesce(sum(amount_minor) filter (where amount_minor < 0), 0)::text as o,
          count(*)::int as count, (count(*) filter (where amount_minor > 0))::int as inflow_count,
          (count(*) filter (where amount_minor < 0))::int as outflow_count
        from transactions where user_id = ${userId} group by 1, 2, 3, 4 order by ${sql.raw(totalKeys)}`,
  );
  expect(norm(totals).length).toBeGreaterThan(0);
  expect(norm(totals)).toEqual(norm(rawTotals));
  // The category and text months, the days and the merchant spans, against the same sums of the
  // raw rows.
  const month = "date_trunc('month', date::timestamp)::date as month";
  const merchant = "coalesce(merchant_name, name) as merchant";
  // Each: the rollup's rows (a FROM and WHERE to which the user is added), its dimensions, and
  // the same dimensions of the raw rows.
  const rollups: Array<[string, string, string]> = [
    ["transaction_category_months where", "month, category", month],
    ["transaction_days where", "date, category", "date"],
    [
      "transaction_text_months where",
      "month, category, search_text, account_id",
      `${month}, search_text, account_id`,
    ],
    ...(["day", "month", "quarter"] as const).map((span): [string, string, string] => [
      `transaction_merchant_spans where span = '${span}' and`,
      "start, category, merchant",
      `${span === "day" ? "date" : `date_trunc('${span}', date::timestamp)::date`} as start, ${merchant}`,
    ]),
  ];
  for (const [from, dimensions, ofRows] of rollups) {
    const all = `${dimensions}, currency, pending, is_transfer`;
    const kept = await executeRows(
      db,
      sql`select ${sql.raw(all)}, inflow_minor::text as i, outflow_minor::text as o, count, inflow_count, outflow_count
          from ${sql.raw(from)} user_id = ${userId} and count <> 0 order by ${sql.raw(all)}`,
    );
    const summed = await executeRows(
      db,
      sql`select * from (select ${sql.raw(ofRows)}, category, currency, pending, is_transfer,
            coalesce(sum(amount_minor) filter (where amount_minor > 0), 0)::text as i,
            coalesce(sum(amount_minor) filter (where amount_minor < 0), 0)::text as o,
            count(*)::int as count, (count(*) filter (where amount_minor > 0))::int as inflow_count,
            (count(*) filter (where amount_minor < 0))::int as outflow_count
          from transactions where user_id = ${userId}
          group by ${sql.raw(all)}) as summed order by ${sql.raw(all)}`,
    );
    expect(norm(kept).length, from).toBeGreaterThan(0);
    expect(norm(kept), from).toEqual(norm(summed));
  }
  // The charges kept as repeating an earlier one, against the same test in plain TypeScript.
  const charges = (
    await executeRows(
      db,
      sql`select id, account_id, amount_minor::text as amount, coalesce(merchant_name, name) as merchant,
            date::text as date, is_transfer, provider_transaction_id, pending_transaction_id
          from transactions where user_id = ${userId}`,
    )
  ).map((r) => ({
    id: String(r.id),
    account: String(r.account_id),
    amount: Number(r.amount),
    merchant: String(r.merchant),
    date: String(r.date),
    transfer: r.is_transfer === true,
    providerId: String(r.provider_transaction_id),
    pendingId: r.pending_transaction_id === null ? null : String(r.pending_transaction_id),
  }));
  const dayBefore = (date: string) =>
    new Date(Date.parse(`${date}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
  const repeating = charges
    .filter(
      (t) =>
        t.amount < 0 &&
        !t.transfer &&
        charges.some(
          (o) =>
            o.id !== t.id &&
            o.account === t.account &&
            o.amount === t.amount &&
            o.merchant === t.merchant &&
            !o.transfer &&
            o.date >= dayBefore(t.date) &&
            (o.date < t.date || (o.date === t.date && o.id < t.id)) &&
            o.providerId !== t.pendingId &&
            o.pendingId !== t.providerId,
        ),
    )
    .map((t) => `${t.id} ${t.date}`)
    .sort();
  const kept = (
    await executeRows(
      db,
      sql`select transaction_id, date::text as date from transaction_repeats where user_id = ${userId}`,
    )
  )
    .map((r) => `${String(r.transaction_id)} ${String(r.date)}`)
    .sort();
  expect(kept).toEqual(repeating);
  return { rolled: norm(rolled), raw: norm(raw), repeats: repeating.length };
}

interface Row {
  date: string;
  amount: number;
  currency: string;
  category: string;
  merchant: string;
  transfer: boolean;
}

/** Ranges of cash flow and spending: whole months, partial edge months, inside one month. */
const RANGES = [
  { start: "2023-10-01", end: "2025-09-30" },
  { start: "2023-10-17", end: "2025-11-04" },
  { start: "2025-03-01", end: "2025-08-14" },
  { start: "2025-05-03", end: "2025-05-20" },
  // Ends on the 27th: July is read whole less its last four days (rows there are subtracted).
  { start: "2024-02-10", end: "2025-07-27" },
  // The year to today (the 10th), against the year before: each first November is the month less
  // its first ten days, dated the 11th; this November the month less its days to come.
  { start: "2024-11-11", end: "2025-11-10" },
];

const byFirst = <T extends [string, ...unknown[]]>(a: T, b: T) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

/** Per key of `rows`: [key, sum of the amounts times `sign`, count], in key order. */
function sums(rows: Row[], keyOf: (r: Row) => string, sign = 1): Array<[string, number, number]> {
  const totals = new Map<string, [number, number]>();
  for (const r of rows) {
    const [sum, count] = totals.get(keyOf(r)) ?? [0, 0];
    totals.set(keyOf(r), [sum + sign * r.amount, count + 1]);
  }
  return [...totals].map(([key, [sum, count]]): [string, number, number] => [key, sum, count]).sort(byFirst);
}

/**
 * Cash flow, spending by category and by merchant over RANGES and the overview's flows equal
 * sums of the raw rows computed here, by the rules of lib/finance/rules.ts: transfers excluded,
 * income = money of income categories, spending = − money of spending categories.
 */
async function expectAnswersFromRows(userId: string, label: string) {
  const db = getDb();
  const rows: Row[] = (
    await executeRows(
      db,
      sql`select date::text as date, amount_minor::text as amount, currency, category,
            coalesce(merchant_name, name) as merchant, is_transfer from transactions where user_id = ${userId}`,
    )
  ).map((r) => ({
    date: String(r.date),
    amount: Number(r.amount),
    currency: String(r.currency),
    category: String(r.category),
    merchant: String(r.merchant),
    transfer: r.is_transfer === true,
  }));
  const counted = (range: { start: string; end: string }, kind?: string) =>
    rows.filter(
      (r) =>
        !r.transfer &&
        r.date >= range.start &&
        r.date <= range.end &&
        (!kind || categoryKind(r.category) === kind),
    );
  const ctx = await contextFor(db, userId, NOW);
  for (const range of RANGES) {
    const at = `${label} ${range.start}..${range.end}`;
    const currencies = [...new Set(counted(range).map((r) => r.currency))].sort();
    const of = (list: Array<[string, number, number]>, key: string) =>
      list.find((e) => e[0] === key)?.[1] ?? 0;
    const day = (d: string) => new Date(`${d}T00:00:00Z`);
    const plusDays = (d: string, n: number) =>
      new Date(day(d).getTime() + n * 86_400_000).toISOString().slice(0, 10);
    // A bucket's label: YYYY-MM, or the Monday of the week.
    const bucketOf = {
      month: (d: string) => d.slice(0, 7),
      week: (d: string) => plusDays(d, -((day(d).getUTCDay() + 6) % 7)),
    };
    for (const interval of ["week", "month"] as const) {
      const flow = (
        await callTool(getCashFlowTool, { start_date: range.start, end_date: range.end, interval }, ctx)
      ).data;
      const labels = new Set<string>();
      for (let d = range.start; d <= range.end; d = plusDays(d, 1)) labels.add(bucketOf[interval](d));
      const keyOf = (r: Row) => `${r.currency} ${bucketOf[interval](r.date)}`;
      const income = sums(counted(range, "income"), keyOf);
      const spending = sums(counted(range, "spending"), keyOf, -1);
      expect(
        flow.intervals.map((i) => [i.currency, i.label, cents(i.income), cents(i.spending)]),
        `${at} ${interval}`,
      ).toEqual(
        currencies.flatMap((c) =>
          [...labels].map((l) => [c, l, of(income, `${c} ${l}`), of(spending, `${c} ${l}`)]),
        ),
      );
      const sources = sums(counted(range, "income"), (r) => `${r.currency}\u0000${r.merchant}`);
      expect(
        flow.top_income_sources.map((s) => [s.currency, s.source, cents(s.amount), s.count]),
        `${at} ${interval}`,
      ).toEqual(
        currencies.flatMap((c) =>
          sources
            .filter(([key]) => key.startsWith(`${c}\u0000`))
            .sort((a, b) => b[1] - a[1] || byFirst(a, b))
            .slice(0, 5)
            .map(([key, sum, count]) => [c, key.split("\u0000")[1], sum, count]),
        ),
      );
    }
    for (const groupBy of ["category", "merchant"] as const) {
      const out = (
        await callTool(
          getSpendingBreakdownTool,
          { group_by: groupBy, start_date: range.start, end_date: range.end, top_n: 50 },
          ctx,
        )
      ).data;
      const previous = out.previous_range ?? range;
      const keyOf = (r: Row) => `${r.currency}\u0000${groupBy === "category" ? r.category : r.merchant}`;
      // Per currency: the groups largest first, the top 50 listed and the rest in `other`.
      const now = sums(counted(range, "spending"), keyOf, -1).sort((a, b) => b[1] - a[1] || byFirst(a, b));
      const then = sums(counted(previous, "spending"), keyOf, -1);
      const inCurrency = (list: typeof now, c: string) => list.filter(([k]) => k.startsWith(`${c}\u0000`));
      const total = (list: typeof now) => list.reduce((n, e) => n + e[1], 0);
      const spent = [...new Set([...now, ...then].map(([k]) => k.split("\u0000")[0] as string))].sort();
      expect(
        out.groups.map((g) => [
          `${g.currency}\u0000${g.key}`,
          cents(g.amount),
          g.count,
          g.previous_amount === null ? null : cents(g.previous_amount),
        ]),
        `${at} ${groupBy}`,
      ).toEqual(
        spent.flatMap((c) =>
          inCurrency(now, c)
            .slice(0, 50)
            .map(([k, sum, n]) => [k, sum, n, then.find((e) => e[0] === k)?.[1] ?? 0]),
        ),
      );
      expect(
        out.totals.map((t) => [
          t.currency,
          cents(t.total_spending),
          cents(t.previous_total_spending ?? Number.NaN),
          t.other && [t.other.groups, cents(t.other.amount), t.other.count],
        ]),
        `${at} ${groupBy}`,
      ).toEqual(
        spent.map((c) => {
          const rest = inCurrency(now, c).slice(50);
          const other = [rest.length, total(rest), rest.reduce((n, e) => n + e[2], 0)];
          return [c, total(inCurrency(now, c)), total(inCurrency(then, c)), rest.length > 0 ? other : null];
        }),
      );
    }
  }
  for (const period of ["this_month", "year_to_date", "last_12_months", "last_year"]) {
    const out = (await callTool(getFinancialOverviewTool, { period }, ctx)).data;
    const span = [out.period, out.previous_period].flatMap((r) => [r.start, r.end]).sort();
    // The sandbox accounts hold USD; the other currencies are those of the rows.
    expect(
      out.totals.map((t) => t.currency),
      `${label} ${period}`,
    ).toEqual(
      [
        ...new Set(["USD", ...counted({ start: span[0] ?? "", end: span[3] ?? "" }).map((r) => r.currency)]),
      ].sort(),
    );
    for (const t of out.totals) {
      const flowOf = (r: { start: string; end: string }) => {
        const ofCurrency = counted(r).filter((x) => x.currency === t.currency);
        return {
          income: ofCurrency
            .filter((x) => categoryKind(x.category) === "income")
            .reduce((n, x) => n + x.amount, 0),
          categories: sums(
            ofCurrency.filter((x) => categoryKind(x.category) === "spending"),
            (x) => x.category,
            -1,
          ),
        };
      };
      const now = flowOf(out.period);
      const then = flowOf(out.previous_period);
      const spending = (f: typeof now) => f.categories.reduce((n, e) => n + e[1], 0);
      expect(
        [t.current, t.previous].map((f) => [cents(f.income), cents(f.spending)]),
        `${label} ${period} ${t.currency}`,
      ).toEqual([
        [now.income, spending(now)],
        [then.income, spending(then)],
      ]);
      expect(
        t.top_categories.map((c) => [c.category, cents(c.amount)]),
        `${label} ${period} ${t.currency}`,
      ).toEqual(
        now.categories
          .sort((a, b) => b[1] - a[1] || byFirst(a, b))
          .slice(0, 5)
          .map(([k, sum]) => [k, sum]),
      );
    }
  }
}

describe("the rollup follows every write", () => {
  let userId = "";
  let connectionId = "";
  beforeAll(async () => {
    userId = await createUser(getDb());
    // A fixed seed whose data has pending rows on the day of linking (a random one may have none).
    connectionId = (await linkSandboxBank(getDb(), userId, "ins_platypus", LINKED, "rollups-1")).connection
      .id;
  }, 60_000);

  it("after the first sync, and after a later sync that posts pending rows", async () => {
    const first = await compare(userId);
    expect(first.rolled.length).toBeGreaterThan(20);
    expect(first.rolled).toEqual(first.raw);
    await expectAnswersFromRows(userId, "first sync");
    const pendingBefore = await executeRows(
      getDb(),
      sql`select count(*)::int as n from transactions where user_id = ${userId} and pending`,
    );
    await syncConnection(getDb(), connectionId, { now: NOW });
    const later = await compare(userId);
    expect(later.rolled).toEqual(later.raw);
    expect(Number(pendingBefore[0]?.n)).toBeGreaterThan(0);
    await expectAnswersFromRows(userId, "later sync");
  }, 60_000);

  it("after random inserts, updates of every rolled-up column and deletes", async () => {
    const db = getDb();
    const next = random(42);
    const accounts = (
      await db.select({ id: bankAccounts.id }).from(bankAccounts).where(eq(bankAccounts.userId, userId))
    ).map((a) => a.id);
    const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)] as T;
    // Removed rows leave rollup rows of zero: no answer may list their currency (GBP) or source.
    const gone = [
      { name: "Stays AG", currency: "CHF", category: "income", amountMinor: 700 },
      { name: "Gone AG", currency: "CHF", category: "income", amountMinor: 500 },
      { name: "Gone Ltd", currency: "GBP", category: "groceries", amountMinor: -500 },
    ];
    await db.insert(transactions).values(
      gone.map((g, i) => ({
        ...g,
        userId,
        accountId: accounts[0] as string,
        providerTransactionId: `gone-${i}`,
        date: "2025-04-10",
      })),
    );
    await db
      .delete(transactions)
      .where(and(eq(transactions.userId, userId), like(transactions.name, "Gone%")));
    for (let round = 0; round < 12; round++) {
      // A charge and its repeat a day later, and a pending charge with its posted row (no repeat).
      const day = `2025-${String(1 + Math.floor(next() * 11)).padStart(2, "0")}-${String(1 + Math.floor(next() * 27)).padStart(2, "0")}`;
      const twice = {
        userId,
        accountId: pick(accounts),
        name: "Twice",
        amountMinor: -1_234 - round,
        category: "shopping",
      };
      await db.insert(transactions).values([
        { ...twice, providerTransactionId: `twice-${round}-a`, date: day },
        { ...twice, providerTransactionId: `twice-${round}-b`, date: addDays(day, next() < 0.5 ? 0 : 1) },
        {
          ...twice,
          providerTransactionId: `posted-${round}`,
          pendingTransactionId: `pending-${round}`,
          date: day,
          name: "Posted",
        },
      ]);
      await db.insert(transactions).values({
        ...twice,
        providerTransactionId: `pending-${round}`,
        pending: true,
        date: day,
        name: "Posted",
      });
      // The first of a pair removed, or changed to another amount: its repeat is no longer one.
      if (round % 3 === 2)
        await db.delete(transactions).where(eq(transactions.providerTransactionId, `twice-${round}-a`));
      if (round % 3 === 1)
        await db
          .update(transactions)
          .set({ amountMinor: -99 })
          .where(eq(transactions.providerTransactionId, `twice-${round}-a`));
      await db.insert(transactions).values(
        Array.from({ length: 5 }, (_, i) => ({
          userId,
          accountId: pick(accounts),
          providerTransactionId: `random-${round}-${i}`,
          date: `2025-${String(1 + Math.floor(next() * 11)).padStart(2, "0")}-${String(1 + Math.floor(next() * 28)).padStart(2, "0")}`,
          name: "Random",
          merchantName: next() < 0.5 ? pick(["Corner Shop", "Acme Payroll"]) : null,
          amountMinor: Math.round((next() - 0.5) * 20_000),
          currency: next() < 0.2 ? "EUR" : "USD",
          category: pick(["groceries", "income", "transfer", "shopping"]),
          pending: next() < 0.3,
          isTransfer: next() < 0.2,
        })),
      );
      const ids = (
        await executeRows(
          db,
          // Not the pairs above: their changes are the ones written there.
          sql`select id from transactions where user_id = ${userId} and name not in ('Twice', 'Posted')
              order by md5(id || ${String(round)}) limit 7`,
        )
      ).map((r) => String(r.id));
      await db.execute(sql`update transactions set amount_minor = -amount_minor where id = ${ids[0]}`);
      await db.execute(sql`update transactions set date = date - 40 where id = ${ids[1]}`);
      await db.execute(sql`update transactions set category = 'fees', currency = 'EUR' where id = ${ids[2]}`);
      await db.execute(
        sql`update transactions set pending = not pending, is_transfer = not is_transfer where id = ${ids[3]}`,
      );
      await db.execute(sql`update transactions set account_id = ${pick(accounts)} where id = ${ids[4]}`);
      await db.execute(sql`delete from transactions where id = ${ids[5]}`);
      await db.execute(
        sql`update transactions set merchant_name = ${`Renamed ${round}`} where id = ${ids[6]}`,
      );
      const { rolled, raw, repeats } = await compare(userId);
      expect(repeats, `round ${round}`).toBeGreaterThan(0);
      expect(rolled, `round ${round}`).toEqual(raw);
      if (round % 4 === 3) await expectAnswersFromRows(userId, `round ${round}`);
    }
  }, 60_000);

  it("rebuilds to the same rollup, and drops an account's months with it", async () => {
    const db = getDb();
    const before = await compare(userId);
    await db.execute(sql`select ledgerlink_rebuild_transaction_months()`);
    expect((await compare(userId)).rolled).toEqual(before.rolled);
    const [account] = await db
      .select({ id: bankAccounts.id })
      .from(bankAccounts)
      .where(eq(bankAccounts.userId, userId));
    await db.delete(bankAccounts).where(eq(bankAccounts.id, account?.id ?? ""));
    const after = await compare(userId);
    expect(after.rolled).toEqual(after.raw);
    expect(after.rolled.some((r) => r.account_id === account?.id)).toBe(false);
    await expectAnswersFromRows(userId, "account removed");
  }, 60_000);
});

describe("the search summary over whole months", () => {
  it("finds the whole months of a range", () => {
    expect(wholeMonths({ start: "2025-01-01", end: "2025-03-31" })).toEqual({
      first: "2025-01-01",
      last: "2025-03-01",
    });
    expect(wholeMonths({ start: "2025-01-02", end: "2025-03-30" })).toEqual({
      first: "2025-02-01",
      last: "2025-02-01",
    });
    expect(wholeMonths({ start: "2025-01-15", end: "2025-02-14" })).toBeNull();
    expect(wholeMonths({ start: "2024-02-01", end: "2024-02-29" })).toEqual({
      first: "2024-02-01",
      last: "2024-02-01",
    });
  });

  it("splits a range into whole months and the days around them, the months no cut divides", () => {
    // Each edge read as the fewer days: January 15-31 as January less its first 14 days (dated the
    // 15th, the first day the range holds of it), April 1-10 as days.
    expect(splitRange({ start: "2025-01-15", end: "2025-04-10" }, [])).toEqual({
      months: [{ start: "2025-01-01", end: "2025-03-31" }],
      days: [{ start: "2025-04-01", end: "2025-04-10" }],
      minus: [{ start: "2025-01-01", end: "2025-01-14", dated: "2025-01-15" }],
      redated: [{ month: "2025-01-01", dated: "2025-01-15" }],
    });
    // Days from a month's 1st, more of them than the rest of the month: the month less the rest.
    expect(splitRange({ start: "2025-01-17", end: "2025-04-27" }, [])).toEqual({
      months: [{ start: "2025-02-01", end: "2025-04-30" }],
      days: [{ start: "2025-01-17", end: "2025-01-31" }],
      minus: [{ start: "2025-04-28", end: "2025-04-30", dated: "2025-04-01" }],
      redated: [],
    });
    expect(splitRange({ start: "2025-11-01", end: "2025-11-25" }, [])).toEqual({
      months: [{ start: "2025-11-01", end: "2025-11-30" }],
      days: [],
      minus: [{ start: "2025-11-26", end: "2025-11-30", dated: "2025-11-01" }],
      redated: [],
    });
    // Inside one month, less the days on both sides when they are fewer.
    expect(splitRange({ start: "2025-11-03", end: "2025-11-27" }, [])).toEqual({
      months: [{ start: "2025-11-01", end: "2025-11-30" }],
      days: [],
      minus: [
        { start: "2025-11-01", end: "2025-11-02", dated: "2025-11-03" },
        { start: "2025-11-28", end: "2025-11-30", dated: "2025-11-03" },
      ],
      redated: [{ month: "2025-11-01", dated: "2025-11-03" }],
    });
    // The last 12 months against the 12 before, from the 11th: each year's first November days
    // (the 11th-30th) are November less its first ten days, dated the 11th, so that they count in
    // that year; the last ten days of each year are days. 40 days of rows instead of 60.
    const current = { start: "2024-11-11", end: "2025-11-10" };
    const previous = { start: "2023-11-11", end: "2024-11-10" };
    expect(splitRange({ start: previous.start, end: current.end }, [current, previous])).toEqual({
      months: [{ start: "2023-11-01", end: "2025-10-31" }],
      days: [
        { start: "2024-11-01", end: "2024-11-10" },
        { start: "2025-11-01", end: "2025-11-10" },
      ],
      minus: [
        { start: "2023-11-01", end: "2023-11-10", dated: "2023-11-11" },
        { start: "2024-11-01", end: "2024-11-10", dated: "2024-11-11" },
      ],
      redated: [
        { month: "2023-11-01", dated: "2023-11-11" },
        { month: "2024-11-01", dated: "2024-11-11" },
      ],
    });
    // On the 10th itself: the days to come hold no rows, so this November is the month less them.
    expect(splitRange({ start: previous.start, end: current.end }, [current, previous], current.end)).toEqual(
      {
        months: [{ start: "2023-11-01", end: "2025-11-30" }],
        days: [{ start: "2024-11-01", end: "2024-11-10" }],
        minus: [
          { start: "2023-11-01", end: "2023-11-10", dated: "2023-11-11" },
          { start: "2024-11-01", end: "2024-11-10", dated: "2024-11-11" },
          { start: "2025-11-11", end: "2025-11-30", dated: "2025-11-01" },
        ],
        redated: [
          { month: "2023-11-01", dated: "2023-11-11" },
          { month: "2024-11-01", dated: "2024-11-11" },
        ],
      },
    );
    // Weeks: February 2021 runs Monday 1st to Sunday 28th, yet no week holds all of it.
    const february = { start: "2021-02-01", end: "2021-02-28" };
    expect(splitRange(february, bucketsOf(february, "week"))).toEqual({
      months: [],
      days: [february],
      minus: [],
      redated: [],
    });
    expect(splitRange(february, bucketsOf(february, "month"))).toEqual({
      months: [february],
      days: [],
      minus: [],
      redated: [],
    });
  });

  it("reads a sum as quarters, runs of months and days that cover each day once, in its cut", () => {
    // A rolling year against the year before, on the 26th: by merchant, the quarters no cut
    // divides, the months around them, the edge days; the November cut on the 27th is that month
    // less its last days. By category, the months in one run.
    const current = { start: "2025-11-27", end: "2026-11-26" };
    const previous = { start: "2024-11-27", end: "2025-11-26" };
    const listed = (quarters: boolean) =>
      rollupPieces({ start: previous.start, end: current.end }, [current, previous], current.end, {
        quarters,
      }).map((p) => `${p.span} ${p.start}${p.end === p.start ? "" : `..${p.end}`} ${p.sign}`);
    const days = [
      "day 2024-11-27..2024-11-30 1",
      "day 2025-11-27..2025-11-30 1",
      "day 2025-11-27..2025-11-30 -1",
      "day 2026-11-27..2026-11-30 -1",
    ];
    expect(listed(true)).toEqual([
      "month 2024-12-01 1",
      "quarter 2025-01-01 1",
      "quarter 2025-04-01 1",
      "quarter 2025-07-01 1",
      "month 2025-10-01..2025-12-01 1",
      "quarter 2026-01-01 1",
      "quarter 2026-04-01 1",
      "quarter 2026-07-01 1",
      "month 2026-10-01..2026-11-01 1",
      ...days,
    ]);
    expect(listed(false)).toEqual(["month 2024-12-01..2026-11-01 1", ...days]);
    // Random ranges, cuts (or none) and days: every day of the range counts once in its own cut
    // (the signs of the pieces that hold it, dated in that cut, sum to 1; in any other cut, to 0),
    // no other day counts, and every piece is dated in the range.
    const next = random(11);
    const dayOf = (n: number) => addDays("2023-01-01", n);
    for (let round = 0; round < 150; round++) {
      const start = dayOf(Math.floor(next() * 900));
      const range = { start, end: addDays(start, Math.floor(next() * 800)) };
      const cutsAt = [
        range.start,
        ...Array.from({ length: Math.floor(next() * 3) }, () =>
          addDays(range.start, Math.floor(next() * 800)),
        ),
      ]
        .filter((d) => d <= range.end)
        .sort();
      const cuts = (round % 5 === 0 ? [] : cutsAt)
        .map((c, i) => ({
          start: c,
          end: i + 1 < cutsAt.length ? addDays(cutsAt[i + 1] ?? c, -1) : range.end,
        }))
        .filter((c) => c.start <= c.end);
      const today = next() < 0.5 ? undefined : addDays(range.start, Math.floor(next() * 900));
      const counted = new Map<string, number>();
      const cutOf = (d: string) => cuts.findIndex((c) => c.start <= d && d <= c.end);
      const within = (d: string) => d >= range.start && d <= range.end;
      const quarters = round % 2 === 0;
      for (const p of rollupPieces(range, cuts, today, { quarters })) {
        expect(within(p.dated ?? p.start), `${JSON.stringify({ range, cuts, today, p })}`).toBe(true);
        if (!quarters) expect(p.span).not.toBe("quarter");
        const last = p.span === "day" ? p.end : addDays(addMonths(p.end, p.span === "quarter" ? 3 : 1), -1);
        for (let d = p.start; d <= last; d = addDays(d, 1)) {
          // A quarter, or a month, dated as itself: each of its rows on its own month's first day.
          const dated = p.dated ?? (p.span === "day" ? d : p.span === "month" ? startOfMonth(d) : p.start);
          const key = `${d} ${cutOf(dated)}`;
          counted.set(key, (counted.get(key) ?? 0) + p.sign);
        }
      }
      for (const [key, n] of counted) {
        const [d = "", cut] = key.split(" ");
        expect(n, `${JSON.stringify({ range, cuts, today })} ${key}`).toBe(
          within(d) && Number(cut) === cutOf(d) ? 1 : 0,
        );
      }
      for (let d = range.start; d <= range.end; d = addDays(d, 1))
        expect(counted.get(`${d} ${cutOf(d)}`)).toBe(1);
    }
  });

  it("equals the sum of the raw rows for every rollable filter, text query and range", async () => {
    const db = getDb();
    const userId = await createUser(db);
    await linkSandboxBank(db, userId, "ins_platypus", NOW, "rollups-2");
    await linkSandboxBank(db, userId, "ins_tartan", NOW, "rollups-2");
    const rows = (
      await executeRows(
        db,
        sql`select account_id, date::text as date, amount_minor::text as amount, currency, category, pending, is_transfer,
              coalesce(merchant_name, '') || chr(31) || name as text
            from transactions where user_id = ${userId}`,
      )
    ).map((r) => ({
      // What a text query matches, folded (case and accents) in plain TypeScript.
      text: String(r.text)
        .normalize("NFD")
        .replace(/\p{Mn}/gu, "")
        .toLowerCase(),
      account: String(r.account_id),
      date: String(r.date),
      amount: Number(r.amount),
      currency: String(r.currency),
      category: String(r.category),
      pending: r.pending === true,
      transfer: r.is_transfer === true,
    }));
    // Text queries: part of the commonest name, and of a name in one account only.
    const names = new Map<string, number>();
    for (const r of rows) {
      const name = r.text.split("\u001f")[1] ?? "";
      names.set(name, (names.get(name) ?? 0) + 1);
    }
    const commonest = [...names].sort((a, b) => b[1] - a[1])[0]?.[0];
    const word = (commonest ?? "").split(/\s+/)[0]?.slice(1, 5) ?? "";
    // An account with money out under that name (the generated history differs between runs).
    const account =
      rows
        .filter((r) => r.amount < 0 && r.text.includes(word.toLowerCase()))
        .sort((a, b) => b.date.localeCompare(a.date))[0]?.account ?? "";
    const otherRow = rows.find((r) => r.account !== account);
    const other = otherRow?.text.split("\u001f")[1]?.slice(0, 6) ?? "";
    expect(word.length).toBeGreaterThan(2);
    const cases: Array<Record<string, unknown>> = [
      {},
      { start_date: "2025-03-01", end_date: "2025-08-31" },
      { start_date: "2025-03-17", end_date: "2025-08-04" },
      { start_date: "2025-05-03", end_date: "2025-05-20" },
      { period: "last_month" },
      { period: "last_12_months", direction: "outflow" },
      { direction: "inflow", include_pending: false },
      { exclude_transfers: true, start_date: "2025-02-11" },
      { categories: ["groceries", "restaurants"], start_date: "2025-01-01", end_date: "2025-06-30" },
      { account_ids: [account], direction: "outflow", start_date: "2024-12-31", end_date: "2025-10-01" },
      { query: word.toUpperCase() },
      // Two letters: no trigram to look up, the summary reads the user's text months.
      { query: word.slice(0, 2), period: "last_12_months" },
      { query: word, start_date: "2025-03-17", end_date: "2025-08-04", include_pending: false },
      { query: word, account_ids: [account], direction: "outflow" },
      { query: other, exclude_transfers: true, period: "last_12_months" },
      { query: other, categories: [otherRow?.category, "income"], start_date: "2025-02-11" },
    ];
    const ctx = await contextFor(db, userId, NOW);
    for (const args of cases) {
      const out = await callTool(searchTransactionsTool, { ...args, limit: 1 }, ctx);
      const range = out.data.range;
      const selected = rows.filter(
        (r) =>
          (!range || (r.date >= range.start && r.date <= range.end)) &&
          (args.direction !== "inflow" || r.amount > 0) &&
          (args.direction !== "outflow" || r.amount < 0) &&
          (args.include_pending !== false || !r.pending) &&
          (!args.exclude_transfers || !r.transfer) &&
          (!args.categories || (args.categories as string[]).includes(r.category)) &&
          (!args.account_ids || (args.account_ids as string[]).includes(r.account)) &&
          (!args.query || r.text.includes(String(args.query).toLowerCase())),
      );
      const want = [...new Set(selected.map((r) => r.currency))].sort().map((currency) => {
        const of = selected.filter((r) => r.currency === currency);
        const inflow = of.filter((r) => r.amount > 0).reduce((n, r) => n + r.amount, 0);
        const outflow = of.filter((r) => r.amount < 0).reduce((n, r) => n + r.amount, 0);
        return { currency, count: of.length, inflow, outflow };
      });
      const got = out.data.summary.totals.map((t) => ({
        currency: t.currency,
        count: t.count,
        inflow: Math.round(t.inflow * 100),
        outflow: Math.round(t.outflow * 100),
      }));
      expect(got, JSON.stringify(args)).toEqual(want);
      expect(
        want.reduce((n, w) => n + w.count, 0),
        JSON.stringify(args),
      ).toBeGreaterThan(0);
    }
  }, 60_000);
});

describe("plans over a multi-year range", () => {
  it("read `transactions` by index only for the days around the whole months, never by category", async () => {
    const db = getDb();
    const userId = await createUser(db);
    const account = await addAccount(db, userId, await addConnection(db, userId), {
      name: "Checking",
      type: "depository",
      balance: 0,
    });
    // 20,000 rows over ten years at 60 merchants, one in seven income.
    // A bulk load, like a bank's first sync: through the sync pool and its longer statement bound.
    await syncDatabaseFor(db).execute(sql`
      insert into transactions (id, user_id, account_id, provider_transaction_id, date, name, merchant_name, amount_minor, category)
      select md5(${userId} || g::text), ${userId}, ${account}, 'p' || g, date '2025-11-01' - (g % 3650), 'POS PURCHASE',
             'Merchant ' || (g % 60), -(100 + g % 5000), case when g % 7 = 0 then 'income' else 'groceries' end
      from generate_series(1, 20000) as g`);
    await db.execute(sql`analyze transactions`);
    await db.execute(sql`analyze transaction_months`);
    await db.execute(sql`analyze transaction_category_months`);
    await db.execute(sql`analyze transaction_days`);
    await db.execute(sql`analyze transaction_merchant_spans`);
    const months = { start: "2023-12-01", end: "2025-11-01" };
    const current = { start: "2024-11-02", end: "2025-11-01" };
    const previous = { start: "2023-11-02", end: "2024-11-01" };
    // As get_cash_flow (24 months to date, cut by its months), get_spending_breakdown over ten
    // years with partial edge months, and the overview of 12 months against the 12 before.
    const cases: Array<[{ start: string; end: string }, Array<{ start: string; end: string }>]> = [
      [months, bucketsOf(months, "month")],
      [{ start: "2015-11-15", end: "2025-10-20" }, []],
      [{ start: previous.start, end: current.end }, [current, previous]],
    ];
    const planOf = async (counted: ReturnType<typeof countedRows>) =>
      (
        await runFixed(
          db,
          fixedStatement(
            sql`explain select counted.currency, sum(counted.amount), sum(counted.n) from ${counted.from()} group by 1`,
          ),
          counted.values,
        )
      )
        .map((r) => Object.values(r)[0])
        .join("\n");
    for (const [range, cuts] of cases) {
      // By merchant or account: the monthly rollup and the rows of the days around it.
      const plan = await planOf(countedRows(userId, range, { cuts }));
      expect(plan, range.start).toContain("transaction_months");
      expect(plan, range.start).toMatch(/Index Scan (using|on) transactions_/);
      expect(plan, range.start).not.toMatch(/Seq Scan on transactions/);
      // By category: the category months and the days' sums, never the rows.
      const byCategory = await planOf(countedRows(userId, range, { cuts, byCategory: true }));
      expect(byCategory, range.start).toContain("transaction_category_months");
      expect(byCategory, range.start).toContain("transaction_days");
      expect(byCategory, range.start).not.toMatch(/on transactions\b|transactions_/);
      // By merchant: each piece's rows of the merchant rollups by their key, never a whole table.
      const byMerchant = await planOf(countedRows(userId, range, { cuts, byMerchant: true }));
      expect(byMerchant, range.start).toMatch(/Index Scan (using|on) transaction_merchant_spans_/);
      expect(byMerchant, range.start).not.toMatch(/Seq Scan|on transactions\b|transactions_/);
      // Income sources: the index skips the other categories' rows in each piece.
      const income = await planOf(countedRows(userId, range, { cuts, byMerchant: true, kind: "income" }));
      expect(income, range.start).toMatch(/Index Cond: .*category = ANY/);
    }
  }, 60_000);
});

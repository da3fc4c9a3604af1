/**
 * Unusual activity: transactions worth a second look, each with the reason and what is typical.
 * Transfers between own accounts are never findings. Kinds and their rules:
 * - `large`: money out at least 3× the median outflow of the same category and currency over the
 *   365 days before the range (at least 5 such outflows), and at least 100 units of the currency;
 * - `duplicate`: the same amount at the same merchant on the same account within one day of an
 *   earlier charge (the pending and posted versions of one charge are not duplicates);
 * - `new_merchant`: the first charge at a merchant never seen before the range;
 * - `fees`: bank fees and interest charged;
 * - `price_increase`: a recurring charge whose price went up inside the range (the first charge at
 *   the higher price is in the range; typical = the old price).
 * Each kind's count is over all its matches; the list is cut to `limit`. A finding's typical
 * amount is in its transaction's currency.
 */
import { type SQL, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { type FixedStatement, fixedStatement, runFixed } from "@/db/fixed-statement";
import { EXPONENTS, formatMoney } from "./currency";
import { toCents, toCentsOrNull } from "./money";
import type { DateRange } from "./periods";
import { listStreams } from "./recurring";
import { type AccountScope, ALL_ACCOUNTS, scopedAccountIds } from "./scope";
import { text } from "./sql";

export const UNUSUAL_KINDS = ["duplicate", "large", "fees", "price_increase", "new_merchant"] as const;
export type UnusualKind = (typeof UNUSUAL_KINDS)[number];

export interface Finding {
  kind: UnusualKind;
  reason: string;
  transaction: {
    id: string | null;
    date: string;
    amountCents: number;
    currency: string;
    merchant: string;
    category: string;
    account: string;
  };
  typicalCents: number | null;
}

interface RawRow {
  id: string;
  date: string;
  amount: unknown;
  currency: string;
  merchant: string;
  category: string;
  account: string;
  typical: unknown;
  total: unknown;
}

const SELECT_TXN = sql.raw(
  `t.id, t.date::text as date, t.amount_minor::text as amount, t.currency, coalesce(t.merchant_name, t.name) as merchant,
   t.category, a.name as account`,
);

async function rows(
  db: Database,
  statement: FixedStatement,
  values: Record<string, unknown>,
): Promise<RawRow[]> {
  return (await runFixed(db, statement, values)).map((r) => ({
    id: text(r, "id"),
    date: text(r, "date"),
    amount: r.amount,
    currency: text(r, "currency"),
    merchant: text(r, "merchant"),
    category: text(r, "category"),
    account: text(r, "account"),
    typical: r.typical,
    total: r.total,
  }));
}

/**
 * The values of every statement below, as placeholders: each is rendered once per process
 * (db/fixed-statement.ts), as the caller's statement is, not built anew on every call.
 */
const at = {
  user: sql.placeholder("user"),
  start: sql.placeholder("start"),
  end: sql.placeholder("end"),
  limit: sql.placeholder("limit"),
  accounts: sql.placeholder("accounts"),
};
const base = sql`t.user_id = ${at.user} and t.date between ${at.start}::date and ${at.end}::date and not t.is_transfer`;
/** The rows of the call's accounts only (lib/finance/scope.ts), for the statements of a scoped call. */
const ofAccounts = (alias: string) => sql`and ${sql.raw(alias)}.account_id = any(${at.accounts}::text[])`;

// 100 units of each currency in its minor units (10^exponent × 100), computed once per
// category and currency with its threshold rather than for every charge (a 25-branch CASE
// per row cost PGlite 20 ms on the heavy user's 30 days).
const largeFloor = sql`100 * power(10, case hist.currency ${sql.raw(
  Object.entries(EXPONENTS)
    .map(([code, exponent]) => `when '${code}' then ${exponent}`)
    .join(" "),
)} else 2 end)`;

/**
 * Large charges against the typical ones: stored per person (`category_typicals`), or for a scoped
 * call computed from its accounts' rows as `ledgerlink_typicals` computes them (migration 0007).
 */
const largeStatement = (scoped: boolean) =>
  fixedStatement(
    sql`with hist as (${
      scoped
        ? sql`
          select h.category, h.currency,
            percentile_cont(0.5) within group (order by -h.amount_minor) as typical, count(*) as n
          from transactions h
          where h.user_id = ${at.user} and h.date >= ${at.start}::date - 365 and h.date < ${at.start}::date
            and h.amount_minor < 0 and not h.is_transfer ${ofAccounts("h")}
          group by h.category, h.currency`
        : sql`
          select c.category, c.currency, c.typical_minor::float8 as typical, c.count as n
          from category_typicals c where c.user_id = ${at.user} and c.anchor = ${at.start}::date
          union all
          select h.category, h.currency, h.typical, h.n from ledgerlink_typicals(${at.user}, ${at.start}::date) h
          where not exists (
            select 1 from category_typicals c where c.user_id = ${at.user} and c.anchor = ${at.start}::date
          )`
    }
        )
        , thresholds as materialized (
          select hist.category, hist.currency, hist.typical, greatest(3 * hist.typical, ${largeFloor}) as threshold
          from hist where hist.n >= 5
        )
        select ${SELECT_TXN}, round(hist.typical)::bigint::text as typical, count(*) over () as total
        from transactions t
        join bank_accounts a on a.id = t.account_id
        join thresholds hist on hist.category = t.category and hist.currency = t.currency
        where ${base} ${scoped ? ofAccounts("t") : sql``} and t.amount_minor <= -ceil(hist.threshold)::bigint
        order by t.amount_minor asc, t.id
        limit ${at.limit}`,
  );

/** Repeated charges (`transaction_repeats`: a repeat is of the same account, so a scope just filters). */
const duplicatesStatement = (scoped: boolean) =>
  fixedStatement(
    sql`select ${SELECT_TXN}, (-t.amount_minor)::text as typical, count(*) over () as total
        from transaction_repeats r
        join transactions t on t.id = r.transaction_id
        join bank_accounts a on a.id = t.account_id
        where r.user_id = ${at.user} and r.date between ${at.start}::date and ${at.end}::date
          ${scoped ? ofAccounts("t") : sql``}
        order by t.date desc, t.id
        limit ${at.limit}`,
  );

/** The first charge of each merchant first seen in the range: the merchant's first row of any kind. */
const firstCharge = (scoped: boolean, key: SQL) => sql`cross join lateral (
          select ${SELECT_TXN}, null::text as typical
          from transactions t
          join bank_accounts a on a.id = t.account_id
          where ${base} ${scoped ? ofAccounts("t") : sql``} and t.amount_minor < 0
            and lower(coalesce(t.merchant_name, t.name)) = ${key}
          order by t.date, t.id
          limit 1
        ) f`;

/**
 * New merchants: first seen over all of the person's rows (`merchant_first_seen`), or, for a
 * scoped call, over its accounts' rows: merchants charged in the range on those accounts with no
 * earlier row there.
 */
const newMerchantsStatement = (scoped: boolean) =>
  fixedStatement(
    scoped
      ? sql`select f.*, count(*) over () as total
        from (
          select distinct lower(coalesce(t.merchant_name, t.name)) as merchant_key
          from transactions t
          where ${base} ${ofAccounts("t")} and t.amount_minor < 0
        ) m
        ${firstCharge(true, sql`m.merchant_key`)}
        where not exists (
          select 1 from transactions e
          where e.user_id = ${at.user} and lower(coalesce(e.merchant_name, e.name)) = m.merchant_key
            and e.date < ${at.start}::date ${ofAccounts("e")}
        )
        order by f.date desc, f.id
        limit ${at.limit}`
      : sql`select f.*, count(*) over () as total
        from merchant_first_seen m
        ${firstCharge(false, sql`m.merchant_key`)}
        where m.user_id = ${at.user} and m.first_date between ${at.start}::date and ${at.end}::date
        order by f.date desc, f.id
        limit ${at.limit}`,
  );

const feesStatement = (scoped: boolean) =>
  fixedStatement(
    sql`select ${SELECT_TXN}, null::text as typical, count(*) over () as total
        from transactions t
        join bank_accounts a on a.id = t.account_id
        where ${base} ${scoped ? ofAccounts("t") : sql``}
          and t.category in ('fees', 'interest_charged') and t.amount_minor < 0
        order by t.date desc, t.id
        limit ${at.limit}`,
  );

/** Each kind's statement, unscoped and scoped, rendered once per process. */
const statementsOf = (scoped: boolean) => ({
  large: largeStatement(scoped),
  duplicate: duplicatesStatement(scoped),
  new_merchant: newMerchantsStatement(scoped),
  fees: feesStatement(scoped),
});
const UNSCOPED = statementsOf(false);
const SCOPED = statementsOf(true);

/** Findings of the asked kinds in the range, with per-kind counts over all matches. */
export async function findUnusualActivity(
  db: Database,
  userId: string,
  range: DateRange,
  kinds: readonly UnusualKind[],
  limit: number,
  scope: AccountScope = ALL_ACCOUNTS,
): Promise<{ findings: Finding[]; counts: Partial<Record<UnusualKind, number>> }> {
  const want = new Set(kinds);
  const accounts = scopedAccountIds(scope);
  const values = { user: userId, start: range.start, end: range.end, limit, accounts };
  const {
    large: LARGE,
    duplicate: DUPLICATES,
    new_merchant: NEW_MERCHANTS,
    fees: FEES,
  } = accounts === undefined ? UNSCOPED : SCOPED;

  const tasks: Array<Promise<{ kind: UnusualKind; rows: RawRow[] }>> = [];
  if (want.has("large")) {
    // The typical amounts stored by sync for this range's start (db/schema.ts `categoryTypicals`),
    // or, when none are stored for it, the same medians computed from the rows: the scan below
    // the `not exists` runs only then (a one-time filter).
    tasks.push(rows(db, LARGE, values).then((r) => ({ kind: "large" as const, rows: r })));
  }
  if (want.has("duplicate")) {
    // The charges that repeat an earlier one, kept by triggers (db/schema.ts `transactionRepeats`):
    // a few rows of the range instead of sorting every charge in it (heavy user, last 30 days:
    // 1,678 charges sorted per call).
    tasks.push(rows(db, DUPLICATES, values).then((r) => ({ kind: "duplicate" as const, rows: r })));
  }
  if (want.has("new_merchant")) {
    // Merchants whose first transaction of all (db/schema.ts `merchantFirstSeen`, kept by
    // triggers) is in the range, each with its first charge there: a merchant with a charge in
    // the range and no earlier transaction has its first date in the range.
    tasks.push(rows(db, NEW_MERCHANTS, values).then((r) => ({ kind: "new_merchant" as const, rows: r })));
  }
  if (want.has("fees")) {
    tasks.push(rows(db, FEES, values).then((r) => ({ kind: "fees" as const, rows: r })));
  }

  // Every kind's query, the recurring streams included, goes out together: one round trip.
  const [results, streams] = await Promise.all([
    Promise.all(tasks),
    want.has("price_increase")
      ? listStreams(db, userId, { direction: "outflow", status: "all", today: range.end }, scope)
      : null,
  ]);
  const findings: Finding[] = [];
  const counts: Partial<Record<UnusualKind, number>> = {};
  for (const { kind, rows: found } of results) {
    counts[kind] = found.length > 0 ? toCents(found[0]?.total) : 0;
    for (const r of found) {
      const amountCents = toCents(r.amount);
      const typicalCents = toCentsOrNull(r.typical);
      const reason =
        kind === "large"
          ? `${formatMoney(-amountCents, r.currency)} is more than 3× the typical ${r.category} charge of ${formatMoney(typicalCents ?? 0, r.currency)}.`
          : kind === "duplicate"
            ? `Same amount at the same merchant on the same account within a day of another charge: possibly charged twice.`
            : kind === "new_merchant"
              ? "First charge at this merchant."
              : r.category === "interest_charged"
                ? "Interest charged."
                : "Bank fee.";
      findings.push({
        kind,
        reason,
        transaction: {
          id: r.id,
          date: r.date,
          amountCents,
          currency: r.currency,
          merchant: r.merchant,
          category: r.category,
          account: r.account,
        },
        // Typical amounts carry the transaction's sign (money out negative).
        typicalCents: kind === "large" && typicalCents !== null ? -typicalCents : null,
      });
    }
  }

  if (streams) {
    let count = 0;
    for (const s of streams) {
      const since = s.priceChangedOn;
      if (s.previousCents === null || !since || since < range.start || since > range.end) continue;
      // Outflow amounts are negative: a higher price is a more negative amount.
      if (s.lastCents >= s.previousCents) continue;
      count++;
      findings.push({
        kind: "price_increase",
        reason: `${s.merchant} went from ${formatMoney(-s.previousCents, s.currency)} to ${formatMoney(-s.lastCents, s.currency)} per charge.`,
        transaction: {
          id: s.priceChangeTransactionId,
          date: since,
          amountCents: s.lastCents,
          currency: s.currency,
          merchant: s.merchant,
          category: s.category,
          account: s.accountName,
        },
        typicalCents: s.previousCents,
      });
    }
    counts.price_increase = count;
  }

  const order = new Map(UNUSUAL_KINDS.map((k, i) => [k, i]));
  findings.sort(
    (a, b) =>
      (order.get(a.kind) ?? 0) - (order.get(b.kind) ?? 0) ||
      b.transaction.date.localeCompare(a.transaction.date) ||
      a.transaction.amountCents - b.transaction.amountCents,
  );
  return { findings: findings.slice(0, limit), counts };
}

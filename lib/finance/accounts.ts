/**
 * Accounts, balances and net worth.
 *
 * Rules: credit and loan accounts are liabilities; their balances are stored (and shown) as
 * positive amounts owed. Every other type (depository, investment, other) is an asset.
 * Net worth = assets − liabilities, summed in SQL over open accounts, once per currency (amounts
 * of two currencies are never added; there is no conversion). Closed accounts are left
 * out of current totals. History comes from the daily balance snapshots written by sync: at each
 * point, every account's latest snapshot on or before that date (an account with no snapshot yet
 * contributes nothing), so history starts at the first snapshot.
 */
import { and, eq, inArray, type Placeholder, type SQL, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { fixedStatement, perDatabase, runFixed } from "@/db/fixed-statement";
import type { AccountType } from "@/db/schema";
import { balanceSnapshots, bankAccounts, bankConnections, netWorthDays } from "@/db/schema";
import { groupByCurrency } from "./currency";
import { toCents, toCentsOrNull } from "./money";
import { addDays, addMonths, datesUntil, endOfMonth } from "./periods";
import { type AccountScope, ALL_ACCOUNTS, inScope, inScopeOf, scopedAccountIds } from "./scope";
import { text } from "./sql";

export const ACCOUNT_TYPES = [
  "depository",
  "credit",
  "loan",
  "investment",
  "other",
] as const satisfies readonly AccountType[];

export function isLiabilityType(type: string): boolean {
  return type === "credit" || type === "loan";
}

export interface AccountRow {
  id: string;
  name: string;
  officialName: string | null;
  mask: string | null;
  type: AccountType;
  subtype: string | null;
  currency: string;
  currentCents: number | null;
  availableCents: number | null;
  limitCents: number | null;
  isClosed: boolean;
  balanceAsOf: Date | null;
  connectionId: string;
  institution: string;
  connectionStatus: string;
}

/** The select of `listAccounts` under `conditions`, in its order. */
function accountsQuery(db: Database, conditions: SQL | undefined) {
  return db
    .select({
      id: bankAccounts.id,
      name: bankAccounts.name,
      officialName: bankAccounts.officialName,
      mask: bankAccounts.mask,
      type: bankAccounts.type,
      subtype: bankAccounts.subtype,
      currency: bankAccounts.currency,
      current: bankAccounts.currentBalanceMinor,
      available: bankAccounts.availableBalanceMinor,
      limit: bankAccounts.limitMinor,
      isClosed: bankAccounts.isClosed,
      balanceAsOf: bankAccounts.balanceAsOf,
      connectionId: bankAccounts.connectionId,
      institution: bankConnections.institutionName,
      connectionStatus: bankConnections.status,
    })
    .from(bankAccounts)
    .innerJoin(bankConnections, eq(bankConnections.id, bankAccounts.connectionId))
    .where(conditions)
    .orderBy(bankConnections.institutionName, bankAccounts.type, bankAccounts.name, bankAccounts.id);
}

/** The most frequent question (every open account: list_accounts' defaults, the overview), built once. */
const openAccounts = perDatabase((db) =>
  accountsQuery(
    db,
    and(eq(bankAccounts.userId, sql.placeholder("userId")), eq(bankAccounts.isClosed, false)),
  ).prepare(""),
);

/** The user's accounts with their institution, ordered by institution, type and name. */
export async function listAccounts(
  db: Database,
  userId: string,
  options: {
    types?: AccountType[] | undefined;
    connectionId?: string | undefined;
    includeClosed?: boolean;
    /** The call's accounts (lib/finance/scope.ts). */
    scope?: AccountScope;
  } = {},
): Promise<AccountRow[]> {
  let rows: Awaited<ReturnType<typeof accountsQuery>>;
  const scoped = options.scope ? inScope(options.scope, bankAccounts.id) : undefined;
  if ((options.types?.length ?? 0) === 0 && !options.connectionId && !options.includeClosed && !scoped) {
    rows = await openAccounts(db).execute({ userId });
  } else {
    const conditions: SQL[] = [eq(bankAccounts.userId, userId)];
    if (options.types && options.types.length > 0) conditions.push(inArray(bankAccounts.type, options.types));
    if (options.connectionId) conditions.push(eq(bankAccounts.connectionId, options.connectionId));
    if (!options.includeClosed) conditions.push(eq(bankAccounts.isClosed, false));
    if (scoped) conditions.push(scoped);
    rows = await accountsQuery(db, and(...conditions));
  }
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    officialName: r.officialName,
    mask: r.mask,
    type: r.type,
    subtype: r.subtype,
    currency: r.currency,
    currentCents: toCentsOrNull(r.current),
    availableCents: toCentsOrNull(r.available),
    limitCents: toCentsOrNull(r.limit),
    isClosed: r.isClosed,
    balanceAsOf: r.balanceAsOf,
    connectionId: r.connectionId,
    institution: r.institution,
    connectionStatus: r.connectionStatus,
  }));
}

/** Assets, liabilities and net of a list of accounts, per currency (code order), in its minor units. */
interface AccountSums {
  currency: string;
  assetsCents: number;
  liabilitiesCents: number;
  netCents: number;
}

/**
 * Sums of `accounts` (the complete list, never a page), once per currency: liability balances
 * are positive amounts owed, so net = assets − liabilities. An unknown balance counts as 0.
 */
export function sumAccounts(accounts: readonly AccountRow[]): AccountSums[] {
  return groupByCurrency(accounts, (a) => a.currency).map(([currency, ofCurrency]) => {
    let assetsCents = 0;
    let liabilitiesCents = 0;
    for (const a of ofCurrency) {
      if (isLiabilityType(a.type)) liabilitiesCents += a.currentCents ?? 0;
      else assetsCents += a.currentCents ?? 0;
    }
    return { currency, assetsCents, liabilitiesCents, netCents: assetsCents - liabilitiesCents };
  });
}

/** Current balances of one currency (minor units of `currency`). */
export interface BalanceTotals {
  currency: string;
  assetsCents: number;
  liabilitiesCents: number;
  netWorthCents: number;
  byType: Array<{ type: AccountType; cents: number; count: number }>;
}

/** Open accounts' balances summed by currency and type, of the user and (scoped) accounts `where` adds. */
function balanceTotalsQuery(db: Database, userId: Placeholder | string, where?: SQL) {
  return db
    .select({
      currency: bankAccounts.currency,
      type: bankAccounts.type,
      cents: sql<string>`coalesce(sum(${bankAccounts.currentBalanceMinor}), 0)`,
      count: sql<string>`count(*)`,
    })
    .from(bankAccounts)
    .where(and(eq(bankAccounts.userId, userId), eq(bankAccounts.isClosed, false), where))
    .groupBy(bankAccounts.currency, bankAccounts.type)
    .orderBy(bankAccounts.currency, bankAccounts.type);
}

const balanceTotals = perDatabase((db) => balanceTotalsQuery(db, sql.placeholder("userId")).prepare(""));
const scopedBalanceTotals = perDatabase((db) =>
  balanceTotalsQuery(db, sql.placeholder("userId"), inScopeOf(bankAccounts.id)).prepare(""),
);

/**
 * Current balances summed in SQL by currency and account type over open accounts (net worth
 * now): one entry per currency, in code order.
 */
export async function getBalanceTotals(
  db: Database,
  userId: string,
  scope: AccountScope = ALL_ACCOUNTS,
): Promise<BalanceTotals[]> {
  const accounts = scopedAccountIds(scope);
  const rows = accounts
    ? await scopedBalanceTotals(db).execute({ userId, accounts })
    : await balanceTotals(db).execute({ userId });
  return groupByCurrency(rows, (r) => r.currency).map(([currency, ofCurrency]) => {
    let assetsCents = 0;
    let liabilitiesCents = 0;
    const byType = ofCurrency.map((r) => {
      const cents = toCents(r.cents);
      if (isLiabilityType(r.type)) liabilitiesCents += cents;
      else assetsCents += cents;
      return { type: r.type, cents, count: toCents(r.count) };
    });
    return { currency, assetsCents, liabilitiesCents, netWorthCents: assetsCents - liabilitiesCents, byType };
  });
}

export interface NetWorthPoint {
  date: string;
  currency: string;
  assetsCents: number;
  liabilitiesCents: number;
  netWorthCents: number;
}

export const NET_WORTH_INTERVALS = ["month", "week", "day", "none"] as const;
type NetWorthInterval = (typeof NET_WORTH_INTERVALS)[number];

/** Dates of the history points: each interval's last day after `months` ago, ending with today. */
function historyDates(today: string, months: number, interval: NetWorthInterval): string[] {
  if (interval === "none") return [];
  const start = addMonths(today, -months);
  const dates: string[] = [];
  if (interval === "day") {
    dates.push(...datesUntil(addDays(start, 1), today));
  } else if (interval === "week") {
    // Sundays (ends of ISO weeks).
    const dow = new Date(`${start}T00:00:00Z`).getUTCDay();
    for (let d = addDays(start, (7 - dow) % 7 || 7); d < today; d = addDays(d, 7)) dates.push(d);
  } else {
    for (let d = endOfMonth(start); d < today; d = endOfMonth(addMonths(d, 1))) dates.push(d);
  }
  dates.push(today);
  return dates;
}

/**
 * Net worth now (`getBalanceTotals`) and its history at each interval's end over the last
 * `months`, from the first balance snapshot on (earlier points are left out; none without
 * snapshots). One round trip: the history is read for every date and cut after.
 */
export async function getNetWorth(
  db: Database,
  userId: string,
  options: { today: string; months: number; interval: NetWorthInterval; scope?: AccountScope },
): Promise<{ totals: BalanceTotals[]; history: NetWorthPoint[]; historyStart: string | null }> {
  const scope = options.scope ?? ALL_ACCOUNTS;
  const [totals, historyStart, points] = await Promise.all([
    getBalanceTotals(db, userId, scope),
    getHistoryStart(db, userId, scope),
    getNetWorthHistory(
      db,
      userId,
      historyDates(options.today, options.months, options.interval),
      options.interval === "day",
      scope,
    ),
  ]);
  const history = historyStart ? points.filter((p) => p.date >= historyStart) : [];
  return { totals, history, historyStart };
}

const historyStartQuery = (db: Database, scoped?: SQL) =>
  db
    .select({ first: sql<string | null>`min(${balanceSnapshots.date})::text` })
    .from(balanceSnapshots)
    .where(and(eq(balanceSnapshots.userId, sql.placeholder("userId")), scoped))
    .prepare("");
const historyStart = perDatabase((db) => historyStartQuery(db));
const scopedHistoryStart = perDatabase((db) => historyStartQuery(db, inScopeOf(balanceSnapshots.accountId)));

/** The first snapshot date of the user's accounts in `scope`, or null when there is no history yet. */
async function getHistoryStart(db: Database, userId: string, scope: AccountScope): Promise<string | null> {
  const accounts = scopedAccountIds(scope);
  const [row] = accounts
    ? await scopedHistoryStart(db).execute({ userId, accounts })
    : await historyStart(db).execute({ userId });
  return row?.first ?? null;
}

/** The three statements of `getNetWorthHistory`, rendered once (db/fixed-statement.ts). */
const [dailyHistory, scopedDailyHistory, datesHistory, scopedDatesHistory] = (() => {
  const p = sql.placeholder;
  const s = balanceSnapshots;
  const n = netWorthDays;
  // Each account's latest snapshot on or before a date, summed per currency as assets and liabilities.
  const latestOn = (date: SQL) => sql`cross join lateral (
        select ${s.currentBalanceMinor} as bal from ${s}
        where ${s.accountId} = a.id and ${s.date} <= ${date}
        order by ${s.date} desc
        limit 1
      ) latest`;
  const balances = sql`coalesce(sum(latest.bal) filter (where a.type not in ('credit', 'loan')), 0)::text as assets,
        coalesce(sum(latest.bal) filter (where a.type in ('credit', 'loan')), 0)::text as liabilities`;
  // One row per currency, each point's index among the dates and values joined by commas: a year
  // of days is three strings to split, not JSON to build and parse (aggregating a year of the heavy
  // user's days on PGlite: 1.2 ms as JSON, 0.5 as text).
  const points = (rows: SQL) =>
    fixedStatement(sql`select q.currency, string_agg(q.at::text, ',') as at,
      string_agg(q.assets, ',') as assets, string_agg(q.liabilities, ',') as liabilities
    from (${rows}) as q group by q.currency`);
  const atDates = (scoped: SQL) =>
    points(sql`
      select p.i - 1 as at, a.currency, ${balances}
      from unnest(${p("dates")}::date[]) with ordinality as p(d, i)
      cross join ${bankAccounts} a
      ${latestOn(sql`p.d`)}
      where a.user_id = ${p("user")} ${scoped}
      group by p.i, p.d, a.currency`);
  const ofScope = sql`and a.id = any(${p("accounts")}::text[])`;
  return [
    points(sql`
      select 0 as at, a.currency, ${balances}
      from ${bankAccounts} a
      ${latestOn(sql`${p("first")}::date`)}
      where a.user_id = ${p("user")}
      group by a.currency
      union all
      select ${n.date} - ${p("first")}::date, ${n.currency}, ${n.assetsMinor}::text, ${n.liabilitiesMinor}::text
      from ${n}
      where ${n.userId} = ${p("user")} and ${n.date} > ${p("first")}::date and ${n.date} <= ${p("last")}::date`),
    // The scope's accounts: the daily rollup sums every account, so each account's own snapshots
    // are read by its (account, date) index, from its last one on or before the first day (at
    // index 0) to the last day, as a string of balances: its balance on each day is the latest of
    // them, carried forward in `getNetWorthHistory`. One row per account, no sort nor grouping of
    // the year's rows (six accounts' year on PostgreSQL: 1.5 ms; summing their daily changes in
    // SQL: 3.5–6).
    fixedStatement(sql`select a.currency, a.type, c.at, c.balances
      from ${bankAccounts} a
      cross join lateral (
        select string_agg(greatest(${s.date} - ${p("first")}::date, 0)::text, ',' order by ${s.date}) as at,
          string_agg(${s.currentBalanceMinor}::text, ',' order by ${s.date}) as balances
        from ${s}
        where ${s.accountId} = a.id and ${s.date} <= ${p("last")}::date and ${s.date} >= coalesce(
          (select max(b.date) from ${s} b where b.account_id = a.id and b.date <= ${p("first")}::date),
          ${p("first")}::date)
      ) c
      where a.user_id = ${p("user")} ${ofScope} and c.at is not null`),
    atDates(sql``),
    atDates(ofScope),
  ];
})();

/**
 * Assets and liabilities at each date and in each currency (latest snapshot per account on or
 * before it), ordered by currency then date. One query. Every currency of the user's accounts has
 * a point at every date (zero before its first snapshot).
 * - Few dates (weeks, months): a look-up on the snapshot primary key per account and date.
 * - Every day of a range (`daily`, consecutive dates): the balances on the first day (a look-up
 *   per account, as above), then how much they changed on each later day, kept per day and
 *   currency by a trigger on the snapshots (`net_worth_days`), added up day after day here: a row
 *   per day instead of one per account and day (12 months of a 10-account user: 365 rows instead
 *   of 3,650 sorted and grouped). The rollup sums every account: for a scope, each of its
 *   accounts' snapshots over the range, carried forward day by day here.
 */
async function getNetWorthHistory(
  db: Database,
  userId: string,
  dates: string[],
  daily: boolean,
  scope: AccountScope,
): Promise<NetWorthPoint[]> {
  const first = dates[0];
  const last = dates[dates.length - 1];
  if (first === undefined || last === undefined) return [];
  const accounts = scopedAccountIds(scope);
  if (daily && accounts) {
    // One row per account: its balance on each day is its latest snapshot on or before it.
    const rows = await runFixed(db, scopedDailyHistory, { user: userId, first, last, accounts });
    const sums = new Map<string, CurrencySeries>();
    for (const r of rows) {
      const currency = text(r, "currency");
      let series = sums.get(currency);
      if (!series) {
        series = {
          currency,
          assetsAt: new Array(dates.length).fill(0),
          liabilitiesAt: new Array(dates.length).fill(0),
        };
        sums.set(currency, series);
      }
      const into = isLiabilityType(text(r, "type")) ? series.liabilitiesAt : series.assetsAt;
      const at = text(r, "at").split(",");
      const balances = text(r, "balances").split(",");
      let next = 0;
      let balance = 0;
      for (let i = 0; i < dates.length; i++) {
        while (next < at.length && Number(at[next]) <= i) balance = toCents(balances[next++]);
        into[i] = (into[i] ?? 0) + balance;
      }
    }
    return historyPoints(dates, [...sums.values()], false);
  }
  const rows = daily
    ? await runFixed(db, dailyHistory, { user: userId, first, last })
    : accounts
      ? await runFixed(db, scopedDatesHistory, { user: userId, dates, accounts })
      : await runFixed(db, datesHistory, { user: userId, dates });
  const series = rows.map((r) => {
    const at = text(r, "at").split(",");
    const assets = text(r, "assets").split(",");
    const liabilities = text(r, "liabilities").split(",");
    const assetsAt = new Array<number>(dates.length).fill(0);
    const liabilitiesAt = new Array<number>(dates.length).fill(0);
    at.forEach((i, k) => {
      assetsAt[Number(i)] = toCents(assets[k]);
      liabilitiesAt[Number(i)] = toCents(liabilities[k]);
    });
    return { currency: text(r, "currency"), assetsAt, liabilitiesAt };
  });
  // Daily rows are changes: the balance of a day is the sum of the changes up to it.
  return historyPoints(dates, series, daily);
}

/** A currency's assets and liabilities at each of the dates (or their changes on each). */
interface CurrencySeries {
  currency: string;
  assetsAt: number[];
  liabilitiesAt: number[];
}

/** The points of `series`, ordered by currency then date; `changes`: each value adds to the one before. */
function historyPoints(dates: string[], series: CurrencySeries[], changes: boolean): NetWorthPoint[] {
  return series
    .sort((a, b) => (a.currency < b.currency ? -1 : 1))
    .flatMap(({ currency, assetsAt, liabilitiesAt }) => {
      let assetsCents = 0;
      let liabilitiesCents = 0;
      return dates.map((date, i) => {
        assetsCents = (changes ? assetsCents : 0) + (assetsAt[i] ?? 0);
        liabilitiesCents = (changes ? liabilitiesCents : 0) + (liabilitiesAt[i] ?? 0);
        return {
          date,
          currency,
          assetsCents,
          liabilitiesCents,
          netWorthCents: assetsCents - liabilitiesCents,
        };
      });
    });
}
